"""Filling a modal's inputs by their labels, the way a person fills the form in Slack.

The result is ``view.state.values`` in Slack's shape (Slack docs, "view_submission payload"
and the state of bolt-python tests/scenario_tests/test_view_submission.py):
``{block_id: {action_id: {"type": …, "value" | "selected_option" | …}}}``. The Slack client
refuses some input before anything is sent — an empty required field, text over
``max_length``, a number out of range — so those become :class:`ClientRejected` here.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from suggestbot.slackemu.errors import ClientRejected, DriverError

# (block_id, action_id, typed text) -> the options the app offers for an external_select
OptionsLoader = Callable[[str, str, str], list[dict[str, Any]]]

Value = str | int | float | list[str]

REQUIRED_FIELD = "Please complete this required field."


def input_blocks(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The view's input blocks by label text."""
    found: dict[str, dict[str, Any]] = {}
    for block in view.get("blocks") or []:
        if block.get("type") == "input":
            found[str(block["label"]["text"])] = block
    return found


def fill(
    view: dict[str, Any],
    values_by_label: Mapping[str, Value],
    *,
    options_loader: OptionsLoader | None = None,
) -> dict[str, Any]:
    """State values for ``view`` with ``values_by_label`` typed in; raises when refused."""
    blocks = input_blocks(view)
    unknown = [label for label in values_by_label if label not in blocks]
    if unknown:
        raise DriverError(f"no input labelled {unknown!r}; the modal has {sorted(blocks)!r}")
    state: dict[str, Any] = copy.deepcopy((view.get("state") or {}).get("values") or {})
    problems: dict[str, str] = {}
    for label, block in blocks.items():
        element = block["element"]
        action_id, block_id = element["action_id"], block["block_id"]
        if label in values_by_label:
            entry = _entry(element, values_by_label[label], block_id, options_loader, label)
        elif block_id in state and action_id in state[block_id]:
            entry = state[block_id][action_id]
        else:
            entry = _initial_entry(element)
        problem = _client_check(block, element, entry)
        if problem:
            problems[label] = problem
        state.setdefault(block_id, {})[action_id] = entry
    if problems:
        raise ClientRejected(problems)
    return state


def _entry(
    element: dict[str, Any],
    value: Value,
    block_id: str,
    options_loader: OptionsLoader | None,
    label: str,
) -> dict[str, Any]:
    etype = element["type"]
    if etype in ("plain_text_input", "email_text_input", "url_text_input"):
        return {"type": etype, "value": str(value)}
    if etype == "number_input":
        return {"type": etype, "value": str(value)}
    if etype in ("static_select", "radio_buttons"):
        return {"type": etype, "selected_option": _pick(_options(element), str(value), label)}
    if etype in ("multi_static_select", "checkboxes"):
        chosen = [str(v) for v in value] if isinstance(value, list) else [str(value)]
        options = _options(element)
        return {"type": etype, "selected_options": [_pick(options, c, label) for c in chosen]}
    if etype == "external_select":
        if options_loader is None:
            raise DriverError(f"{label}: external_select needs the app's options")
        offered = options_loader(block_id, element["action_id"], str(value))
        return {"type": etype, "selected_option": _pick(offered, str(value), label)}
    if etype == "users_select":
        return {"type": etype, "selected_user": str(value)}
    if etype in ("conversations_select", "channels_select"):
        key = "selected_conversation" if etype == "conversations_select" else "selected_channel"
        return {"type": etype, key: str(value)}
    if etype == "datepicker":
        return {"type": etype, "selected_date": str(value)}
    if etype == "timepicker":
        return {"type": etype, "selected_time": str(value)}
    raise DriverError(f"{label}: filling a {etype} is not supported by the driver")


def _initial_entry(element: dict[str, Any]) -> dict[str, Any]:
    etype = element["type"]
    if etype in ("plain_text_input", "email_text_input", "url_text_input", "number_input"):
        return {"type": etype, "value": element.get("initial_value")}
    if etype in ("static_select", "radio_buttons", "external_select"):
        return {"type": etype, "selected_option": element.get("initial_option")}
    if etype in ("multi_static_select", "checkboxes"):
        return {"type": etype, "selected_options": list(element.get("initial_options") or [])}
    if etype == "datepicker":
        return {"type": etype, "selected_date": element.get("initial_date")}
    if etype == "users_select":
        return {"type": etype, "selected_user": element.get("initial_user")}
    return {"type": etype}


def _client_check(block: dict[str, Any], element: dict[str, Any], entry: dict[str, Any]) -> str:
    """What the Slack client would say before submitting (empty when it would submit)."""
    filled = any(
        entry.get(key) not in (None, "", [])
        for key in (
            "value",
            "selected_option",
            "selected_options",
            "selected_user",
            "selected_conversation",
            "selected_channel",
            "selected_date",
            "selected_time",
        )
    )
    if not filled:
        return "" if block.get("optional") else REQUIRED_FIELD
    value = entry.get("value")
    if isinstance(value, str) and element["type"] != "number_input":
        max_length, min_length = element.get("max_length"), element.get("min_length")
        if max_length is not None and len(value) > max_length:
            return f"Must be {max_length} characters or fewer."
        if min_length is not None and len(value) < min_length:
            return f"Must be at least {min_length} characters."
    if element["type"] == "number_input" and isinstance(value, str):
        return _number_problem(element, value)
    return ""


def _number_problem(element: dict[str, Any], value: str) -> str:
    try:
        number = float(value) if element.get("is_decimal_allowed") else int(value)
    except ValueError:
        whole = "" if element.get("is_decimal_allowed") else "whole "
        return f"Please enter a {whole}number."
    low, high = element.get("min_value"), element.get("max_value")
    if low is not None and number < float(low):
        return f"Must be {low} or more."
    if high is not None and number > float(high):
        return f"Must be {high} or less."
    return ""


def _options(element: dict[str, Any]) -> list[dict[str, Any]]:
    if "options" in element:
        return list(element["options"])
    return [o for group in element.get("option_groups") or [] for o in group.get("options", [])]


def _pick(options: list[dict[str, Any]], wanted: str, label: str) -> dict[str, Any]:
    for option in options:
        if option.get("text", {}).get("text") == wanted:
            return copy.deepcopy(option)
    for option in options:
        if option.get("value") == wanted:
            return copy.deepcopy(option)
    shown = [o.get("text", {}).get("text") for o in options]
    raise DriverError(f"{label}: no option {wanted!r}; the choices are {shown!r}")
