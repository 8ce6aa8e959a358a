"""What an input is: which deliveries it takes, what it reads from them, what it does.

Each feature's module in :mod:`suggestbot.slackapp.inputs` declares its inputs as a list of
:class:`Input`: a matcher (:class:`Command`, :class:`Action`, :class:`View`, :class:`Event`,
:class:`Shortcut`, :class:`Function`), an optional pure ``check`` that refuses bad input in
plain words in the ack (:class:`Refusal`), and ``run(deps, given)``. The matcher turns the
delivery into a typed value (:class:`Given` and its kinds); that value, sealed, is what is
recorded with the delivery's claim before the ack, and what ``run`` takes again after a crash
(then without its ``trigger_id``, which has expired).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

from suggestbot.flows.common.deps import Deps
from suggestbot.ui.blocks.results import Message
from suggestbot.ui.payloads import (
    acting_user,
    action_value,
    button_place,
    load_metadata,
    parse_command,
    pressed_action_id,
    shortcut_message,
    view_values,
    workspace_of,
)


class Given(BaseModel):
    """Who sent a delivery, where to answer them, and the delivery itself (without its
    ``trigger_id``, kept apart: it is a credential valid for 3 seconds)."""

    model_config = ConfigDict(frozen=True)

    team_id: str
    user_id: str
    channel_id: str | None = None
    response_url: str | None = None
    # None when the input is carried out after a restart: no modal can be opened then.
    trigger_id: str | None = None
    body: dict[str, Any] = {}


class CommandGiven(Given):
    """``/suggest <sub> <text>``: ``text`` is what follows the subcommand."""

    channel_id: str
    sub: str
    text: str


class Press(Given):
    """A button press or a menu pick (``block_actions``)."""

    action_id: str
    value: str


class Submission(Given):
    """A modal's submission: its typed values by block id and its private metadata."""

    callback_id: str
    values: dict[str, Any]
    metadata: dict[str, Any]


class Happening(Given):
    """An Events API event (or a Workflow Builder step's ``function_executed``)."""

    event: dict[str, Any]
    enterprise_id: str | None = None
    bot_user_id: str | None = None


G = TypeVar("G", bound=Given)


def _without_trigger(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != "trigger_id"}


@dataclass(frozen=True)
class Command:
    """``command`` with the first word ``sub``; ``sub=None`` takes any word no other
    declaration of the command takes (its help for unknown words)."""

    command: str
    sub: str | None

    def given(self, body: dict[str, Any], bot_user_id: str | None) -> CommandGiven:
        sub, rest = parse_command(body.get("text"))
        return CommandGiven(
            team_id=str(body.get("team_id") or ""),
            user_id=str(body.get("user_id") or ""),
            channel_id=str(body.get("channel_id") or ""),
            response_url=body.get("response_url"),
            trigger_id=body.get("trigger_id"),
            sub=sub,
            text=rest,
        )


@dataclass(frozen=True)
class Action:
    """A button or menu by its ``action_id`` (or a pattern of numbered ones)."""

    action: str | re.Pattern[str]

    @property
    def name(self) -> str:
        return self.action if isinstance(self.action, str) else self.action.pattern

    def takes(self, action_id: str) -> bool:
        if isinstance(self.action, str):
            return action_id == self.action
        return self.action.fullmatch(action_id) is not None

    def given(self, body: dict[str, Any], bot_user_id: str | None) -> Press:
        team_id, user_id = acting_user(body)
        return Press(
            team_id=team_id,
            user_id=user_id,
            channel_id=button_place(body).channel,
            response_url=body.get("response_url"),
            trigger_id=body.get("trigger_id"),
            body=_without_trigger(body),
            action_id=pressed_action_id(body),
            value=action_value(body),
        )


@dataclass(frozen=True)
class View:
    """A modal's submission by its ``callback_id``."""

    callback_id: str

    def given(self, body: dict[str, Any], bot_user_id: str | None) -> Submission:
        team_id, user_id = acting_user(body)
        view = body.get("view") or {}
        metadata = load_metadata(view.get("private_metadata"))
        return Submission(
            team_id=team_id,
            user_id=user_id,
            channel_id=metadata.get("channel"),
            response_url=metadata.get("response_url"),
            trigger_id=body.get("trigger_id"),
            body=_without_trigger(body),
            callback_id=self.callback_id,
            values=view_values(view),
            metadata=metadata,
        )


