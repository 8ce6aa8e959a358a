"""Posting a succeeded run's variants into the root's thread, exactly once.

Before each post an intent is recorded; after it, the message ``ts``. A crash between the two
leaves an intent without a ``ts``: the next attempt looks for the message in the thread (by its
metadata) before posting, so a variant is never posted twice and never lost. Several variants
are first shown side by side (the gallery, posted once the same way), then each in full.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from slack_sdk.errors import SlackApiError

from suggestbot.contentapi import (
    GenerationRun,
    SocialSingleImagePayload,
    Suggestion,
)
from suggestbot.flows.common import slackio
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.common.requests import root_message
from suggestbot.flows.common.variants import asset_ref, mint_urls, minted_url, shown_variant
from suggestbot.flows.feedback.votes import feedback_value
from suggestbot.flows.home import tab as home
from suggestbot.flows.workflow import completion as step_completion
from suggestbot.slack import Dropped, Priority, priority
from suggestbot.store.marks import PostMark
from suggestbot.store.records import PostedVariant, Request
from suggestbot.ui import steps
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.gallery import build_copy_text, build_gallery, card_title, plain_text
from suggestbot.ui.blocks.results import (
    Button,
    Message,
    Variant,
    build_skipped_note,
    build_variant_messages,
)

log = logging.getLogger(__name__)


def to_variant(
    suggestion: Suggestion, *, total: int, urls: dict[str, str], request_id: str
) -> Variant:
    """A result as posted in the brief's thread, with Refine… (and Refresh preview)."""
    buttons: list[Button] = [Button("refine.button", ids.ACTION_REFINE_OPEN, suggestion.id)]
    if isinstance(suggestion.payload, SocialSingleImagePayload):
        refresh = f"{request_id}:{suggestion.variant_no}"
        buttons.append(Button("variant.refresh", ids.ACTION_REFRESH_PREVIEW, refresh))
    return shown_variant(
        suggestion,
        total=total,
        image_url=minted_url(suggestion, urls),
        buttons=buttons,
        feedback=feedback_value(request_id, suggestion.variant_no),
    )


