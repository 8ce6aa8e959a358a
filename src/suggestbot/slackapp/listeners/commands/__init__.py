"""Slash commands: the one command, ``/suggest``; which subcommand goes where is the table in
:mod:`~suggestbot.slackapp.listeners.commands.suggest`, one module per feature beside it."""

from __future__ import annotations

from slack_bolt import App

from suggestbot.flows.common.deps import Deps
from suggestbot.slackapp.listeners.commands import suggest


def register(app: App, deps: Deps) -> None:
    suggest.register(app, deps)