@dataclass(frozen=True)
class Event:
    """An event of ``event_type`` for which ``where(event, bot_user_id, team_id)`` holds (all of
    them without ``where``). Bolt runs the first listener that takes an event, so a narrower
    declaration comes before a wider one of the same type."""

    event_type: str
    where: Callable[[dict[str, Any], str | None, str | None], bool] | None = None

    def given(self, body: dict[str, Any], bot_user_id: str | None) -> Happening:
        event = body.get("event") or {}
        return Happening(
            team_id=str(body.get("team_id") or workspace_of(body) or ""),
            user_id=str(event.get("user") or ""),
            channel_id=event.get("channel"),
            body=_without_trigger(body),
            event=event,
            enterprise_id=body.get("enterprise_id"),
            bot_user_id=bot_user_id,
        )


@dataclass(frozen=True)
class Shortcut:
    """A message shortcut (``message_action``) by its ``callback_id``."""

    callback_id: str

    def given(self, body: dict[str, Any], bot_user_id: str | None) -> Press:
        source = shortcut_message(body)
        return Press(
            team_id=source.team_id,
            user_id=source.user_id,
            channel_id=source.channel_id,
            response_url=body.get("response_url"),
            trigger_id=body.get("trigger_id"),
            body=_without_trigger(body),
            action_id=self.callback_id,
            value="",
        )


@dataclass(frozen=True)
class Function:
    """A Workflow Builder step (``function_executed``) by its ``callback_id``."""

    callback_id: str

    def given(self, body: dict[str, Any], bot_user_id: str | None) -> Happening:
        event = body.get("event") or {}
        return Happening(
            team_id=str(body.get("team_id") or workspace_of(body) or ""),
            user_id=str((event.get("inputs") or {}).get("user") or ""),
            body=_without_trigger(body),
            event=event,
            bot_user_id=bot_user_id,
        )


Matcher = Command | Action | View | Event | Shortcut | Function


@dataclass(frozen=True)
class Refusal:
    """Bad input, answered in the ack in the person's language: ``errors(lang)`` next to a
    modal's fields (the modal stays open with what was typed), or ``message(lang)`` for a
    command. Nothing is recorded and nothing starts."""

    errors: Callable[[str], dict[str, str]] | None = None
    message: Callable[[str], Message] | None = None


# ``before_ack`` handed the work after the ack over itself (it recorded it in its own write).
REPEATED = "repeated"


@dataclass(frozen=True)
class Input(Generic[G]):
    """One input, declared once.

    Args:
        name: unique, stable (it names the recorded input after a crash).
        matches: which deliveries it takes; it also turns each into its typed value.
        run: the work, after the ack, and again after a crash with the same recorded value.
        check: pure; a :class:`Refusal` for input that cannot be taken.
        read_only: changes nothing (help, lists, status): not recorded before the ack
            (``tests/slackapp/test_inputs.py`` lists these).
        opens_modal: ``run`` opens a modal with the trigger: after a crash the person is
            asked in words to press (or send) again instead.
        before_ack: what must have happened by the ack, after the record (a disconnect has
            taken effect; a token is checked within the ack's budget). It may refuse; it may
            return the work to run after the ack instead of ``run``; with ``records_itself`` it
            may return :data:`REPEATED` (a delivery it recorded before).
        records_itself: ``before_ack`` writes the input's record in its own one write (a
            quick brief is recorded as the request itself); when it returns None, the delivery
            is recorded as any other.
    """

    name: str
    matches: Matcher
    run: Callable[[Deps, G], None]
    check: Callable[[G], Refusal | None] | None = None
    read_only: bool = False
    opens_modal: bool = False
    before_ack: Callable[[Deps, G], Refusal | Callable[[], None] | str | None] | None = None
    records_itself: bool = False

    def parse(self, body: dict[str, Any], bot_user_id: str | None) -> G | Refusal:
        """The delivery as this input's typed value, or the refusal of its check."""
        given: Any = self.matches.given(body, bot_user_id)
        if self.check is not None:
            refused = self.check(given)
            if refused is not None:
                return refused
        return given

    def given_type(self) -> type[Given]:
        """The type of this input's value (to read it back after a crash)."""
        return _GIVEN[type(self.matches)]


_GIVEN: dict[type, type[Given]] = {
    Command: CommandGiven,
    Action: Press,
    View: Submission,
    Event: Happening,
    Shortcut: Press,
    Function: Happening,
}
