"""The service credentials modal's submission (multi-workspace installs only): checked at
once (field errors), recorded before the ack (the middleware keeps it, sealed: it holds a
client secret), saved after the ack, and saved again after a crash."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App

from suggestbot.flows import workspace_admin
from suggestbot.flows.deps import Deps
from suggestbot.installations.service import ContentClients
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.ack import in_background
from suggestbot.ui.blocks import ids
from suggestbot.ui.payloads import view_values, workspace_of


def register(app: App, deps: Deps, *, contents: ContentClients) -> None:
    # Recorded before the ack (middleware) and carried out after a crash.
    interactions.on_view(
        ids.VIEW_SERVICE_CREDENTIALS, lambda deps, body: _save(deps, contents, body)
    )

    @app.view(ids.VIEW_SERVICE_CREDENTIALS)
    def credentials_submitted(ack: Ack, body: dict[str, Any], view: dict[str, Any]) -> None:
        user_id = body["user"]["id"]
        errors = workspace_admin.form_errors(view_values(view), deps.lang_of(user_id))
        if errors:
            ack(response_action="errors", errors=errors)
            interactions.finish_current(deps)  # nothing to carry out
            return
        ack()
        in_background(deps, _save, deps, contents, body, user_id=user_id, channel_id=None)


def _save(deps: Deps, contents: ContentClients, body: dict[str, Any]) -> None:
    """Check and keep the submitted credentials (after the ack, and again after a crash: a
    submission that was answered with field errors started nothing)."""
    user_id = body["user"]["id"]
    values = view_values(body["view"])
    if workspace_admin.form_errors(values, deps.lang_of(user_id)):
        return
    team_id = workspace_of(body)
    workspace_admin.save(deps, contents, team_id=team_id, user_id=user_id, values=values)
