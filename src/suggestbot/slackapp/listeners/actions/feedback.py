"""Feedback buttons under a variant or turn, and a gallery card's "Copy text".

A feedback press is recorded before its ack (``interactions``) and counted after it; a new
thumbs-down then asks why, in a modal that may be skipped (only while the press's trigger is
fresh: a press carried out after a restart counts without asking).
"""

from __future__ import annotations

from typing import Any

from slack_bolt import App

from suggestbot.flows.brief import results
from suggestbot.flows.common import access, telling
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.feedback import votes as feedback
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.ack import on_button
from suggestbot.slackapp.listeners.askers import person_pressing
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.feedback import build_reason_modal, parse_press
from suggestbot.ui.blocks.gallery import build_copy_gone
from suggestbot.ui.payloads import acting_user, action_value, button_place, workspace_of


def register(app: App, deps: Deps) -> None:
    on_button(app, deps=deps, action=ids.ACTION_FEEDBACK, work=_pressed)
    on_button(app, deps=deps, action=ids.ACTION_COPY_TEXT, work=_copy_text)
    interactions.on_action(ids.ACTION_FEEDBACK, _pressed)


def _pressed(deps: Deps, body: dict[str, Any]) -> None:
    press = parse_press(action_value(body))
    if press is None:
        return
    positive, what = press
    _, user_id = acting_user(body)
    parsed = feedback.parse_value(what)
    if parsed is None or access.request(deps, person_pressing(body), parsed[0]) is None:
        return  # a variant the person cannot see is not theirs to vote on
    cast = feedback.vote(
        deps, team_id=workspace_of(body), user_id=user_id, value=what, positive=positive
    )
    trigger = body.get("trigger_id")
    if cast is None or positive or not cast[1] or not trigger:
        return
    view = build_reason_modal(lang=deps.lang_of(user_id), value=what)
    deps.slack.views_open(trigger_id=trigger, view=view)


def _copy_text(deps: Deps, body: dict[str, Any]) -> None:
    _, user_id = acting_user(body)
    lang = deps.lang_of(user_id)
    parsed = feedback.parse_value(action_value(body))
    readable = parsed and access.request(deps, person_pressing(body), parsed[0]) is not None
    messages = (
        results.copy_text(deps, request_id=parsed[0], variant_no=parsed[1], lang=lang)
        if parsed and readable
        else None
    )
    channel = button_place(body).channel or user_id
    for message in messages or [build_copy_gone(lang=lang)]:
        telling.tell(
            deps,
            user_id=user_id,
            channel_id=channel,
            message=message,
            response_url=body.get("response_url"),
        )
