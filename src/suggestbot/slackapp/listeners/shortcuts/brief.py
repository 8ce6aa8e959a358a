""" "Turn into a brief" on any message: the brief modal, prefilled with the message's text and
keeping its permalink as the brief's context; from there it goes as any modal brief."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App

from suggestbot.flows.brief import modal as brief_modal
from suggestbot.flows.common.deps import Deps
from suggestbot.slackapp.listeners.ack import in_background
from suggestbot.ui.blocks import ids
from suggestbot.ui.payloads import shortcut_message


def register(app: App, deps: Deps) -> None:
    @app.shortcut(ids.SHORTCUT_BRIEF)
    def turn_into_brief(ack: Ack, body: dict[str, Any]) -> None:
        ack()
        source = shortcut_message(body)
        in_background(
            deps,
            _open,
            deps,
            body,
            user_id=source.user_id,
            channel_id=source.channel_id,
            response_url=body.get("response_url"),
        )


def _open(deps: Deps, body: dict[str, Any]) -> None:
    source = shortcut_message(body)
    brief_modal.open_from_message(
        deps,
        trigger_id=body["trigger_id"],
        team_id=source.team_id,
        user_id=source.user_id,
        channel_id=source.channel_id,
        message_ts=source.message_ts,
        text=source.text,
        response_url=body.get("response_url"),
    )
