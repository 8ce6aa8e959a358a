"""Buttons of a channel's digests: [Pause], [Resume], [Preview], [Remove]."""

from __future__ import annotations

from slack_bolt import App

from suggestbot.flows import digests
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.inspiration.showing import Asker
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.ack import on_button
from suggestbot.slackapp.listeners.askers import with_asker
from suggestbot.ui.blocks import ids


def register(app: App, deps: Deps) -> None:
    on_button(app, deps=deps, action=ids.ACTION_DIGEST_PREVIEW, work=with_asker(digests.preview))
    # These start work: recorded before the ack, carried out after a crash.
    for action, work in (
        (ids.ACTION_DIGEST_PAUSE, _pause),
        (ids.ACTION_DIGEST_RESUME, _resume),
        (ids.ACTION_DIGEST_REMOVE, digests.remove),
    ):
        on_button(app, deps=deps, action=action, work=with_asker(work))
        interactions.on_action(action, with_asker(work))


def _pause(deps: Deps, asker: Asker, digest_id: str) -> None:
    digests.set_paused(deps, asker, digest_id, paused=True)


def _resume(deps: Deps, asker: Asker, digest_id: str) -> None:
    digests.set_paused(deps, asker, digest_id, paused=False)
