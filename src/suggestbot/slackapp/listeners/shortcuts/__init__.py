"""Message shortcuts (``message_action``), one module per feature; each acks, then works."""

from __future__ import annotations

from slack_bolt import App

from suggestbot.flows.common.deps import Deps
from suggestbot.slackapp.listeners.shortcuts import brief


def register(app: App, deps: Deps) -> None:
    brief.register(app, deps)
