"""The service credentials modal's submission (multi-workspace installs only): checked at
once (field errors), saved after the ack."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.workspace import admin as workspace_admin
from suggestbot.installations.service import ContentClients
from suggestbot.slackapp.listeners.ack import in_background
from suggestbot.ui.blocks import ids
from suggestbot.ui.payloads import view_values, workspace_of


def register(app: App, deps: Deps, *, contents: ContentClients) -> None:
    @app.view(ids.VIEW_SERVICE_CREDENTIALS)
    def credentials_submitted(ack: Ack, body: dict[str, Any], view: dict[str, Any]) -> None:
        user_id = body["user"]["id"]
        values = view_values(view)
        errors = workspace_admin.form_errors(values, deps.lang_of(user_id))
        if errors:
            ack(response_action="errors", errors=errors)
            return
        ack()
        in_background(
            deps,
            _save,
            deps,
            contents,
            workspace_of(body),
            user_id,
            values,
            user_id=user_id,
            channel_id=None,
        )


def _save(
    deps: Deps, contents: ContentClients, team_id: str, user_id: str, values: dict[str, Any]
) -> None:
    workspace_admin.save(deps, contents, team_id=team_id, user_id=user_id, values=values)