def post_results(deps: Deps, req: Request, run: GenerationRun) -> None:
    """Post every variant of the run's set into the root's thread, then mark the request done."""
    assert run.suggestion_set_id is not None
    suggestion_set = deps.content.get_suggestion_set(id=run.suggestion_set_id)
    suggestions = list(suggestion_set.suggestions)
    urls = mint_urls(deps, [r for r in map(asset_ref, suggestions) if r])
    channel, thread_ts = req.post_channel_id or req.channel_id, req.root_ts
    posted: list[PostedVariant] = []
    variants = [
        to_variant(suggestion, total=len(suggestions), urls=urls, request_id=req.id)
        for suggestion in suggestions
    ]
    if deps.outbound is not None and req.post_channel_id and req.root_ts:
        # The root's progress still pending is dropped, and one being shown is waited for:
        # shown after the results it would set the thread's status line again, which Slack
        # cleared when the results were posted ("sending…" under the variants).
        deps.outbound.roots.now((req.post_channel_id, req.root_ts), lambda: None)
    if len(variants) > 1:
        gallery = build_gallery(lang=req.posts_lang, variants=variants, request_id=req.id)
        _post_message_once(deps, req, gallery, part=GALLERY, channel=channel, thread_ts=thread_ts)
    for suggestion, variant in zip(suggestions, variants, strict=True):
        ts = _post_once(deps, req, variant, channel=channel, thread_ts=thread_ts)
        posted.append(
            PostedVariant(
                suggestion_id=suggestion.id,
                variant_no=suggestion.variant_no,
                kind=suggestion.kind.value,
                ts=ts,
                asset_ref=asset_ref(suggestion),
            )
        )
    skipped = suggestion_set.skipped_count
    if skipped and _claim(deps, f"{req.id}:skipped"):
        note = build_skipped_note(lang=req.posts_lang, count=skipped)
        slackio.post(deps, channel=channel, message=note, thread_ts=thread_ts)
    # The thread may be refined from now on: its variants are recorded as soon as they are all
    # in, not once the root says "ready" (which waits for Slack's budget), so whoever replies to
    # what they see is never told the results are not ready yet.
    shown = {"variants": posted, "skipped": skipped}
    deps.records.requests.update(req.id, lambda r: r.model_copy(update=shown))
    finished = {"state": "done", **shown}
    done = req.model_copy(update=finished)
    outbound = deps.outbound
    deferred = outbound is not None and bool(done.post_channel_id and done.root_ts)
    if done.step_execution_id:
        # Before the request is marked done (a second completion is harmless, see
        # step_completion), and before the root: the workflow's next step waits for it.
        _complete_step(deps, done, variants)

    def record() -> None:
        deps.records.requests.update(req.id, lambda r: r.model_copy(update=finished))

    def finish() -> None:
        """The root shows the result, then the request is recorded done. Shown before it is
        recorded: if Slack is down or the process dies in between, the request is still
        "posting", so it comes here again (nothing is posted twice). The other order could
        leave the root saying "generating" for good — except when Slack's budget for
        ``chat.update`` is spent (more roots end in a minute than Slack lets the app update):
        then the request is recorded done at once and its root updated as soon as the budget
        allows, tried again until it is (a crash in between leaves the root's last progress
        words; the results are all in its thread)."""
        if done.post_channel_id and done.root_ts:
            try:
                slackio.update(
                    deps, channel=done.post_channel_id, ts=done.root_ts, message=root_message(done)
                )
            except Dropped:
                record()
                raise
            except SlackApiError as exc:
                if slackio.unavailable(exc):
                    raise
                log.warning("request %s: root not updated (%s)", req.id, slackio.slack_error(exc))
        record()
        if deferred:
            home.refresh(deps, team_id=req.team_id, user_id=req.user_id)

    if outbound is None or not (done.post_channel_id and done.root_ts):
        finish()
        return
    # The results are in the thread; the root's "ready" is decoration that must still show:
    # sent by the roots' own thread as Slack's budget allows, so a burst of results is never
    # held up behind a burst of root updates (Tier 3: 50 a minute per workspace).
    outbound.roots.final((done.post_channel_id, done.root_ts), lambda: _as_decoration(finish))


def _complete_step(deps: Deps, req: Request, variants: Sequence[Variant]) -> None:
    """The Workflow Builder step that sent this brief ends with the result (before the request
    is marked done: see :mod:`~suggestbot.flows.workflow.completion`)."""
    if not variants or not req.root_ts:
        step_completion.fail(deps, req, message=steps.bad_input(lang=req.lang, key="no_variant"))
        return
    channel = req.post_channel_id or req.channel_id
    link = slackio.permalink(deps, channel=channel, ts=req.root_ts, urgent=True)
    first = plain_text(lang=req.lang, variant=variants[0])
    step_completion.succeed(deps, req, permalink=str(link), first_variant=first)
    deps.crash_point("step_completed_not_recorded")


def _claim(deps: Deps, key: str) -> bool:
    return deps.records.posts.put_if_absent(key, PostMark(state="intent"))


# The gallery's part number among a request's posts (variants are numbered from 1).
GALLERY = 0


def _already_posted(
    deps: Deps, req: Request, *, part: int, channel: str, thread_ts: str | None
) -> tuple[bool, str | None]:
    """Claim the post of ``part`` (a variant's number, or :data:`GALLERY`); when an earlier
    attempt claimed it, ``(True, ts)`` if it is known or found in the thread."""
    key = f"{req.id}:{part}"
    if _claim(deps, key):
        return False, None
    existing = deps.records.posts.get(key)
    if existing is not None and existing.ts:
        return True, existing.ts
    if thread_ts:
        found = slackio.find_posted(
            deps,
            channel=channel,
            thread_ts=thread_ts,
            matches=lambda p: p.get("request_id") == req.id and _is_part(p, part),
        )
        if found:
            log.info("request %s part %d was already posted", req.id, part)
            deps.records.posts.put(key, PostMark(state="posted", ts=found))
            return True, found
    return False, None


