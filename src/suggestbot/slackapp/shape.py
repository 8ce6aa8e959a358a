"""The shape of a delivery, checked after its signature and before Bolt reads it.

Bolt and the listeners read a delivery's fields the way Slack sends them: ``user.id`` is a
string, ``actions`` a non-empty list, ``view.state.values`` a mapping of mappings, ``event``
an object. Slack keeps to that today, but a schema change or a proxy in between might not,
and then the failure would be a traceback deep in Bolt (a 500, ``dispatch_failed`` for the
person). Here each kind of delivery is checked for exactly what is read without a guard:

- a body that is not one of Slack's kinds at all is **400**;
- a delivery of a known kind with a field missing or of the wrong type is **200** (so Slack
  does not send it again), with nothing done; a slash command is answered in plain words,
  since the person who typed it waits for an answer.

Either way one WARNING line names the kind and the field, never a value.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any, NamedTuple

from slack_bolt import BoltResponse

from suggestbot.ui.messages import t

log = logging.getLogger(__name__)

# The kinds of interactive payloads Slack sends (``type``); each needs a person.
_INTERACTIVE = {
    "block_actions",
    "block_suggestion",
    "view_submission",
    "view_closed",
    "message_action",
    "shortcut",
    "interactive_message",
    "dialog_submission",
    "dialog_cancellation",
    "dialog_suggestion",
    "workflow_step_edit",
}
# Envelope types of the Events API.
_EVENTS = {"event_callback", "url_verification", "app_rate_limited"}
# The fields of a slash command every listener reads.
_COMMAND_FIELDS = ("command", "team_id", "user_id", "channel_id")
# Fields that, when present, are objects (a listener reads ``(body.get(x) or {}).get(...)``).
_OBJECTS = ("team", "channel", "container", "message", "view", "enterprise", "state")


class Misshapen(NamedTuple):
    """A delivery refused before Bolt: the status to answer and the field that was wrong."""

    status: int
    kind: str
    field: str


def misshapen_answer(body: Mapping[str, Any]) -> BoltResponse | None:
    """The answer to a delivery whose shape Bolt cannot take (logged once, as a WARNING), or
    None for one it can."""
    found = misshapen(body)
    if found is None:
        return None
    log.warning(
        "answered a %s delivery with HTTP %d before dispatch: %s is missing or of the wrong type",
        found.kind,
        found.status,
        found.field,
    )
    if found.kind != "command":
        return BoltResponse(status=found.status, body="")
    # Whoever typed it waits for an answer; who they are (their language) may be what is missing.
    answer = {"response_type": "ephemeral", "text": t("error.unreadable_command", "en")}
    return BoltResponse(
        status=200, body=json.dumps(answer), headers={"content-type": "application/json"}
    )


def misshapen(body: Mapping[str, Any]) -> Misshapen | None:
    """Why ``body`` (already parsed) cannot be handed to Bolt, or None when it can."""
    kind = body.get("type")
    if kind is None and "command" in body:
        return _command(body)
    if kind in _EVENTS:
        return _event(body, str(kind))
    if kind in _INTERACTIVE:
        return _interactive(body, str(kind))
    return Misshapen(400, "unknown", "type")


def _command(body: Mapping[str, Any]) -> Misshapen | None:
    for name in _COMMAND_FIELDS:
        if not _text(body.get(name)):
            return Misshapen(200, "command", name)
    for name in ("text", "trigger_id", "response_url"):
        if not isinstance(body.get(name, ""), str):
            return Misshapen(200, "command", name)
    return None


def _event(body: Mapping[str, Any], kind: str) -> Misshapen | None:
    if kind == "url_verification":
        return None if _text(body.get("challenge")) else Misshapen(400, kind, "challenge")
    if kind != "event_callback":
        return None
    event = body.get("event")
    if not isinstance(event, dict):
        return Misshapen(200, kind, "event")
    if not _text(event.get("type")):
        return Misshapen(200, kind, "event.type")
    for name in ("user", "channel", "text", "ts", "thread_ts", "subtype", "bot_id"):
        if not isinstance(event.get(name, ""), str | None):
            return Misshapen(200, kind, f"event.{name}")
    for name in ("message", "previous_message", "view", "inputs", "function"):
        if not isinstance(event.get(name, {}), dict | None):
            return Misshapen(200, kind, f"event.{name}")
    for name in ("blocks", "files", "attachments"):
        if not isinstance(event.get(name, []), list | None):
            return Misshapen(200, kind, f"event.{name}")
    for name in ("event_id", "team_id", "api_app_id"):
        if not isinstance(body.get(name, ""), str):
            return Misshapen(200, kind, name)
    return None


def _interactive(body: Mapping[str, Any], kind: str) -> Misshapen | None:
    user = body.get("user")
    if not isinstance(user, dict) or not _text(user.get("id")):
        return Misshapen(200, kind, "user.id")
    if not isinstance(user.get("team_id", ""), str | None):
        return Misshapen(200, kind, "user.team_id")
    for name in _OBJECTS:
        if not isinstance(body.get(name, {}), dict | None):
            return Misshapen(200, kind, name)
    for name in ("trigger_id", "response_url", "callback_id", "action_id", "value"):
        if not isinstance(body.get(name, ""), str | None):
            return Misshapen(200, kind, name)
    for name, mapping in (("team", body.get("team")), ("channel", body.get("channel"))):
        if isinstance(mapping, dict) and not isinstance(mapping.get("id", ""), str | None):
            return Misshapen(200, kind, f"{name}.id")
    if kind == "block_actions":
        problem = _actions(body.get("actions"))
        if problem:
            return Misshapen(200, kind, problem)
    if kind in ("view_submission", "view_closed") and not isinstance(body.get("view"), dict):
        return Misshapen(200, kind, "view")
    view = body.get("view")
    if isinstance(view, dict):
        problem = _view(view)
        if problem:
            return Misshapen(200, kind, f"view.{problem}")
    if kind in ("block_actions", "block_suggestion"):
        problem = _state(body.get("state"))
        if problem:
            return Misshapen(200, kind, problem)
    return None


def _actions(actions: Any) -> str | None:
    if not isinstance(actions, list) or not actions:
        return "actions"
    for action in actions:
        if not isinstance(action, dict) or not _text(action.get("action_id")):
            return "actions[].action_id"
        for name in ("block_id", "value", "type", "selected_date", "selected_time"):
            if not isinstance(action.get(name, ""), str | None):
                return f"actions[].{name}"
        selected = action.get("selected_option")
        if not isinstance(selected if selected is not None else {}, dict):
            return "actions[].selected_option"
        if isinstance(selected, dict) and not isinstance(selected.get("value", ""), str):
            return "actions[].selected_option.value"
        options = action.get("selected_options")
        if options is not None and not (
            isinstance(options, list) and all(isinstance(o, dict) for o in options)
        ):
            return "actions[].selected_options"
    return None


def _view(view: Mapping[str, Any]) -> str | None:
    for name in ("id", "type", "callback_id", "private_metadata", "hash", "external_id"):
        if not isinstance(view.get(name, ""), str | None):
            return name
    if not isinstance(view.get("blocks", []), list | None):
        return "blocks"
    return _state(view.get("state"))


def _state(state: Any) -> str | None:
    """``state.values``: block id → action id → element state, every level an object."""
    if state is None:
        return None
    if not isinstance(state, dict):
        return "state"
    values = state.get("values", {})
    if not isinstance(values, dict):
        return "state.values"
    for elements in values.values():
        if not isinstance(elements, dict):
            return "state.values"
        for element in elements.values():
            if not isinstance(element, dict):
                return "state.values"
            selected = element.get("selected_option")
            if selected is not None and not isinstance(selected, dict):
                return "state.values"
            if isinstance(selected, dict) and not (
                isinstance(selected.get("value", ""), str)
                and isinstance(selected.get("text", {}), dict)
            ):
                return "state.values"
            options = element.get("selected_options")
            if options is not None and not (
                isinstance(options, list) and all(isinstance(o, dict) for o in options)
            ):
                return "state.values"
    return None


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value)
