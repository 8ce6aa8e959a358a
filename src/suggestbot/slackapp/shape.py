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
_COMMAND_FIELDS = ("command", "team_id", "user_id", "channel_id", "trigger_id")
# Interactive payloads that always carry a trigger (a listener may open a modal with it).
_TRIGGERED = {"block_actions", "message_action", "shortcut", "view_submission"}

# Wherever they appear in the objects walked (see ``_walk``), these fields are read as:
# ids and other words (a string, or absent/null);
_WORDS = {
    "id", "team_id", "user_id", "channel_id", "enterprise_id", "thread_ts", "ts", "message_ts",
    "trigger_id", "response_url", "callback_id", "action_id", "block_id", "type", "event_id",
    "api_app_id", "user_team", "function_execution_id", "bot_access_token", "private_metadata",
    "hash", "external_id", "subtype", "bot_id", "channel_type", "tab", "event_ts", "value",
    "app_installed_team_id", "root_view_id", "previous_view_id", "selected_date",
    "selected_time", "client_msg_id", "parent_user_id", "command", "challenge",
}  # fmt: skip
# a person, workspace or channel: an id, or an object with an ``id``;
_REFERENCES = {"user", "team", "channel", "enterprise"}
# objects;
_OBJECTS = {
    "event", "message", "previous_message", "item", "assistant_thread", "container", "view",
    "state", "function", "inputs", "bot_profile", "selected_option", "values",
}  # fmt: skip
# lists of objects.
_LISTS = {"authorizations", "actions", "selected_options", "files", "response_urls"}
# Lists of anything (Block Kit is read where it is drawn, not here).
_ANY_LISTS = {"blocks", "attachments"}
# What people typed or posted: its text is checked by the flows that read it.
_TYPED = {"text", "blocks", "attachments", "files"}
# Fields Bolt reads as present-means-usable: null is as wrong as a wrong type.
_NEVER_NULL = {"view", "event", "response_urls", "actions"}
# Objects walked into (their fields checked as above); Block Kit and inputs are not.
_WALKED = _REFERENCES | (_OBJECTS - {"inputs", "values"}) | {"authorizations", "actions"}
_WALKED |= {"response_urls"}


class Misshapen(NamedTuple):
    """A delivery refused before Bolt: the status to answer and the field that was wrong."""

    status: int
    kind: str
    field: str


def misshapen_answer(body: Mapping[str, Any]) -> BoltResponse | None:
    """The answer to a delivery whose shape Bolt cannot take (logged once, as a WARNING), or
    None for one it can."""
    try:
        found = misshapen(body)
    except RecursionError:  # nested deeper than any of Slack's deliveries
        found = Misshapen(400, "unknown", "nesting")
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
    if not isinstance(kind, str | None):
        return Misshapen(400, "unknown", "type")
    if kind is None and "command" in body:
        return _command(body)
    where = _not_text(body, "", skip="view.state" if kind == "view_submission" else None)
    if where is not None:
        # A lone surrogate ("\\ud800" in JSON) is no text: an id or a name holding one
        # cannot be stored or sent on. What a person typed is the flows' to word (a reply is
        # told its text is broken, a modal keeps its field error).
        return Misshapen(200, str(kind), where)
    if kind in _EVENTS:
        return _event(body, str(kind))
    if kind in _INTERACTIVE:
        return _interactive(body, str(kind))
    return Misshapen(400, "unknown", "type")


def _command(body: Mapping[str, Any]) -> Misshapen | None:
    for name in _COMMAND_FIELDS:
        if not _text(body.get(name)):
            return Misshapen(200, "command", name)
    for name in ("text", "response_url"):
        if not isinstance(body.get(name, ""), str):
            return Misshapen(200, "command", name)
    return None


def _event(body: Mapping[str, Any], kind: str) -> Misshapen | None:
    if kind == "url_verification":
        return None if _text(body.get("challenge")) else Misshapen(400, kind, "challenge")
    wrong = _walk(body, "")
    if wrong:
        return Misshapen(200, kind, wrong)
    if kind != "event_callback":
        return None
    event = body.get("event")
    if not isinstance(event, dict):
        return Misshapen(200, kind, "event")
    if not _text(event.get("type")):
        return Misshapen(200, kind, "event.type")
    if not isinstance(event.get("text", ""), str | None):
        return Misshapen(200, kind, "event.text")
    return None


