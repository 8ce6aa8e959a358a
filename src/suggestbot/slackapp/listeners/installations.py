"""Bolt listeners of a multi-workspace install: which workspace a request serves, uninstalls
and revoked tokens, and the admins' service credentials."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import Ack, App, BoltContext

from suggestbot.flows import uninstall, workspace_admin
from suggestbot.flows.deps import Deps
from suggestbot.installations.scope import enter_team
from suggestbot.installations.service import ContentClients
from suggestbot.slackapp.listeners.background import in_background
from suggestbot.ui.blocks import ids
from suggestbot.ui.payloads import view_values

log = logging.getLogger(__name__)


def register(app: App, deps: Deps, *, installations: Any, contents: ContentClients) -> None:
    """Register the listeners (``installations`` is the app's ``InstallationStore``)."""

    @app.middleware
    def serve_team(context: BoltContext, next: Callable[[], None]) -> None:
        # Every flow this request starts (on any thread, see scope.ContextExecutor) acts for
        # the request's workspace: its bot token, its service tenant.
        enter_team(context.team_id)
        next()

    @app.event("app_uninstalled")
    def uninstalled(ack: Ack, context: BoltContext) -> None:
        ack()
        uninstall.forget_workspace(
            deps,
            installations=installations,
            contents=contents,
            enterprise_id=context.enterprise_id,
            team_id=context.team_id,
        )

    @app.event("tokens_revoked")
    def revoked(ack: Ack, event: dict[str, Any], context: BoltContext) -> None:
        ack()
        tokens = event.get("tokens") or {}
        uninstall.tokens_revoked(
            installations,
            enterprise_id=context.enterprise_id,
            team_id=context.team_id,
            user_ids=[str(u) for u in tokens.get("oauth") or []],
            bot_user_ids=[str(u) for u in tokens.get("bot") or []],
        )

    @app.action(ids.ACTION_SERVICE_CREDENTIALS)
    def open_credentials(ack: Ack, body: dict[str, Any]) -> None:
        ack()
        user_id = body["user"]["id"]
        in_background(
            deps, _open, deps, body["trigger_id"], user_id, user_id=user_id, channel_id=None
        )

    @app.view(ids.VIEW_SERVICE_CREDENTIALS)
    def credentials_submitted(ack: Ack, body: dict[str, Any], view: dict[str, Any]) -> None:
        user_id = body["user"]["id"]
        values = view_values(view)
        errors = workspace_admin.form_errors(values, deps.lang_of(user_id))
        if errors:
            ack(response_action="errors", errors=errors)
            return
        ack()
        team_id = str((body.get("team") or {}).get("id") or body["user"].get("team_id") or "")
        in_background(
            deps,
            _save,
            deps,
            contents,
            team_id,
            user_id,
            values,
            user_id=user_id,
            channel_id=None,
        )


def _open(deps: Deps, trigger_id: str, user_id: str) -> None:
    workspace_admin.open_modal(deps, trigger_id=trigger_id, user_id=user_id)


def _save(
    deps: Deps, contents: ContentClients, team_id: str, user_id: str, values: dict[str, Any]
) -> None:
    workspace_admin.save(deps, contents, team_id=team_id, user_id=user_id, values=values)
