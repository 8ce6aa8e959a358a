"""Middleware of a multi-workspace (OAuth) install: which workspace a request serves."""

from __future__ import annotations

from collections.abc import Callable

from slack_bolt import App, BoltContext

from suggestbot.installations.scope import enter_team


def register(app: App) -> None:
    @app.middleware
    def serve_team(context: BoltContext, next: Callable[[], None]) -> None:
        # Every flow this request starts (on any thread, see scope.ContextExecutor) acts for
        # the request's workspace: its bot token, its service tenant.
        enter_team(context.team_id)
        next()