def _is_part(payload: dict[str, Any], part: int) -> bool:
    if part == GALLERY:
        return payload.get("role") == "gallery"
    return payload.get("variant_no") == part


def _post_message_once(
    deps: Deps,
    req: Request,
    message: Message,
    *,
    part: int,
    channel: str,
    thread_ts: str | None,
    extra: Sequence[Message] = (),
) -> str | None:
    done, ts = _already_posted(deps, req, part=part, channel=channel, thread_ts=thread_ts)
    if done:
        return ts
    deps.crash_point("before_post_variant")
    metadata: dict[str, Any] = {"request_id": req.id, "role": "gallery"}
    if part != GALLERY:
        metadata = {"request_id": req.id, "variant_no": part, "role": "variant"}
    first_ts = slackio.post(
        deps, channel=channel, message=message, thread_ts=thread_ts, metadata=metadata
    )
    deps.crash_point("variant_posted_not_recorded")
    for more in extra:
        slackio.post(deps, channel=channel, message=more, thread_ts=thread_ts)
    deps.records.posts.put(f"{req.id}:{part}", PostMark(state="posted", ts=first_ts))
    return first_ts


def _post_once(
    deps: Deps, req: Request, variant: Variant, *, channel: str, thread_ts: str | None
) -> str | None:
    messages = build_variant_messages(lang=req.posts_lang, variant=variant)
    return _post_message_once(
        deps,
        req,
        messages[0],
        part=variant.number,
        channel=channel,
        thread_ts=thread_ts,
        extra=messages[1:],
    )


def refresh_preview(deps: Deps, *, request_id: str, variant_no: int, channel: str, ts: str) -> bool:
    """Mint a fresh URL for a variant's image and show it again in its message (in place)."""
    req = deps.records.requests.get(request_id)
    if req is None:
        return False
    known = next((v for v in req.variants if v.variant_no == variant_no), None)
    if known is None:
        return False
    suggestion = deps.content.get_suggestion(id=known.suggestion_id)
    ref = asset_ref(suggestion)
    urls = mint_urls(deps, [ref] if ref else [])
    variant = to_variant(suggestion, total=len(req.variants), urls=urls, request_id=req.id)
    first = build_variant_messages(lang=req.posts_lang, variant=variant)[0]
    slackio.update(deps, channel=channel, ts=ts, message=first)
    return True


def _from_the_run(deps: Deps, req: Request, variant_no: int) -> tuple[Suggestion, int] | None:
    """Variant ``variant_no`` of the request's finished run and how many there are, if any."""
    if not req.run_id:
        return None
    run = deps.content.get_run(run_id=req.run_id)
    if run.suggestion_set_id is None:
        return None
    suggestions = deps.content.get_suggestion_set(id=run.suggestion_set_id).suggestions
    found = next((s for s in suggestions if s.variant_no == variant_no), None)
    return None if found is None else (found, len(suggestions))


def copy_text(deps: Deps, *, request_id: str, variant_no: int, lang: str) -> list[Message] | None:
    """A posted variant's plain text, ready to copy (None when the variant is not known)."""
    req = deps.records.requests.get(request_id)
    if req is None:
        return None
    known = next((v for v in req.variants if v.variant_no == variant_no), None)
    if known is not None:
        suggestion, total = deps.content.get_suggestion(id=known.suggestion_id), len(req.variants)
    else:
        # The gallery is posted before the variants are recorded: a press that quick is
        # answered from the run's set, which is what the gallery shows.
        found = _from_the_run(deps, req, variant_no)
        if found is None:
            return None
        suggestion, total = found
    variant = to_variant(suggestion, total=total, urls={}, request_id=req.id)
    return build_copy_text(
        lang=lang,
        title=card_title(lang=lang, variant=variant),
        text=plain_text(lang=lang, variant=variant),
    )


def _as_decoration(send: Callable[[], None]) -> None:
    with priority(Priority.DECORATION):
        send()
