"""Named pure predicates and extractors for the shapes Slack sends us."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.digests import QUIET
from suggestbot.ui.blocks.text import mend
from suggestbot.ui.replies import unescape_slack


def parse_command(text: str | None) -> tuple[str, str]:
    """``"brief  Spring launch"`` → ``("brief", "Spring launch")``; empty → ``("help", "")``.

    Only the first word is the subcommand; the rest keeps the user's own spacing and line
    breaks (it may be a brief).
    """
    stripped = (text or "").lstrip()
    if not stripped:
        return "help", ""
    head, _, rest = stripped.partition(" ")
    first_line, newline, after = head.partition("\n")
    if newline:
        head, rest = first_line, after + (" " + rest if rest else "")
    return head.lower(), rest.strip()


def delivery_key(body: dict[str, Any]) -> str | None:
    """What makes a Slack delivery unique, so a retried or doubled one is processed once.

    Events carry ``event_id``; slash commands and interactions carry a ``trigger_id`` that Slack
    mints per user action. ``view_closed`` has neither and is harmless to repeat.
    """
    if body.get("type") == "event_callback" and body.get("event_id"):
        return f"event:{body['event_id']}"
    trigger_id = body.get("trigger_id")
    if trigger_id:
        kind = body.get("type") or "command"
        return f"{kind}:{trigger_id}"
    return None


def view_values(view: dict[str, Any]) -> dict[str, Any]:
    """Input values of a submitted view by block id: text, selected option value, or list."""
    values: dict[str, Any] = {}
    for block_id, actions in ((view.get("state") or {}).get("values") or {}).items():
        for action in actions.values():
            kind = action.get("type")
            if kind == "plain_text_input":
                values[block_id] = action.get("value") or ""
            elif kind in ("static_select", "external_select", "radio_buttons"):
                selected = action.get("selected_option")
                values[block_id] = selected.get("value") if selected else None
            elif kind == "checkboxes":
                values[block_id] = [
                    str(o.get("value") or "") for o in action.get("selected_options") or []
                ]
            elif kind == "number_input":
                values[block_id] = action.get("value")
            else:
                values[block_id] = action.get("value")
    return values


def selected_label(view: dict[str, Any], block_id: str) -> str | None:
    """The visible text of the option selected in ``block_id`` (a segment's name, say)."""
    for action in ((view.get("state") or {}).get("values") or {}).get(block_id, {}).values():
        selected = action.get("selected_option")
        if selected:
            return str((selected.get("text") or {}).get("text") or "") or None
    return None


def load_metadata(raw: str | None) -> dict[str, Any]:
    if not raw:
        return {}
    try:
        loaded = json.loads(raw)
    except ValueError:
        return {}
    return loaded if isinstance(loaded, dict) else {}


def dump_metadata(data: dict[str, Any]) -> str:
    return json.dumps(data, separators=(",", ":"))


# -- interactions (block_actions, view_submission) ----------------------------------------------


class ButtonPlace(NamedTuple):
    """Where a pressed button sits: its channel, its thread's root and its own message."""

    channel: str | None
    thread_ts: str | None
    message_ts: str | None


def action_value(body: dict[str, Any]) -> str:
    """The ``value`` of the button pressed (``""`` when it has none)."""
    actions = body.get("actions") or [{}]
    return str(actions[0].get("value") or "")


def picked_option(body: dict[str, Any]) -> tuple[str, str]:
    """The ``block_id`` of a select picked in a message, and the value picked (``""`` each
    when missing)."""
    action = (body.get("actions") or [{}])[0]
    selected = action.get("selected_option") or {}
    return str(action.get("block_id") or ""), str(selected.get("value") or "")


class ShortcutMessage(NamedTuple):
    """The message a message shortcut was used on, and who used it where."""

    team_id: str
    user_id: str
    channel_id: str
    message_ts: str
    text: str


def shortcut_message(body: dict[str, Any]) -> ShortcutMessage:
    """What a ``message_action`` payload says of its message (its text as people read it)."""
    user = body.get("user") or {}
    message = body.get("message") or {}
    text = str(message.get("text") or "")
    return ShortcutMessage(
        team_id=str(user.get("team_id") or (body.get("team") or {}).get("id") or ""),
        user_id=str(user.get("id") or ""),
        channel_id=str((body.get("channel") or {}).get("id") or ""),
        message_ts=str(body.get("message_ts") or message.get("ts") or ""),
        # Shown in a modal and kept: what is no character at all cannot be either.
        text=mend(unescape_slack(text)),
    )


def pressed_action_id(body: dict[str, Any]) -> str:
    """The ``action_id`` of the button pressed (``""`` when there is none)."""
    actions = body.get("actions") or [{}]
    return str(actions[0].get("action_id") or "")


def button_place(body: dict[str, Any]) -> ButtonPlace:
    """Where the pressed button sits. A message in the channel has no ``thread_ts``: it is then
    its own thread's root. An ephemeral message comes without ``channel`` or ``message``, so
    the container is read first."""
    container = body.get("container") or {}
    channel = (body.get("channel") or {}).get("id") or container.get("channel_id")
    message = body.get("message") or {}
    message_ts = container.get("message_ts") or message.get("ts")
    thread_ts = container.get("thread_ts") or message.get("thread_ts") or message_ts
    return ButtonPlace(channel, thread_ts, message_ts)


def acting_user(body: dict[str, Any]) -> tuple[str, str]:
    """``(team id, user id)`` of the person who pressed or submitted."""
    user = body["user"]
    return str(user.get("team_id") or (body.get("team") or {}).get("id") or ""), str(user["id"])


def workspace_of(body: dict[str, Any]) -> str:
    """The workspace an interaction came from (the app's workspace, which in an Enterprise Grid
    org may differ from the person's home team)."""
    user = body.get("user") or {}
    return str((body.get("team") or {}).get("id") or user.get("team_id") or "")


def delivery_person(body: dict[str, Any]) -> tuple[str, str | None]:
    """``(user id, channel id)`` of any delivery that starts work: an interaction carries them
    at the top, an event inside ``event``."""
    event = body.get("event") or {}
    user_id = str((body.get("user") or {}).get("id") or event.get("user") or "")
    channel = (body.get("channel") or {}).get("id") or event.get("channel")
    return user_id, channel


def submitted_view(body: dict[str, Any]) -> dict[str, Any] | None:
    """The view of a ``view_submission``, or None for any other delivery."""
    view = body.get("view") if body.get("type") == "view_submission" else None
    return view if isinstance(view, dict) else None


def _first_element(view: dict[str, Any], block_id: str) -> dict[str, Any]:
    for action in ((view.get("state") or {}).get("values") or {}).get(block_id, {}).values():
        return dict(action)
    return {}


def digest_form(view: dict[str, Any]) -> dict[str, Any]:
    """The "add digest" modal's values: ids of the choices, ``time`` as picked, ``tz`` as
    typed, weekday numbers, and whether an unchanged set stays quiet."""
    segment = _first_element(view, ids.INPUT_DIGEST_SEGMENT).get("selected_option") or {}
    use_case = _first_element(view, ids.INPUT_DIGEST_USE_CASE).get("selected_option") or {}
    quiet = _first_element(view, ids.INPUT_DIGEST_QUIET).get("selected_option") or {}
    days = _first_element(view, ids.INPUT_DIGEST_WEEKDAYS).get("selected_options") or []
    return {
        "segment_id": segment.get("value"),
        "use_case_id": use_case.get("value"),
        "time": str(_first_element(view, ids.INPUT_DIGEST_TIME).get("selected_time") or ""),
        "tz": str(_first_element(view, ids.INPUT_DIGEST_TZ).get("value") or "").strip(),
        "weekdays": sorted({int(o["value"]) for o in days if str(o.get("value")).isdigit()}),
        "quiet": quiet.get("value") == QUIET,
    }
