"""``/suggest`` and ``/suggest help``: every subcommand in a few lines."""

from __future__ import annotations

from typing import Any

from suggestbot.flows.common.deps import Deps
from suggestbot.slackapp.listeners.askers import answer_command
from suggestbot.ui.blocks.notices import build_help, build_unknown_subcommand


def show(deps: Deps, body: dict[str, Any], rest: str) -> None:
    lang = deps.lang_of(body["user_id"])
    answer_command(deps, body, build_help(lang=lang, content_locale=deps.content_locale))


def unknown(deps: Deps, body: dict[str, Any], sub: str) -> None:
    """A first word that is no subcommand: say so, with the help."""
    lang = deps.lang_of(body["user_id"])
    message = build_unknown_subcommand(lang=lang, sub=sub, content_locale=deps.content_locale)
    answer_command(deps, body, message)