def _interactive(body: Mapping[str, Any], kind: str) -> Misshapen | None:
    user = body.get("user")
    if not isinstance(user, dict) or not _text(user.get("id")):
        return Misshapen(200, kind, "user.id")
    if kind in _TRIGGERED and not _text(body.get("trigger_id")):
        return Misshapen(200, kind, "trigger_id")
    for name in _REFERENCES:  # objects in an interactive payload, never bare ids
        if not isinstance(body.get(name) or {}, dict):
            return Misshapen(200, kind, name)
    wrong = _walk(body, "")
    if wrong:
        return Misshapen(200, kind, wrong)
    if kind == "block_actions":
        actions = body.get("actions")
        if not isinstance(actions, list) or not actions:
            return Misshapen(200, kind, "actions")
        if not all(_text(action.get("action_id")) for action in actions):
            return Misshapen(200, kind, "actions.action_id")
    if kind in ("view_submission", "view_closed"):
        view = body.get("view")
        if not isinstance(view, dict) or not (
            _text(view.get("type")) and _text(view.get("callback_id"))
        ):
            return Misshapen(200, kind, "view")
    places = (("state", body.get("state")), ("view.state", (body.get("view") or {}).get("state")))
    for where, state in places:
        if not _state(state):
            return Misshapen(200, kind, f"{where}.values")
    return None


def _not_text(value: Any, where: str, *, skip: str | None) -> str | None:
    """The first path in ``value`` holding a string that is not text (see :func:`_encodable`),
    leaving out ``skip``."""
    if where.rstrip(".") == skip:
        return None
    if isinstance(value, str):
        return None if _encodable(value) else where.rstrip(".") or "body"
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else []
    )
    for key, inner in items:
        if isinstance(key, str) and not _encodable(key):
            return f"{where}(a key)"  # named, never quoted: the log has no values
        if key in _TYPED:
            continue
        found = _not_text(inner, f"{where}{key}.", skip=skip)
        if found is not None:
            return found
    return None


def _walk(value: Mapping[str, Any], where: str) -> str | None:
    """The first field (``a.b.c``) of ``value`` or the objects in it that is not of the type
    it is read as, or None."""
    for key, inner in value.items():
        path = f"{where}{key}"
        if inner is None:
            if key in _NEVER_NULL:
                return path
            continue
        if key in _WORDS and not isinstance(inner, str):
            return path
        if key in _REFERENCES and not isinstance(inner, str | dict):
            return path
        if key in _OBJECTS and not isinstance(inner, dict):
            return path
        if key in _LISTS and not (
            isinstance(inner, list) and all(isinstance(item, dict) for item in inner)
        ):
            return path
        if key in _ANY_LISTS and not isinstance(inner, list):
            return path
        if key not in _WALKED:
            continue
        for item in inner if isinstance(inner, list) else [inner]:
            if isinstance(item, dict):
                wrong = _walk(item, f"{path}.")
                if wrong:
                    return wrong
    return None


def _state(state: Any) -> bool:
    """Whether ``state.values`` reads as block id → action id → element state (all objects,
    options with a text and a value)."""
    if state is None:
        return True
    values = state.get("values") if isinstance(state, dict) else None
    if not isinstance(values, dict | None):
        return False
    for elements in (values or {}).values():
        if not isinstance(elements, dict):
            return False
        for element in elements.values():
            if not isinstance(element, dict) or _walk(element, ""):
                return False
            options = [element.get("selected_option"), *(element.get("selected_options") or [])]
            for option in options:
                if option is not None and not (
                    isinstance(option.get("value", ""), str)
                    and isinstance(option.get("text", {}), dict)
                ):
                    return False
    return True


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value) and _encodable(value)


def _encodable(value: str) -> bool:
    """Whether ``value`` is text at all: a lone surrogate (``"\\ud800"`` in JSON) is not, and
    cannot be stored or sent on."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
