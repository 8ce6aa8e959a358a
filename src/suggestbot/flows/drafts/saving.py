"""``/suggest draft``: an email the user wrote, saved in the service and refinable in Slack.

The draft is saved with the user's own token (``POST /v1/suggestions``), posted as the root of
a new Slack thread and bound to it, so replies refine it like any result. Where the service
creates the draft's thread at once (design §4), its id is learnt right away and the root offers
"Rename thread"; otherwise both come with the first refinement.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk.errors import SlackApiError

from suggestbot.contentapi import (
    ContentApiError,
    DraftEmailSuggestionRequest,
    EmailPayload,
    NotFound,
    UserTokenRejected,
)
from suggestbot.flows.common import slackio, telling, threads
from suggestbot.flows.common.deps import Deps
from suggestbot.store.records import user_key
from suggestbot.ui.blocks.drafts import (
    DraftProblem,
    build_draft_elsewhere,
    build_draft_problem,
    draft_context,
)
from suggestbot.ui.blocks.results import Message
from suggestbot.ui.blocks.thread_modals import build_draft_modal
from suggestbot.ui.blocks.turns import build_draft_root
from suggestbot.ui.payloads import dump_metadata

log = logging.getLogger(__name__)


def open_modal(deps: Deps, *, trigger_id: str, team_id: str, user_id: str, channel_id: str) -> None:
    """Open the draft modal at once (a trigger lives 3 seconds): from the cached catalogue,
    else as a "loading" view filled in when the catalogue arrives."""
    lang = deps.lang_of(user_id)
    prefs = deps.records.preferences.get(user_key(team_id, user_id))
    metadata = dump_metadata({"channel": channel_id})

    def build(segments: Any, use_cases: Any) -> dict[str, Any]:
        return build_draft_modal(
            lang=lang,
            segments=segments,
            use_cases=use_cases,
            initial_segment=prefs.segment_id if prefs else None,
            initial_use_case=prefs.use_case_id if prefs else None,
            private_metadata=metadata,
        )

    catalog = deps.cached_catalog()
    if catalog is not None:
        deps.slack.views_open(
            trigger_id=trigger_id, view=build(catalog.segments, catalog.use_cases)
        )
        return
    loading = build_draft_modal(
        lang=lang, segments=[], use_cases=[], private_metadata=metadata, loading=True
    )
    opened: Any = deps.slack.views_open(trigger_id=trigger_id, view=loading)
    view = opened["view"]
    fresh = deps.catalog()
    deps.slack.views_update(
        view_id=view["id"], hash=view.get("hash"), view=build(fresh.segments, fresh.use_cases)
    )


def _tell_problem(
    deps: Deps, *, user_id: str, channel_id: str, problem: DraftProblem, code: str = ""
) -> None:
    message = build_draft_problem(lang=deps.lang_of(user_id), problem=problem, code=code)
    telling.tell(deps, user_id=user_id, channel_id=channel_id, message=message)


def _post_root(deps: Deps, *, user_id: str, channel_id: str, message: Message) -> tuple[str, str]:
    """Post in the channel, or in a direct message where the bot is not a member."""
    try:
        return channel_id, slackio.post(deps, channel=channel_id, message=message)
    except SlackApiError as exc:
        if slackio.slack_error(exc) not in slackio.UNREACHABLE_CHANNEL:
            raise
    dm = slackio.open_dm(deps, user_id)
    lang = deps.lang_of(user_id)
    slackio.post(
        deps,
        channel=dm,
        message=build_draft_elsewhere(lang=lang, channel_id=channel_id),
    )
    return dm, slackio.post(deps, channel=dm, message=message)


def save(
    deps: Deps,
    *,
    team_id: str,
    user_id: str,
    channel_id: str,
    segment_id: str,
    use_case_id: str,
    subject: str,
    body: str,
    labels: dict[str, str],
) -> threads.ThreadBinding | None:
    """Save the draft as the user, post it as a thread root and bind that thread to it."""
    lang = deps.lang_of(user_id)
    user = deps.records.users.get(user_key(team_id, user_id))
    if user is None or user.state != "linked":
        _tell_problem(deps, user_id=user_id, channel_id=channel_id, problem="expired")
        return None
    client = deps.content.as_user(deps.vault.decrypt(user.token_enc))
    request = DraftEmailSuggestionRequest(
        segment_id=segment_id,
        use_case_id=use_case_id,
        payload=EmailPayload(subject=subject, body=body),
    )
    try:
        draft = client.create_draft(request=request)
    except UserTokenRejected:
        deps.records.users.update(
            user_key(team_id, user_id),
            lambda u: u.model_copy(update={"state": "expired", "expired_at": deps.clock()}),
        )
        _tell_problem(deps, user_id=user_id, channel_id=channel_id, problem="expired")
        return None
    except NotFound:
        _tell_problem(deps, user_id=user_id, channel_id=channel_id, problem="not_found")
        return None
    except ContentApiError as exc:
        log.warning("saving a draft for %s failed: %s", user_id, exc)
        code = exc.code or f"http_{exc.status}"
        _tell_problem(deps, user_id=user_id, channel_id=channel_id, problem="failed", code=code)
        return None
    context = draft_context(
        lang=lang, segment=labels.get("segment", "?"), use_case=labels.get("use_case", "?")
    )
    root = build_draft_root(
        lang=lang,
        author=user_id,
        context=context,
        subject=subject,
        body=body,
        suggestion_id=draft.id,
    )
    channel, ts = _post_root(deps, user_id=user_id, channel_id=channel_id, message=root)
    binding = threads.bind_thread(
        deps,
        threads.new_binding(
            team_id=team_id,
            channel=channel,
            thread_ts=ts,
            suggestions=[threads.bound(draft, ts=ts)],
            origin="draft",
            owner_user_id=user_id,
            segment_id=segment_id,
            use_case_id=use_case_id,
            labels=labels,
            root=root,
            lang=lang,
        ),
    )
    log.info("draft %s saved by %s and posted", draft.id, user_id)
    binding = threads.remember_thread(deps, binding)
    if binding.service_thread_id:
        threads.refresh_root(deps, binding)
    return binding
