"""Modal submissions (``view_submission``), one module per feature: each answers field errors
at once (the modal stays open), else acks and works (``ack``)."""

from __future__ import annotations

from slack_bolt import App

from suggestbot.flows.common.deps import Deps
from suggestbot.slackapp.listeners.views import (
    brief,
    digests,
    drafts,
    feedback,
    linking,
    refining,
)


def register(app: App, deps: Deps) -> None:
    for feature in (linking, brief, refining, drafts, digests, feedback):
        feature.register(app, deps)
