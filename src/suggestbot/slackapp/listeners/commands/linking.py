"""``/suggest connect``, ``/suggest disconnect`` and ``/suggest status``: a person's link to
their own account of the service."""

from __future__ import annotations

from typing import Any

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.home import tab as home
from suggestbot.flows.linking import accounts as linking
from suggestbot.slackapp.listeners.askers import answer_command
from suggestbot.ui.blocks.notices import (
    build_connect_first,
    build_disconnected,
    build_link_status,
)
from suggestbot.ui.payloads import parse_command


def connect(deps: Deps, body: dict[str, Any], rest: str) -> None:
    linking.open_connect_modal(
        deps,
        trigger_id=body["trigger_id"],
        user_id=body["user_id"],
        channel_id=body.get("channel_id"),
        response_url=body.get("response_url"),
    )


def unlink_before_ack(deps: Deps, body: dict[str, Any]) -> bool | None:
    """``/suggest disconnect`` takes effect before its ack: whether a link was removed, or None
    for any other command (answered after the ack by :func:`answer_disconnect`).

    Commands are carried out side by side after their acks (and on any replica), so a
    ``/suggest status`` sent right after a disconnect could still read the link if the unlink
    waited for the background: once Slack has the ack, the link is gone.
    """
    sub, _ = parse_command(body.get("text"))
    if sub != "disconnect" or not (body.get("team_id") and body.get("user_id")):
        return None
    return linking.unlink(deps, team_id=body["team_id"], user_id=body["user_id"])


def disconnect(deps: Deps, body: dict[str, Any], rest: str) -> None:
    """Unlink and answer (the path for a disconnect not already unlinked before its ack)."""
    removed = linking.unlink(deps, team_id=body["team_id"], user_id=body["user_id"])
    answer_disconnect(deps, body, removed=removed)


def answer_disconnect(deps: Deps, body: dict[str, Any], *, removed: bool) -> None:
    lang = deps.lang_of(body["user_id"])
    answer_command(deps, body, build_disconnected(lang=lang, removed=removed))
    if removed:
        home.refresh(deps, team_id=body["team_id"], user_id=body["user_id"])


def status(deps: Deps, body: dict[str, Any], rest: str) -> None:
    lang = deps.lang_of(body["user_id"])
    link = linking.link_of(deps, team_id=body["team_id"], user_id=body["user_id"])
    try:
        deps.catalog()
        service_up = True
    except Exception:
        service_up = False
    message = build_link_status(lang=lang, link=link, embedded=deps.embedded, service_up=service_up)
    answer_command(deps, body, message)


def connect_first(deps: Deps, body: dict[str, Any]) -> bool:
    """For a subcommand that needs a linked account: tell an unlinked person to connect (with
    the button); True when they must."""
    if linking.is_linked(deps, team_id=body["team_id"], user_id=body["user_id"]):
        return False
    answer_command(deps, body, build_connect_first(lang=deps.lang_of(body["user_id"])))
    return True
