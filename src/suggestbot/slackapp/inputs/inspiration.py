"""Ready-made content: ``/suggest inspire [segment] [use case] [--version N] [--refresh]``, and
its buttons: pick a segment and use case, [Share], [Refine], [Generate]. [Refine] carried out
after a restart (without its trigger) shares, and points to the thread instead of opening the
modal."""

from __future__ import annotations

import re

from suggestbot.flows.common import access
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.inspiration import sharing
from suggestbot.flows.inspiration import showing as inspiration
from suggestbot.flows.inspiration.showing import Asker
from suggestbot.slackapp.edge.answer import asker, with_asker
from suggestbot.slackapp.edge.declaration import Action, Command, CommandGiven, Input
from suggestbot.slackapp.inputs.help import COMMAND
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.inspiration import read_pick_value

PICK = re.compile(rf"^{re.escape(ids.ACTION_INSPIRE_PICK)}\.\d+$")


def _inspire(deps: Deps, given: CommandGiven) -> None:
    inspiration.command(deps, asker(given), given.text)


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


INPUTS: list[Input] = [
    Input("inspire", Command(COMMAND, "inspire"), run=_inspire),
    Input("inspire_pick", Action(PICK), run=with_asker(_pick)),
    Input("inspire_share", Action(ids.ACTION_INSPIRE_SHARE), run=with_asker(_share)),
    Input("inspire_refine", Action(ids.ACTION_INSPIRE_REFINE), run=with_asker(_refine)),
    Input("inspire_generate", Action(ids.ACTION_INSPIRE_GENERATE), run=with_asker(_generate)),
]
