"""[Service credentials] on an admin's App Home (multi-workspace installs only): the modal in
which a workspace's own service account is set."""

from __future__ import annotations

from typing import Any

from slack_bolt import App

from suggestbot.flows import workspace_admin
from suggestbot.flows.deps import Deps
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.ack import on_button
from suggestbot.ui.blocks import ids


def register(app: App, deps: Deps) -> None:
    # These open a modal: recorded too; a replay (its trigger expired) asks to press again.
    interactions.on_modal_button(ids.ACTION_SERVICE_CREDENTIALS)
    on_button(app, deps=deps, action=ids.ACTION_SERVICE_CREDENTIALS, work=_open)


def _open(deps: Deps, body: dict[str, Any]) -> None:
    user_id = body["user"]["id"]
    workspace_admin.open_modal(deps, trigger_id=body["trigger_id"], user_id=user_id)
