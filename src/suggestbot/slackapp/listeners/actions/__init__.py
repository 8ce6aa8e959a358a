"""Buttons (``block_actions``), one module per feature; each acks, then works (``ack``)."""

from __future__ import annotations

from slack_bolt import App

from suggestbot.flows.common.deps import Deps
from suggestbot.slackapp.listeners.actions import (
    brief,
    composer,
    digests,
    feedback,
    home,
    inspiration,
    language,
    linking,
    lists,
    refining,
)


def register(app: App, deps: Deps) -> None:
    for feature in (
        linking,
        brief,
        composer,
        refining,
        lists,
        home,
        language,
        inspiration,
        digests,
        feedback,
    ):
        feature.register(app, deps)
