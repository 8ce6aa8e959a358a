"""[Service credentials] on an admin's App Home (multi-workspace installs only): the modal in
which a workspace's own service account is set."""

from __future__ import annotations

from typing import Any

from slack_bolt import App

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.workspace import admin as workspace_admin
from suggestbot.slackapp.listeners.ack import on_button
from suggestbot.ui.blocks import ids


def register(app: App, deps: Deps) -> None:
    on_button(app, deps=deps, action=ids.ACTION_SERVICE_CREDENTIALS, work=_open)


def _open(deps: Deps, body: dict[str, Any]) -> None:
    user_id = body["user"]["id"]
    workspace_admin.open_modal(deps, trigger_id=body["trigger_id"], user_id=user_id)
