"""The language picker on an admin's App Home: the language of what channels see."""

from __future__ import annotations

from typing import Any

from slack_bolt import App

from suggestbot.flows.common import workspace_language
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.home import tab as home
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.ack import on_button
from suggestbot.ui.blocks import ids
from suggestbot.ui.payloads import acting_user, picked_option, workspace_of


def register(app: App, deps: Deps) -> None:
    on_button(app, deps=deps, action=ids.ACTION_WORKSPACE_LANGUAGE, work=_choose)
    # Changes a setting: recorded before the ack, carried out after a crash.
    interactions.on_action(ids.ACTION_WORKSPACE_LANGUAGE, _choose)


def _choose(deps: Deps, body: dict[str, Any]) -> None:
    _, user_id = acting_user(body)
    team_id = workspace_of(body)
    _, chosen = picked_option(body)
    workspace_language.choose(deps, team_id=team_id, user_id=user_id, chosen=chosen)
    home.publish(deps, team_id=team_id, user_id=user_id)
