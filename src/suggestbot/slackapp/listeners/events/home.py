"""``app_home_opened``: the App Home tab is published afresh each time its person opens it."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.home import tab as home
from suggestbot.slackapp.listeners.ack import in_background


def register(app: App, deps: Deps) -> None:
    @app.event("app_home_opened")
    def home_opened(ack: Ack, body: dict[str, Any], event: dict[str, Any]) -> None:
        ack()
        if event.get("tab", "home") != "home" or not event.get("user"):
            return
        user_id = str(event["user"])
        in_background(
            deps,
            _publish,
            deps,
            str(body.get("team_id") or ""),
            user_id,
            user_id=user_id,
            channel_id=None,
        )


def _publish(deps: Deps, team_id: str, user_id: str) -> None:
    home.publish(deps, team_id=team_id, user_id=user_id)
