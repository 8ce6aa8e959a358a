"""Finding a control on a message the way a person does: a button by its label (in action
blocks, as an accessory, or on a card, also inside a carousel), feedback buttons by the block
that holds them. An ambiguous or missing control is a :class:`DriverError` naming what is
there, so a failing test says what the person saw."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from suggestbot.slackemu.errors import DriverError


def find_button(
    blocks: list[dict[str, Any]], *, text: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    found: list[tuple[dict[str, Any], dict[str, Any]]] = []
    labels: list[str] = []
    for block, element in _buttons(blocks):
        label = str(element.get("text", {}).get("text", ""))
        labels.append(label)
        if label == text:
            found.append((block, element))
    if not found:
        raise DriverError(f"no button {text!r}; buttons here: {labels!r}")
    if len(found) > 1:
        raise DriverError(f"{len(found)} buttons are labelled {text!r}")
    return found[0]


def _buttons(blocks: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """Every button with the block it belongs to; a card's buttons belong to the card, also
    inside a carousel."""
    for block in blocks:
        if block.get("type") == "carousel":
            yield from _buttons([c for c in block.get("elements") or [] if isinstance(c, dict)])
            continue
        candidates = list(block.get("elements") or []) if block.get("type") == "actions" else []
        if block.get("type") == "card":
            candidates = list(block.get("actions") or [])
        if isinstance(block.get("accessory"), dict):
            candidates.append(block["accessory"])
        for element in candidates:
            if isinstance(element, dict) and element.get("type") == "button":
                yield block, element


def find_feedback_buttons(
    blocks: list[dict[str, Any]], *, action_id: str | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    found = [
        (block, element)
        for block in blocks
        if block.get("type") == "context_actions"
        for element in block.get("elements") or []
        if isinstance(element, dict)
        and element.get("type") == "feedback_buttons"
        and (action_id is None or element.get("action_id") == action_id)
    ]
    if not found:
        raise DriverError("no feedback buttons on that message")
    if len(found) > 1:
        raise DriverError(f"{len(found)} feedback buttons on that message; name the action_id")
    return found[0]


def find_select_option(
    blocks: list[dict[str, Any]], *, text: str, placeholder: str | None = None
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The static select in an actions block (or a section's accessory) that offers an option
    labelled ``text`` (the one whose placeholder is ``placeholder`` when given), with its block
    and that option."""
    found: list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]] = []
    offered: list[str] = []
    for block in blocks:
        if block.get("type") == "actions":
            elements = block.get("elements") or []
        elif block.get("type") == "section" and block.get("accessory"):
            elements = [block["accessory"]]
        else:
            continue
        for element in elements:
            if not isinstance(element, dict) or element.get("type") != "static_select":
                continue
            shown = str((element.get("placeholder") or {}).get("text", ""))
            if placeholder is not None and shown != placeholder:
                continue
            for option in element.get("options") or []:
                label = str((option.get("text") or {}).get("text", ""))
                offered.append(label)
                if label == text:
                    found.append((block, element, option))
    if not found:
        raise DriverError(f"no select offers {text!r}; options here: {offered!r}")
    if len(found) > 1:
        raise DriverError(f"{len(found)} selects offer {text!r}; name the placeholder")
    return found[0]
