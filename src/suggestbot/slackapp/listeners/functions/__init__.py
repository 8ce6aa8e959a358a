"""Workflow Builder steps (``function_executed``), one module per step."""

from __future__ import annotations

from slack_bolt import App

from suggestbot.flows.common.deps import Deps
from suggestbot.slackapp.listeners.functions import generate


def register(app: App, deps: Deps) -> None:
    generate.register(app, deps)
