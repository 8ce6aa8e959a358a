"""The app's Messages tab as a composer: suggested prompts when it opens, a brief written there
in plain words sent with one click's worth of choices, and those choices picked again.

A brief written there becomes a request like any other (its root in that conversation, the
variants in the root's thread, replies there refine as in channels). Its choices come from
the brief's own head when it names them (as the suggested prompts do), else the author's
remembered choices, else the workspace's first segment and use case; the root offers them
again as selects, and a pick sends the brief again with it and remembers it.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk.errors import SlackApiError

from suggestbot.contentapi import ContentApiError
from suggestbot.contentapi.checks import MAX_VARIANTS, check_brief, is_invalid_text
from suggestbot.flows.brief import sending as brief
from suggestbot.flows.common import interactions, slackio, telling
from suggestbot.flows.common.deps import Catalog, Deps
from suggestbot.flows.linking import accounts as linking
from suggestbot.store.records import ComposerChoices, HeldInput, Preferences, user_key
from suggestbot.ui import field_errors
from suggestbot.ui.blocks.composer import (
    build_choice_kept,
    build_kept_for_later,
    build_not_your_composer,
    build_suggested_prompts,
)
from suggestbot.ui.blocks.notices import (
    build_brief_not_text,
    build_connect_needed,
    build_returned_text,
)
from suggestbot.ui.replies import ComposerMessage, split_choice_header

log = logging.getLogger(__name__)

Which = str  # "segment", "use_case" or "variants": the select picked on a root


def offer_prompts(deps: Deps, *, user_id: str, channel_id: str) -> bool:
    """Set the Messages tab's suggested prompts: brief templates from the workspace's
    segments and use cases, in the person's language. False when there were none to set or
    Slack refused them (logged; the tab still takes briefs)."""
    lang = deps.lang_of(user_id)
    try:
        catalog = deps.catalog()
    except ContentApiError as exc:
        log.warning("no suggested prompts: the service's catalogue failed (%s)", exc.code)
        return False
    prompts = build_suggested_prompts(
        lang=lang, segments=catalog.segments, use_cases=catalog.use_cases
    )
    if prompts is None:
        return False
    try:
        # No thread: an agent_view app's prompts belong to the whole Messages tab.
        deps.slack.assistant_threads_setSuggestedPrompts(
            channel_id=channel_id, title=prompts.title, prompts=prompts.prompts
        )
    except SlackApiError as exc:
        log.warning("Slack refused the suggested prompts (%s)", slackio.slack_error(exc))
        return False
    return True


def on_message(deps: Deps, message: ComposerMessage) -> None:
    """A brief written in the Messages tab: sent, or kept with a word on why it waits."""
    team_id, user_id, channel = message.team_id, message.user_id, message.channel
    lang = deps.lang_of(user_id)
    if is_invalid_text(message.text):
        # Said at once, before anything is kept: such text cannot be stored or sent. The brief
        # itself stays in the Messages tab, where it was written.
        slackio.post(deps, channel=channel, message=build_brief_not_text(lang=lang))
        return
    if not linking.is_linked(deps, team_id=team_id, user_id=user_id):
        held = _hold(deps, message)
        slackio.post(
            deps, channel=channel, message=build_connect_needed(lang=lang, held_id=held.id)
        )
        return
    try:
        catalog = deps.known_catalog() or deps.catalog()
    except ContentApiError as exc:
        log.warning("composer brief kept: the service's catalogue failed (%s)", exc.code)
        catalog = None
    if catalog is None or not (catalog.segments and catalog.use_cases):
        held = _hold(deps, message)
        slackio.post(
            deps, channel=channel, message=build_kept_for_later(lang=lang, held_id=held.id)
        )
        return
    segment_id, use_case_id, text = split_choice_header(
        message.text, segments=catalog.segments, use_cases=catalog.use_cases
    )
    problem = check_brief(text)
    if problem:
        why = field_errors.brief_problem(code=problem, length=len(text), lang=lang)
        slackio.post(
            deps,
            channel=channel,
            message=build_returned_text(lang=lang, problem=why, text=message.text),
        )
        return
    prefs = deps.records.preferences.get(user_key(team_id, user_id)) or Preferences()
    if segment_id and use_case_id:
        prefs = _remember(deps, team_id, user_id, segment_id=segment_id, use_case_id=use_case_id)
    _send(
        deps,
        team_id=team_id,
        user_id=user_id,
        channel=channel,
        text=text,
        catalog=catalog,
        prefs=prefs,
    )


def pick(
    deps: Deps, *, team_id: str, user_id: str, request_id: str, which: Which, value: str
) -> bool:
    """The author picked another ``which`` on a composer brief's root: remember it and send
    the brief again with it. False when the pick is not theirs to make (or not a choice)."""
    earlier = deps.records.requests.get(request_id)
    if earlier is None or earlier.composer is None or earlier.user_id != user_id:
        return False
    choices = earlier.composer
    body = earlier.body
    current = Preferences(
        segment_id=str(body.get("segment_id") or ""),
        use_case_id=str(body.get("use_case_id") or ""),
        variants=int(body.get("variant_count") or 1),
    )
    if which == "segment" and value in dict(choices.segments):
        change: dict[str, Any] = {"segment_id": value}
    elif which == "use_case" and value in dict(choices.use_cases):
        change = {"use_case_id": value}
    elif which == "variants" and value.isdecimal() and 1 <= int(value) <= MAX_VARIANTS:
        change = {"variants": int(value)}
    else:
        return False
    prefs = current.model_copy(update=change)
    deps.records.preferences.put(user_key(team_id, user_id), prefs)
    catalog = Catalog(segments=choices.segments, use_cases=choices.use_cases, loaded_at=0.0)
    lang = deps.lang_of(user_id)
    segments, use_cases = dict(choices.segments), dict(choices.use_cases)
    kept = build_choice_kept(
        lang=lang,
        segment=segments.get(prefs.segment_id or "", "?"),
        use_case=use_cases.get(prefs.use_case_id or "", "?"),
        variants=prefs.variants,
    )
    _send(
        deps,
        team_id=team_id,
        user_id=user_id,
        channel=earlier.channel_id,
        text=earlier.steering_text,
        catalog=catalog,
        prefs=prefs,
    )
    try:
        telling.tell(deps, user_id=user_id, channel_id=earlier.channel_id, message=kept)
    except Exception:
        log.warning("could not confirm a composer pick to user %s", user_id)
    return True


def tell_not_yours(deps: Deps, *, user_id: str, channel_id: str) -> None:
    """Tell ``user_id`` that the composer choices they picked belong to someone else."""
    lang = deps.lang_of(user_id)
    message = build_not_your_composer(lang=lang)
    telling.tell(deps, user_id=user_id, channel_id=channel_id, message=message)


def _send(
    deps: Deps,
    *,
    team_id: str,
    user_id: str,
    channel: str,
    text: str,
    catalog: Catalog,
    prefs: Preferences,
) -> None:
    """Record the brief and send it, with the choices its root offers again.

    Its id is derived from the interaction: carried out again after a crash, the work finds
    the brief the first attempt recorded and leaves it to the requests' own recovery (which
    has resumed it at start), so it is never sent twice."""
    request_id = interactions.derived_id("composer-brief")
    if deps.records.requests.get(request_id) is not None:
        return
    segments, use_cases = dict(catalog.segments), dict(catalog.use_cases)
    segment_id = prefs.segment_id if prefs.segment_id in segments else catalog.segments[0][0]
    use_case_id = prefs.use_case_id if prefs.use_case_id in use_cases else catalog.use_cases[0][0]
    variants = prefs.variants if 1 <= prefs.variants <= MAX_VARIANTS else 1
    req = brief.record(
        deps,
        team_id=team_id,
        user_id=user_id,
        channel_id=channel,
        run_request=brief.steered_request(
            segment_id=segment_id, use_case_id=use_case_id, text=text, variants=variants
        ),
        labels={"segment": segments[segment_id], "use_case": use_cases[use_case_id]},
        request_id=request_id,
        composer=ComposerChoices(segments=catalog.segments, use_cases=catalog.use_cases),
    )
    brief.launch(deps, req.id)


def _remember(
    deps: Deps, team_id: str, user_id: str, *, segment_id: str, use_case_id: str
) -> Preferences:
    def change(prefs: Preferences | None) -> Preferences:
        kept = prefs or Preferences()
        return kept.model_copy(update={"segment_id": segment_id, "use_case_id": use_case_id})

    return deps.records.preferences.upsert(user_key(team_id, user_id), change) or Preferences()


def _hold(deps: Deps, message: ComposerMessage) -> HeldInput:
    held = HeldInput(
        id=interactions.derived_id("composer-held"),  # a replay after a crash keeps it once
        team_id=message.team_id,
        user_id=message.user_id,
        channel_id=message.channel,
        text=message.text,
    )
    deps.records.held.put(held.id, held)
    return held
