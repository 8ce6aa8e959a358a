"""Who asked and how to answer only them, from a ``/suggest`` command or a button press.

Answers are ephemeral: through the ``response_url`` where there is one (it reaches a channel
the app is not a member of), else ``chat.postEphemeral``, else a direct message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from suggestbot.flows.common import access, telling
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.inspiration.showing import Asker
from suggestbot.ui.blocks.results import Message
from suggestbot.ui.payloads import acting_user, action_value, button_place


def from_command(body: dict[str, Any]) -> Asker:
    """The person who typed the command, answered in the channel they typed it in."""
    return Asker(
        team_id=body["team_id"],
        user_id=body["user_id"],
        channel_id=body["channel_id"],
        response_url=body.get("response_url"),
    )


def from_press(body: dict[str, Any]) -> Asker:
    """The person who pressed the button, answered where the button is (else in a DM)."""
    team_id, user_id = acting_user(body)
    return Asker(
        team_id=team_id,
        user_id=user_id,
        channel_id=button_place(body).channel or user_id,
        response_url=body.get("response_url"),
        trigger_id=body.get("trigger_id"),
    )


def person_pressing(body: dict[str, Any]) -> access.Person:
    """Who pressed a button, and the channel Slack delivered the press from."""
    team_id, user_id = acting_user(body)
    return access.Person(team_id, user_id, button_place(body).channel or "")


def person_submitting(body: dict[str, Any]) -> access.Person:
    """Who submitted a modal (a modal is in no channel: any channel is asked of Slack)."""
    team_id, user_id = acting_user(body)
    return access.Person(team_id, user_id)


def answer_command(deps: Deps, body: dict[str, Any], message: Message) -> None:
    """Tell the person who typed the command, where they typed it."""
    telling.tell(
        deps,
        user_id=body["user_id"],
        channel_id=body["channel_id"],
        message=message,
        response_url=body.get("response_url"),
    )


def answer_press(deps: Deps, body: dict[str, Any], message: Message) -> None:
    """Tell the person who pressed the button, where the button is (else in a DM)."""
    user_id = body["user"]["id"]
    telling.tell(
        deps,
        user_id=user_id,
        channel_id=button_place(body).channel or user_id,
        message=message,
        response_url=body.get("response_url"),
    )


def with_asker(work: Callable[[Deps, Asker, str], None]) -> Callable[[Deps, dict[str, Any]], None]:
    """A button's work as ``work(deps, asker, value)``: who pressed it, and its value."""

    def run(deps: Deps, body: dict[str, Any]) -> None:
        work(deps, from_press(body), action_value(body))

    return run
