"""``/suggest inspire [segment] [use case] [--version N] [--refresh]``: ready-made content."""

from __future__ import annotations

from typing import Any

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.inspiration import showing as inspiration
from suggestbot.slackapp.listeners import askers


def inspire(deps: Deps, body: dict[str, Any], rest: str) -> None:
    inspiration.command(deps, askers.from_command(body), rest)
