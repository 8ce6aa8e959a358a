"""``message`` events: a person's reply in a thread refines that thread's suggestion.

Every ``message`` event is acked, whatever its subtype: edits, deletions, joins and bot posts
are answered 200 and dropped here, so Slack neither retries them nor do they reach a flow.
"""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App, BoltContext

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.refine import replies as refine
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.ack import in_background
from suggestbot.ui.replies import thread_reply


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


def _replay_reply(deps: Deps, body: dict[str, Any], bot_user_id: str | None) -> None:
    reply = thread_reply(body["event"], bot_user_id=bot_user_id, team_id=body.get("team_id"))
    if reply is not None:
        refine.on_reply(deps, reply)
