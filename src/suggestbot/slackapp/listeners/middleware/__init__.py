"""Global middleware, run on every delivery before any listener (so before any ack): text that
is not text is refused, and each delivery is processed once (``workspace``, for an install
in many workspaces, is registered with the rest of that mode's listeners)."""

from __future__ import annotations

from slack_bolt import App

from suggestbot.flows.common.deps import Deps
from suggestbot.slackapp.listeners.middleware import once, text_guard


def register(app: App, deps: Deps) -> None:
    # Before anything stores a submission: text that is not text cannot even be stored.
    text_guard.register(app, deps)
    once.register(app, deps)
