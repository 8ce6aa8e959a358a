"""Buttons in a refining thread: [Refine…], pick variant N, [Rename thread], [Refresh preview]
of a turn, [Show instruction], [Refine the newest turn], [Resend without image].

A modal is opened from the background within the trigger's 3 seconds (no service call first).
"""

from __future__ import annotations

import re
from typing import Any

from slack_bolt import App

from suggestbot.flows import access, linking, refine, refine_again, rename, threads, turns
from suggestbot.flows.deps import Deps
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.ack import on_button
from suggestbot.slackapp.listeners.askers import person_pressing
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.thread_modals import (
    build_instruction_modal,
    build_refine_modal,
    refine_note,
)
from suggestbot.ui.payloads import acting_user, action_value, button_place, dump_metadata

CHOOSE = re.compile(rf"^{re.escape(ids.ACTION_CHOOSE_VARIANT)}\.\d+$")


def register(app: App, deps: Deps) -> None:
    # These open a modal: recorded too; a replay (its trigger expired) asks to press again.
    interactions.on_modal_button(ids.ACTION_REFINE_OPEN)
    interactions.on_modal_button(ids.ACTION_RENAME_OPEN)
    interactions.on_modal_button(ids.ACTION_SHOW_INSTRUCTION)
    on_button(app, deps=deps, action=ids.ACTION_REFINE_OPEN, work=_open_refine)
    on_button(app, deps=deps, action=CHOOSE, work=_choose)
    on_button(app, deps=deps, action=ids.ACTION_RENAME_OPEN, work=_open_rename)
    on_button(app, deps=deps, action=ids.ACTION_REFRESH_TURN, work=_refresh_turn)
    on_button(app, deps=deps, action=ids.ACTION_SHOW_INSTRUCTION, work=_show_instruction)
    on_button(app, deps=deps, action=ids.ACTION_REFINE_HEAD, work=_refine_head)
    on_button(app, deps=deps, action=ids.ACTION_RESEND_WITHOUT_IMAGE, work=_without_image)
    # These start work: recorded before the ack, carried out after a crash. The others only
    # open a modal.
    for action, work in (
        (CHOOSE, _choose),
        (ids.ACTION_REFRESH_TURN, _refresh_turn),
        (ids.ACTION_REFINE_HEAD, _refine_head),
        (ids.ACTION_RESEND_WITHOUT_IMAGE, _without_image),
    ):
        interactions.on_action(action, work)


def _connect_first(
    deps: Deps, body: dict[str, Any], *, team_id: str, user_id: str, channel: str
) -> bool:
    """Someone not connected yet gets the connect modal instead (True) from the same press."""
    if linking.is_linked(deps, team_id=team_id, user_id=user_id):
        return False
    linking.open_connect_modal(
        deps,
        trigger_id=body["trigger_id"],
        user_id=user_id,
        channel_id=channel,
        response_url=body.get("response_url"),
    )
    return True


def _open_refine(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = acting_user(body)
    place = button_place(body)
    channel, thread_ts = place.channel, place.thread_ts
    if not (channel and thread_ts):
        return
    if not access.may_use_thread(deps, person_pressing(body), channel=channel, thread_ts=thread_ts):
        return
    if _connect_first(deps, body, team_id=team_id, user_id=user_id, channel=channel):
        return
    lang = deps.lang_of(user_id)
    try:
        binding = threads.binding_of(deps, channel=channel, thread_ts=thread_ts)
    except threads.NotReady:
        binding = None
    if binding is None:
        return
    variant, _kind, has_image, is_head = refine.refine_target(
        binding, pressed_suggestion=action_value(body)
    )
    metadata = dump_metadata({"channel": channel, "thread_ts": thread_ts, "variant": variant})
    note = refine_note(
        lang=lang,
        variant=variant if len(binding.suggestions) > 1 else None,
        newest_turn=None if is_head else binding.turn_count,
    )
    view = build_refine_modal(lang=lang, private_metadata=metadata, with_image=has_image, note=note)
    deps.slack.views_open(trigger_id=body["trigger_id"], view=view)


def _choose(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = acting_user(body)
    refine.on_choice(
        deps,
        value=action_value(body),
        team_id=team_id,
        user_id=user_id,
        response_url=body.get("response_url"),
    )


def _open_rename(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = acting_user(body)
    channel, _, thread_ts = action_value(body).partition(":")  # the binding's key
    if not (channel and thread_ts):
        return
    if not access.may_use_thread(deps, person_pressing(body), channel=channel, thread_ts=thread_ts):
        return
    if _connect_first(deps, body, team_id=team_id, user_id=user_id, channel=channel):
        return
    rename.open_modal(
        deps, trigger_id=body["trigger_id"], user_id=user_id, channel=channel, thread_ts=thread_ts
    )


def _refresh_turn(deps: Deps, body: dict[str, Any]) -> None:
    place = button_place(body)
    req = access.request(deps, person_pressing(body), action_value(body))
    if req is None or place.channel != req.channel_id:
        return  # only in the turn's own thread: never another's turn elsewhere
    if place.channel and place.message_ts:
        turns.refresh_turn_preview(
            deps, request_id=action_value(body), channel=place.channel, ts=place.message_ts
        )


def _show_instruction(deps: Deps, body: dict[str, Any]) -> None:
    """Open the whole instruction of a refinement whose thread quotes only its beginning."""
    req = access.request(deps, person_pressing(body), action_value(body))
    if req is None:
        return
    lang = deps.lang_of(body["user"]["id"])
    instruction = str(req.body.get("instruction") or "")
    view = build_instruction_modal(lang=lang, instruction=instruction)
    deps.slack.views_open(trigger_id=body["trigger_id"], view=view)


def _refine_head(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = acting_user(body)
    if access.request(deps, person_pressing(body), action_value(body)) is None:
        return
    refine_again.refine_head(
        deps, request_id=action_value(body), team_id=team_id, acting_user=user_id
    )


def _without_image(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = acting_user(body)
    if access.request(deps, person_pressing(body), action_value(body)) is None:
        return
    refine_again.resend_without_image(
        deps, request_id=action_value(body), team_id=team_id, acting_user=user_id
    )
