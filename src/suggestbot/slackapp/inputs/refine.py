"""Refining a suggestion in its thread: a person's reply in the thread, [Refine…] and its modal,
pick variant N, [Refresh preview] of a turn, [Show instruction], [Refine the newest turn],
[Resend without image].

A modal is opened from the background within the trigger's 3 seconds (no service call first).
"""

from __future__ import annotations

import re
from typing import Any

from suggestbot.flows.common import access, threads
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.linking import accounts as linking
from suggestbot.flows.refine import again as refine_again
from suggestbot.flows.refine import replies as refine
from suggestbot.flows.refine import turns
from suggestbot.slackapp.edge.answer import person
from suggestbot.slackapp.edge.declaration import (
    Action,
    Event,
    Happening,
    Input,
    Press,
    Refusal,
    Submission,
    View,
)
from suggestbot.slackapp.inputs.linking import open_connect
from suggestbot.ui import field_errors
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.thread_modals import (
    build_instruction_modal,
    build_refine_modal,
    refine_note,
)
from suggestbot.ui.payloads import button_place, dump_metadata
from suggestbot.ui.replies import thread_reply

CHOOSE = re.compile(rf"^{re.escape(ids.ACTION_CHOOSE_VARIANT)}\.\d+$")


def connect_first(deps: Deps, press: Press, *, channel: str) -> bool:
    """Someone not connected yet gets the connect modal instead (True) from the same press."""
    if linking.is_linked(deps, team_id=press.team_id, user_id=press.user_id):
        return False
    open_connect(deps, press.model_copy(update={"channel_id": channel}))
    return True


# --- a reply in the thread ------------------------------------------------------------------


def is_reply(event: dict[str, Any], bot_user_id: str | None, team_id: str | None) -> bool:
    return thread_reply(event, bot_user_id=bot_user_id, team_id=team_id) is not None


def _replied(deps: Deps, given: Happening) -> None:
    reply = thread_reply(
        given.event, bot_user_id=given.bot_user_id, team_id=given.body.get("team_id")
    )
    if reply is not None:
        refine.on_reply(deps, reply)


# --- [Refine…] and its modal ------------------------------------------------------------------


def _open_refine(deps: Deps, press: Press) -> None:
    assert press.trigger_id is not None
    place = button_place(press.body)
    channel, thread_ts = place.channel, place.thread_ts
    if not (channel and thread_ts):
        return
    if not access.may_use_thread(deps, person(press), channel=channel, thread_ts=thread_ts):
        return
    if connect_first(deps, press, channel=channel):
        return
    lang = deps.lang_of(press.user_id)
    try:
        binding = threads.binding_of(deps, channel=channel, thread_ts=thread_ts)
    except threads.NotReady:
        binding = None
    if binding is None:
        return
    variant, _kind, has_image, is_head = refine.refine_target(
        binding, pressed_suggestion=press.value
    )
    metadata = dump_metadata({"channel": channel, "thread_ts": thread_ts, "variant": variant})
    note = refine_note(
        lang=lang,
        variant=variant if len(binding.suggestions) > 1 else None,
        newest_turn=None if is_head else binding.turn_count,
    )
    view = build_refine_modal(lang=lang, private_metadata=metadata, with_image=has_image, note=note)
    deps.slack.views_open(trigger_id=press.trigger_id, view=view)


def _instruction(given: Submission) -> str:
    return str(given.values.get(ids.INPUT_INSTRUCTION) or "").strip()


def _check_instruction(given: Submission) -> Refusal | None:
    if _instruction(given):
        return None
    return Refusal(errors=lambda lang: field_errors.refine_empty(lang=lang))


def usable_thread(deps: Deps, given: Submission) -> tuple[str, str] | None:
    """The thread a modal was opened from (its metadata), if its submitter may use it."""
    channel = str(given.metadata.get("channel") or "")
    thread_ts = str(given.metadata.get("thread_ts") or "")
    if not access.may_use_thread(deps, person(given), channel=channel, thread_ts=thread_ts):
        return None
    return channel, thread_ts


def _refine_submitted(deps: Deps, given: Submission) -> None:
    thread = usable_thread(deps, given)
    if thread is None:
        return
    channel, thread_ts = thread
    refine.submit_modal(
        deps,
        team_id=given.team_id,
        user_id=given.user_id,
        channel=channel,
        thread_ts=thread_ts,
        variant=int(given.metadata.get("variant") or 0),
        instruction=_instruction(given),
        regenerate_image=given.values.get(ids.INPUT_IMAGE_MODE) == refine.IMAGE_REGENERATE,
    )


# --- the other buttons in a thread ------------------------------------------------------------


def _choose(deps: Deps, press: Press) -> None:
    refine.on_choice(
        deps,
        value=press.value,
        team_id=press.team_id,
        user_id=press.user_id,
        response_url=press.response_url,
    )


def _refresh_turn(deps: Deps, press: Press) -> None:
    place = button_place(press.body)
    req = access.request(deps, person(press), press.value)
    if req is None or place.channel != req.channel_id:
        return  # only in the turn's own thread: never another's turn elsewhere
    if place.channel and place.message_ts:
        turns.refresh_turn_preview(
            deps, request_id=press.value, channel=place.channel, ts=place.message_ts
        )


def _show_instruction(deps: Deps, press: Press) -> None:
    """Open the whole instruction of a refinement whose thread quotes only its beginning."""
    assert press.trigger_id is not None
    req = access.request(deps, person(press), press.value)
    if req is None:
        return
    lang = deps.lang_of(press.user_id)
    instruction = str(req.body.get("instruction") or "")
    view = build_instruction_modal(lang=lang, instruction=instruction)
    deps.slack.views_open(trigger_id=press.trigger_id, view=view)


def _refine_head(deps: Deps, press: Press) -> None:
    if access.request(deps, person(press), press.value) is None:
        return
    refine_again.refine_head(
        deps, request_id=press.value, team_id=press.team_id, acting_user=press.user_id
    )


def _without_image(deps: Deps, press: Press) -> None:
    if access.request(deps, person(press), press.value) is None:
        return
    refine_again.resend_without_image(
        deps, request_id=press.value, team_id=press.team_id, acting_user=press.user_id
    )


INPUTS: list[Input] = [
    Input("thread_reply", Event("message", where=is_reply), run=_replied),
    Input("refine_open", Action(ids.ACTION_REFINE_OPEN), run=_open_refine, opens_modal=True),
    Input(
        "refine_submitted",
        View(ids.VIEW_REFINE),
        run=_refine_submitted,
        check=_check_instruction,
    ),
    Input("choose_variant", Action(CHOOSE), run=_choose),
    Input("refresh_turn", Action(ids.ACTION_REFRESH_TURN), run=_refresh_turn),
    Input(
        "show_instruction",
        Action(ids.ACTION_SHOW_INSTRUCTION),
        run=_show_instruction,
        read_only=True,
        opens_modal=True,
    ),
    Input("refine_head", Action(ids.ACTION_REFINE_HEAD), run=_refine_head),
    Input("without_image", Action(ids.ACTION_RESEND_WITHOUT_IMAGE), run=_without_image),
]
