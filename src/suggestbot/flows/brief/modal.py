"""The brief as a person gives it: the modal, prefilled with their remembered choices, and the
``steered_generation`` request a brief becomes (from the modal or straight from the command).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from slack_sdk.errors import SlackApiError

from suggestbot.contentapi import SteeredGenerationRequest
from suggestbot.flows.brief import sending as brief
from suggestbot.flows.common import slackio, telling
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.linking import accounts as linking
from suggestbot.store.records import HeldInput, user_key
from suggestbot.ui.blocks.modals import (
    MODAL_INPUT_MAX,
    build_brief_loading_modal,
    build_brief_modal,
)
from suggestbot.ui.blocks.notices import build_connect_needed

log = logging.getLogger(__name__)


def quick_request(
    deps: Deps, *, team_id: str, user_id: str, text: str, load: bool = False
) -> tuple[SteeredGenerationRequest, dict[str, str]] | None:
    """The run request and labels of a brief sent with the user's remembered choices, or None
    when there are none to use. ``load``: ask the service for the catalogue if none is known
    (never before an ack)."""
    defaults = _remembered_defaults(deps, team_id=team_id, user_id=user_id, load=load)
    if defaults is None:
        return None
    segment_id, use_case_id, variants, labels = defaults
    labels = {**labels, brief.REUSED_LABEL: "yes"}
    run_request = brief.steered_request(
        segment_id=segment_id, use_case_id=use_case_id, text=text, variants=variants
    )
    return run_request, labels


def _remembered_defaults(
    deps: Deps, *, team_id: str, user_id: str, load: bool = False
) -> tuple[str, str, int, dict[str, str]] | None:
    """The user's last segment, use case and variant count, if all still exist in the
    catalogue as last known (kept in the store: the answer does not change with a restart)."""
    prefs = deps.records.preferences.get(user_key(team_id, user_id))
    catalog = deps.known_catalog() if prefs else None
    if prefs and catalog is None and load:
        catalog = deps.catalog()
    if not (prefs and prefs.segment_id and prefs.use_case_id and catalog):
        return None
    segments, use_cases = dict(catalog.segments), dict(catalog.use_cases)
    if prefs.segment_id not in segments or prefs.use_case_id not in use_cases:
        return None
    labels = {"segment": segments[prefs.segment_id], "use_case": use_cases[prefs.use_case_id]}
    return prefs.segment_id, prefs.use_case_id, prefs.variants, labels


def open_brief_modal(
    deps: Deps,
    *,
    trigger_id: str,
    team_id: str,
    user_id: str,
    channel_id: str,
    text: str = "",
    request_id: str | None = None,
    segment_id: str | None = None,
    use_case_id: str | None = None,
    variants: int | None = None,
    response_url: str | None = None,
    source_link: str | None = None,
) -> None:
    """Open the brief modal at once (a trigger lives 3 seconds): from the cached catalogue when
    there is one, else as a "loading" view that is filled in when the catalogue arrives.

    Args:
        request_id: the brief this modal edits and resends in place.
        response_url: lets the app reach the user in a channel it is not a member of.
        source_link: the permalink of the message the brief is made from (shown in the modal
            and, once sent, on the brief's root).
    """
    lang = deps.lang_of(user_id)
    prefs = deps.records.preferences.get(user_key(team_id, user_id))
    metadata: dict[str, Any] = {"channel": channel_id}
    if request_id:
        metadata["request"] = request_id
    if response_url:
        # Valid 30 minutes.
        metadata["response_url"] = response_url
    if source_link:
        metadata["source"] = source_link
    long_chars = None
    if len(text) > MODAL_INPUT_MAX:
        # Slack's input cannot hold it: keep the whole brief aside and send it as typed.
        held = HeldInput(team_id=team_id, user_id=user_id, channel_id=channel_id, text=text)
        deps.records.held.put(held.id, held)
        metadata["held"] = held.id
        long_chars = len(text)

    def build(catalog: Any) -> dict[str, Any]:
        return build_brief_modal(
            lang=lang,
            segments=catalog.segments,
            use_cases=catalog.use_cases,
            initial_text=text,
            initial_segment=segment_id or (prefs.segment_id if prefs else None),
            initial_use_case=use_case_id or (prefs.use_case_id if prefs else None),
            initial_variants=variants or (prefs.variants if prefs else 1),
            private_metadata=json.dumps(metadata),
            long_brief_chars=long_chars,
            source_link=source_link,
        )

    catalog = deps.cached_catalog()
    if catalog is not None:
        deps.slack.views_open(trigger_id=trigger_id, view=build(catalog))
        return
    opened: Any = deps.slack.views_open(
        trigger_id=trigger_id, view=build_brief_loading_modal(lang=lang)
    )
    view = opened["view"]
    deps.slack.views_update(view_id=view["id"], hash=view.get("hash"), view=build(deps.catalog()))


def open_from_message(
    deps: Deps,
    *,
    trigger_id: str,
    team_id: str,
    user_id: str,
    channel_id: str,
    message_ts: str,
    text: str,
    response_url: str | None = None,
) -> None:
    """ "Turn into a brief" on a message: the brief modal prefilled with its text, keeping its
    permalink as context. An unlinked person is asked to connect first, with the text kept."""
    if not linking.is_linked(deps, team_id=team_id, user_id=user_id):
        held = HeldInput(team_id=team_id, user_id=user_id, channel_id=channel_id, text=text)
        deps.records.held.put(held.id, held)
        message = build_connect_needed(lang=deps.lang_of(user_id), held_id=held.id)
        telling.tell(
            deps, user_id=user_id, channel_id=channel_id, message=message, response_url=response_url
        )
        return
    open_brief_modal(
        deps,
        trigger_id=trigger_id,
        team_id=team_id,
        user_id=user_id,
        channel_id=channel_id,
        text=text,
        response_url=response_url,
        source_link=_permalink(deps, channel_id=channel_id, message_ts=message_ts),
    )


def _permalink(deps: Deps, *, channel_id: str, message_ts: str) -> str | None:
    """The message's permalink, or None when Slack will not give it (the brief goes without)."""
    try:
        return slackio.permalink(deps, channel=channel_id, ts=message_ts, urgent=True)
    except SlackApiError as exc:
        log.warning("no permalink for a shortcut's message (%s)", slackio.slack_error(exc))
        return None
