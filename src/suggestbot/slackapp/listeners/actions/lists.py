"""Buttons of ``/suggest threads`` and ``/suggest runs``: [More], a thread's or a run's history."""

from __future__ import annotations

from typing import Any

from slack_bolt import App

from suggestbot.flows import histories, lists
from suggestbot.flows.deps import Deps
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.ack import on_button
from suggestbot.ui.blocks import ids
from suggestbot.ui.payloads import acting_user, action_value, button_place


def register(app: App, deps: Deps) -> None:
    # These open a modal: recorded too; a replay (its trigger expired) asks to press again.
    interactions.on_modal_button(ids.ACTION_THREAD_HISTORY)
    interactions.on_modal_button(ids.ACTION_RUN_HISTORY)
    on_button(app, deps=deps, action=ids.ACTION_LIST_MORE, work=_more)
    on_button(app, deps=deps, action=ids.ACTION_THREAD_HISTORY, work=_thread_history)
    on_button(app, deps=deps, action=ids.ACTION_RUN_HISTORY, work=_run_history)


def _more(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = acting_user(body)
    lists.more(
        deps,
        value=action_value(body),
        team_id=team_id,
        user_id=user_id,
        channel_id=button_place(body).channel or user_id,
        response_url=body.get("response_url"),
    )


def _thread_history(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = acting_user(body)
    histories.open_thread_history(
        deps,
        trigger_id=body["trigger_id"],
        team_id=team_id,
        user_id=user_id,
        thread_id=action_value(body),
    )


def _run_history(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = acting_user(body)
    histories.open_run_history(
        deps,
        trigger_id=body["trigger_id"],
        team_id=team_id,
        user_id=user_id,
        run_id=action_value(body),
    )
