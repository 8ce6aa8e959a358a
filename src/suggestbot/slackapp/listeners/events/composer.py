"""The app's Messages tab as a composer: ``app_home_opened`` on the ``messages`` tab sets the
suggested prompts; a person's top-level ``message.im`` there is a brief.

Registered before the thread replies and the Home tab: Bolt runs the first listener whose
matchers accept an event, and these accept only the Messages tab's own events.
"""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App, BoltContext

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.composer import tab as composer
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.ack import in_background
from suggestbot.ui.replies import composer_message


def _in_messages_tab(event: dict[str, Any]) -> bool:
    return event.get("tab") == "messages" and bool(event.get("user") and event.get("channel"))


def _is_brief(body: dict[str, Any], event: dict[str, Any], context: BoltContext) -> bool:
    brief = composer_message(event, bot_user_id=context.bot_user_id, team_id=body.get("team_id"))
    return brief is not None


def register(app: App, deps: Deps) -> None:
    # A brief is recorded before this ack (middleware) and carried out again after a crash.
    interactions.on_composer_message(_replay_brief)

    @app.event("app_home_opened", matchers=[_in_messages_tab])
    def messages_tab_opened(ack: Ack, event: dict[str, Any]) -> None:
        ack()
        user_id = str(event["user"])
        in_background(
            deps,
            _offer_prompts,
            deps,
            user_id,
            str(event["channel"]),
            user_id=user_id,
            channel_id=None,
        )

    @app.event("message", matchers=[_is_brief])
    def brief_written(
        ack: Ack, body: dict[str, Any], event: dict[str, Any], context: BoltContext
    ) -> None:
        ack()
        brief = composer_message(
            event, bot_user_id=context.bot_user_id, team_id=body.get("team_id")
        )
        if brief is None:
            return
        in_background(
            deps,
            composer.on_message,
            deps,
            brief,
            user_id=brief.user_id,
            channel_id=brief.channel,
        )


def _offer_prompts(deps: Deps, user_id: str, channel_id: str) -> None:
    composer.offer_prompts(deps, user_id=user_id, channel_id=channel_id)


def _replay_brief(deps: Deps, body: dict[str, Any], bot_user_id: str | None) -> None:
    brief = composer_message(body["event"], bot_user_id=bot_user_id, team_id=body.get("team_id"))
    if brief is not None:
        composer.on_message(deps, brief)
