"""Every input an app takes, found by delivery: the one table that Bolt's listeners, the record
before the ack and the replay after a crash all read (nothing is registered twice, or by hand)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from suggestbot.slackapp.edge.declaration import (
    Action,
    Command,
    Event,
    Function,
    Input,
    Shortcut,
    View,
)
from suggestbot.ui.payloads import parse_command, pressed_action_id


class Inputs:
    """The declared inputs of one app, in order (an event's narrower declarations first)."""

    def __init__(self, declared: Iterable[Input[Any]]) -> None:
        self._all = list(declared)
        names = [i.name for i in self._all]
        twice = {n for n in names if names.count(n) > 1}
        if twice:
            raise ValueError(f"inputs declared twice: {sorted(twice)}")
        self._by_name = {i.name: i for i in self._all}

    def __iter__(self) -> Iterator[Input[Any]]:
        return iter(self._all)

    def named(self, name: str) -> Input[Any] | None:
        return self._by_name.get(name)

    def find(self, body: dict[str, Any], *, bot_user_id: str | None) -> Input[Any] | None:
        """The input that takes ``body``, or None (then it is only acked)."""
        kind = body.get("type")
        if kind is None and isinstance(body.get("command"), str):
            return self._command(str(body["command"]), body.get("text"))
        if kind == "block_actions":
            action_id = pressed_action_id(body)
            return self._first(lambda m: isinstance(m, Action) and m.takes(action_id))
        if kind == "view_submission":
            callback_id = (body.get("view") or {}).get("callback_id")
            return self._first(lambda m: isinstance(m, View) and m.callback_id == callback_id)
        if kind == "message_action":
            callback_id = body.get("callback_id")
            return self._first(lambda m: isinstance(m, Shortcut) and m.callback_id == callback_id)
        if kind == "event_callback":
            return self._event(body, bot_user_id)
        return None

    def _first(self, takes: Any) -> Input[Any] | None:
        return next((i for i in self._all if takes(i.matches)), None)

    def _command(self, command: str, text: Any) -> Input[Any] | None:
        sub, _ = parse_command(text)
        mine = [i for i in self._all if isinstance(i.matches, Command)]
        mine = [i for i in mine if i.matches.command == command]  # type: ignore[union-attr]
        exact = next((i for i in mine if i.matches.sub == sub), None)  # type: ignore[union-attr]
        if exact is not None:
            return exact
        return next((i for i in mine if i.matches.sub is None), None)  # type: ignore[union-attr]

    def _event(self, body: dict[str, Any], bot_user_id: str | None) -> Input[Any] | None:
        event = body.get("event") or {}
        event_type = event.get("type")
        if event_type == "function_executed":
            callback_id = (event.get("function") or {}).get("callback_id")
            return self._first(lambda m: isinstance(m, Function) and m.callback_id == callback_id)
        team_id = body.get("team_id")
        for declared in self._all:
            m = declared.matches
            if not isinstance(m, Event) or m.event_type != event_type:
                continue
            if m.where is None or m.where(event, bot_user_id, team_id):
                return declared
        return None
