"""``/suggest`` and ``/suggest help``: every subcommand in a few lines; any other first word
is named back with the help."""

from __future__ import annotations

from suggestbot.flows.common.deps import Deps
from suggestbot.slackapp.edge.answer import answer
from suggestbot.slackapp.edge.declaration import Command, CommandGiven, Input
from suggestbot.ui.blocks.notices import build_help, build_unknown_subcommand

COMMAND = "/suggest"


def _show(deps: Deps, given: CommandGiven) -> None:
    lang = deps.lang_of(given.user_id)
    answer(deps, given, build_help(lang=lang, content_locale=deps.content_locale))


def _unknown(deps: Deps, given: CommandGiven) -> None:
    lang = deps.lang_of(given.user_id)
    message = build_unknown_subcommand(lang=lang, sub=given.sub, content_locale=deps.content_locale)
    answer(deps, given, message)


INPUTS: list[Input] = [
    Input("help", Command(COMMAND, "help"), run=_show, read_only=True),
    # Last of the command's inputs in the table: it takes every word no other one takes.
    Input("unknown_subcommand", Command(COMMAND, None), run=_unknown, read_only=True),
]
