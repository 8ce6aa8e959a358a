"""Buttons of ready-made content: pick a segment and use case, [Share], [Refine], [Generate]."""

from __future__ import annotations

import re

from slack_bolt import App

from suggestbot.flows.common import access
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.inspiration import sharing
from suggestbot.flows.inspiration import showing as inspiration
from suggestbot.flows.inspiration.showing import Asker
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.ack import on_button
from suggestbot.slackapp.listeners.askers import with_asker
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.inspiration import read_pick_value

PICK = re.compile(rf"^{re.escape(ids.ACTION_INSPIRE_PICK)}\.\d+$")


def register(app: App, deps: Deps) -> None:
    on_button(app, deps=deps, action=PICK, work=with_asker(_pick))
    # These start work: recorded before the ack, carried out after a crash. [Refine] replayed
    # without its trigger shares, and points to the thread instead of opening the modal.
    for action, work in (
        (ids.ACTION_INSPIRE_SHARE, _share),
        (ids.ACTION_INSPIRE_REFINE, _refine),
        (ids.ACTION_INSPIRE_GENERATE, _generate),
    ):
        on_button(app, deps=deps, action=action, work=with_asker(work))
        interactions.on_action(action, with_asker(work))


def _pick(deps: Deps, asker: Asker, value: str) -> None:
    inspiration.picked(deps, asker, read_pick_value(value))


def _own_offer(deps: Deps, asker: Asker, offer_id: str) -> bool:
    """An offer is shared or refined only by the person it was shown to."""
    person = access.Person(asker.team_id, asker.user_id, asker.channel_id)
    if access.offer(deps, person, offer_id) is not None:
        return True
    inspiration.tell_offer_gone(deps, asker)
    return False


def _share(deps: Deps, asker: Asker, value: str) -> None:
    offer_id, _, suggestion_id = value.partition(":")
    if not _own_offer(deps, asker, offer_id):
        return
    sharing.share_pressed(deps, asker, offer_id=offer_id, suggestion_id=suggestion_id)


def _refine(deps: Deps, asker: Asker, value: str) -> None:
    offer_id, _, suggestion_id = value.partition(":")
    if not _own_offer(deps, asker, offer_id):
        return
    sharing.refine_pressed(deps, asker, offer_id=offer_id, suggestion_id=suggestion_id)


def _generate(deps: Deps, asker: Asker, value: str) -> None:
    pair = inspiration.pair_of(deps, read_pick_value(value))
    if pair is None:
        inspiration.tell_offer_gone(deps, asker)
        return
    inspiration.generate_now(deps, asker, pair)
