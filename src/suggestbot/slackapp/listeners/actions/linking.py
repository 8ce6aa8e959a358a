"""[Connect account], and [Resend] for what a person typed before their account was linked."""

from __future__ import annotations

from typing import Any

from slack_bolt import App

from suggestbot.flows import access, linking, refine
from suggestbot.flows.brief_modal import open_brief_modal
from suggestbot.flows.deps import Deps
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.ack import on_button
from suggestbot.slackapp.listeners.askers import answer_press, person_pressing
from suggestbot.store.records import KEEP_HELD
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.modals import MODAL_INPUT_MAX
from suggestbot.ui.blocks.notices import build_held_gone
from suggestbot.ui.payloads import acting_user, action_value, button_place


def register(app: App, deps: Deps) -> None:
    # These open a modal: recorded too; a replay (its trigger expired) asks to press again.
    interactions.on_modal_button(ids.ACTION_CONNECT)
    on_button(app, deps=deps, action=ids.ACTION_CONNECT, work=_connect)
    on_button(app, deps=deps, action=ids.ACTION_RESEND, work=_resend_held)
    # After a crash only a kept reply is resent: a kept brief goes through the brief modal,
    # which only a fresh press can open.
    interactions.on_action(ids.ACTION_RESEND, _resend_held_reply)


def _connect(deps: Deps, body: dict[str, Any]) -> None:
    value = action_value(body)
    held_id = value.removeprefix("held:") if value.startswith("held:") else ""
    if held_id and access.held(deps, person_pressing(body), held_id) is None:
        held_id = ""  # another's (or gone): connect without it
    linking.open_connect_modal(
        deps,
        trigger_id=body["trigger_id"],
        user_id=body["user"]["id"],
        held_id=held_id,
        channel_id=button_place(body).channel,
        response_url=body.get("response_url"),
    )


def _resend_held(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = acting_user(body)
    held = access.held(deps, person_pressing(body), action_value(body))
    if held is None:
        answer_press(deps, body, build_held_gone(lang=deps.lang_of(user_id), days=KEEP_HELD.days))
        return
    if not linking.is_linked(deps, team_id=team_id, user_id=user_id):
        linking.open_connect_modal(
            deps, trigger_id=body["trigger_id"], user_id=user_id, held_id=held.id
        )
        return
    if held.thread_ts:  # a reply in a thread: sent as the refinement it was meant to be
        refine.resend_held(deps, held, team_id=team_id, acting_user=user_id)
        return
    open_brief_modal(
        deps,
        trigger_id=body["trigger_id"],
        team_id=team_id,
        user_id=user_id,
        channel_id=held.channel_id,
        text=held.text,
    )
    if len(held.text) <= MODAL_INPUT_MAX:
        deps.records.held.delete(held.id)


def _resend_held_reply(deps: Deps, body: dict[str, Any]) -> None:
    """After a restart: a kept thread reply is resent; kept briefs wait for another press."""
    held = access.held(deps, person_pressing(body), action_value(body))
    team_id, user_id = acting_user(body)
    if held is None or not held.thread_ts:
        return
    if linking.is_linked(deps, team_id=team_id, user_id=user_id):
        refine.resend_held(deps, held, team_id=team_id, acting_user=user_id)
