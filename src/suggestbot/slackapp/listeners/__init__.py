"""Bolt listeners: ``<kind>/<feature>.py`` — kind is what Slack sends (``commands``,
``events``, ``actions`` for buttons, ``views`` for modal submissions, ``shortcuts`` for message
shortcuts, ``functions`` for Workflow Builder steps, ``middleware``), feature
is what it is about (``brief``, ``refining``, ``linking``, ``digests``…). Each ``__init__``
only registers. ``/suggest``'s subcommands are mapped in ``commands/suggest.py``.

Every listener acks first (within Slack's 3 seconds) and hands the rest over with ``ack``;
``interactions`` records what must survive a crash between the two.
"""

from __future__ import annotations

from typing import Any

from slack_bolt import App

from suggestbot.flows.common.deps import Deps
from suggestbot.installations.service import ContentClients
from suggestbot.slackapp.listeners import (
    actions,
    commands,
    events,
    functions,
    middleware,
    shortcuts,
    views,
)
from suggestbot.slackapp.listeners.actions import workspace as workspace_actions
from suggestbot.slackapp.listeners.events import revocation, uninstall
from suggestbot.slackapp.listeners.middleware import workspace as workspace_scope
from suggestbot.slackapp.listeners.views import workspace as workspace_views


def register_all(app: App, deps: Deps) -> None:
    """Every listener both install modes share (after the mode's own, see below)."""
    middleware.register(app, deps)
    commands.register(app, deps)
    views.register(app, deps)
    actions.register(app, deps)
    shortcuts.register(app, deps)
    events.register(app, deps)
    functions.register(app, deps)


def register_one_workspace(app: App, deps: Deps) -> None:
    """A single-workspace install (``SLACK_BOT_TOKEN``): uninstall and revoked tokens."""
    revocation.register(app, deps)


def register_many_workspaces(
    app: App, deps: Deps, *, installations: Any, contents: ContentClients
) -> None:
    """An OAuth install in many workspaces (``installations`` is the app's
    ``InstallationStore``): which workspace a request serves, uninstalls and revoked tokens,
    and the admins' service credentials."""
    workspace_scope.register(app)
    uninstall.register(app, deps, installations=installations, contents=contents)
    workspace_actions.register(app, deps)
    workspace_views.register(app, deps, contents=contents)
