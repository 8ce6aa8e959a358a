"""Named pure predicates and extractors for the shapes Slack sends us."""

from __future__ import annotations

import json
from typing import Any

SUBCOMMANDS = (
    "help",
    "connect",
    "disconnect",
    "status",
    "brief",
    "draft",
    "inspire",
    "digest",
    "threads",
    "runs",
)


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
    for block_id, actions in (view.get("state") or {}).get("values", {}).items():
        for action in actions.values():
            kind = action.get("type")
            if kind == "plain_text_input":
                values[block_id] = action.get("value") or ""
            elif kind in ("static_select", "external_select", "radio_buttons"):
                selected = action.get("selected_option")
                values[block_id] = selected.get("value") if selected else None
            elif kind == "checkboxes":
                values[block_id] = [o["value"] for o in action.get("selected_options") or []]
            elif kind == "number_input":
                values[block_id] = action.get("value")
            else:
                values[block_id] = action.get("value")
    return values


def selected_label(view: dict[str, Any], block_id: str) -> str | None:
    """The visible text of the option selected in ``block_id`` (a segment's name, say)."""
    for action in (view.get("state") or {}).get("values", {}).get(block_id, {}).values():
        selected = action.get("selected_option")
        if selected:
            return str(selected["text"]["text"])
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
