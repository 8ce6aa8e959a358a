"""``/suggest draft``, ``/suggest threads`` and ``/suggest runs`` (routed from the package)."""

from __future__ import annotations

from typing import Any

from suggestbot.flows import drafts, linking, lists, slackio
from suggestbot.flows.deps import Deps
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.notices import build_notice
from suggestbot.ui.blocks.results import Button
from suggestbot.ui.messages import t


def _connect_first(deps: Deps, body: dict[str, Any]) -> bool:
    """Tell an unlinked user to connect (with the button); True when they must."""
    if linking.is_linked(deps, team_id=body["team_id"], user_id=body["user_id"]):
        return False
    lang = deps.lang_of(body["user_id"])
    slackio.notify(
        deps,
        user_id=body["user_id"],
        channel_id=body["channel_id"],
        message=build_notice(
            lang=lang,
            text=t("lists.connect", lang),
            buttons=[Button("connect.button", ids.ACTION_CONNECT, "command", "primary")],
        ),
        response_url=body.get("response_url"),
    )
    return True


def draft(deps: Deps, body: dict[str, Any], rest: str) -> None:
    if _connect_first(deps, body):
        return
    drafts.open_modal(
        deps,
        trigger_id=body["trigger_id"],
        team_id=body["team_id"],
        user_id=body["user_id"],
        channel_id=body["channel_id"],
    )


def _list(deps: Deps, body: dict[str, Any], kind: str) -> None:
    if _connect_first(deps, body):
        return
    lists.show(
        deps,
        kind=kind,
        team_id=body["team_id"],
        user_id=body["user_id"],
        channel_id=body["channel_id"],
        response_url=body.get("response_url"),
    )


def threads(deps: Deps, body: dict[str, Any], rest: str) -> None:
    _list(deps, body, lists.THREADS)


def runs(deps: Deps, body: dict[str, Any], rest: str) -> None:
    _list(deps, body, lists.RUNS)
