"""``/suggest threads`` and ``/suggest runs``: the person's recent threads and runs, paged."""

from __future__ import annotations

from typing import Any

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.lists import listing as lists
from suggestbot.slackapp.listeners.commands.linking import connect_first


def threads(deps: Deps, body: dict[str, Any], rest: str) -> None:
    _show(deps, body, lists.THREADS)


def runs(deps: Deps, body: dict[str, Any], rest: str) -> None:
    _show(deps, body, lists.RUNS)


def _show(deps: Deps, body: dict[str, Any], kind: str) -> None:
    if connect_first(deps, body):
        return
    lists.show(
        deps,
        kind=kind,
        team_id=body["team_id"],
        user_id=body["user_id"],
        channel_id=body["channel_id"],
        response_url=body.get("response_url"),
    )
