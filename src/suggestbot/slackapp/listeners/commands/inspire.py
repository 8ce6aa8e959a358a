"""``/suggest inspire [segment] [use case] [--version N] [--refresh]``."""

from __future__ import annotations

from typing import Any

from suggestbot.flows import inspiration
from suggestbot.flows.deps import Deps
from suggestbot.flows.inspiration import Asker


def asker_of(body: dict[str, Any]) -> Asker:
    return Asker(
        team_id=body["team_id"],
        user_id=body["user_id"],
        channel_id=body["channel_id"],
        response_url=body.get("response_url"),
    )


def handle(deps: Deps, body: dict[str, Any], rest: str) -> None:
    inspiration.command(deps, asker_of(body), rest)
