"""Bolt listeners, one package per kind; each exposes ``register(app, deps)``.

Every listener acks first (within Slack's 3 seconds) and hands the rest to
:func:`~suggestbot.slackapp.listeners.background.in_background`.
"""

from __future__ import annotations

from slack_bolt import App

from suggestbot.flows.deps import Deps
from suggestbot.slackapp.listeners import (
    actions,
    commands,
    events,
    middleware,
    refining,
    text_guard,
    views,
)
from suggestbot.slackapp.listeners.actions import inspiration as inspiration_actions
from suggestbot.slackapp.listeners.views import digest as digest_views


def register_all(app: App, deps: Deps) -> None:
    # Before anything stores a submission: text that is not text cannot even be stored.
    text_guard.register(app, deps)
    middleware.register(app, deps)
    commands.register(app, deps)
    views.register(app, deps)
    actions.register(app, deps)
    # ready-made content and digests
    inspiration_actions.register(app, deps)
    digest_views.register(app, deps)
    # refining in threads, drafts, lists, App Home
    events.register(app, deps)
    refining.register(app, deps)
