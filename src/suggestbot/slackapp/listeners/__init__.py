"""Bolt listeners, one package per kind; each exposes ``register(app, deps)``.

Every listener acks first (within Slack's 3 seconds) and hands the rest to
:func:`~suggestbot.slackapp.listeners.background.in_background`.
"""

from __future__ import annotations

from slack_bolt import App

from suggestbot.slackapp.flows.deps import Deps
from suggestbot.slackapp.listeners import actions, commands, middleware, views


def register_all(app: App, deps: Deps) -> None:
    middleware.register(app, deps)
    commands.register(app, deps)
    views.register(app, deps)
    actions.register(app, deps)
