"""Events API: replies in threads (``message``) and the App Home tab (``app_home_opened``).

Every ``message`` event is acked, whatever its subtype: edits, deletions, joins and bot posts
are answered 200 and dropped here, so Slack neither retries them nor do they reach a flow.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, App, BoltContext

from suggestbot.flows import home, refine
from suggestbot.flows.deps import Deps
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.background import in_background
from suggestbot.ui.replies import thread_reply

log = logging.getLogger(__name__)


def register(app: App, deps: Deps) -> None:
    # A reply is recorded before this ack (middleware) and carried out again after a crash.
    interactions.on_thread_reply(_replay_reply)

    @app.event("message")
    def message(
        ack: Ack, body: dict[str, Any], event: dict[str, Any], context: BoltContext
    ) -> None:
        ack()
        reply = thread_reply(event, bot_user_id=context.bot_user_id, team_id=body.get("team_id"))
        if reply is None:
            return
        in_background(
            deps,
            refine.on_reply,
            deps,
            reply,
            user_id=reply.user_id,
            channel_id=reply.channel,
        )

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


def _replay_reply(deps: Deps, body: dict[str, Any], bot_user_id: str | None) -> None:
    reply = thread_reply(body["event"], bot_user_id=bot_user_id, team_id=body.get("team_id"))
    if reply is not None:
        refine.on_reply(deps, reply)


def _publish(deps: Deps, team_id: str, user_id: str) -> None:
    home.publish(deps, team_id=team_id, user_id=user_id)
