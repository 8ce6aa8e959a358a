"""Block Kit checks for the blocks of Slack's AI-app surfaces: ``card``, ``carousel`` and
``context_actions`` with ``feedback_buttons`` and ``icon_button``.

Limits are from Slack's Block Kit reference (docs.slack.dev/reference/block-kit): card block
(title and subtitle 150 characters, body 200; at least one of ``hero_image``, ``title``,
``actions`` or ``body``), carousel block (1 to 10 cards), context actions block (1 to 5
elements), feedback buttons element (both buttons required, each ``text`` plain_text of 75
characters and a ``value`` of 2,000; ``accessibility_label`` 75), icon button element.

Where the reference is silent the emulator takes the stricter reading, so an app that passes
here passes in Slack:

- a card holds at most 3 buttons (Slack shows no more; third-party builders of the block cap
  it there) and only buttons;
- these blocks, like ``markdown``, are for messages only: a view that uses them is refused.
"""

from __future__ import annotations

from typing import Any, Protocol

MAX_CARD_TITLE = 150
MAX_CARD_SUBTITLE = 150
MAX_CARD_BODY = 200
MAX_CARD_ACTIONS = 3
MAX_CAROUSEL_CARDS = 10
MAX_CONTEXT_ACTIONS = 5
MAX_FEEDBACK_TEXT = 75
MAX_FEEDBACK_VALUE = 2000
MAX_ACCESSIBILITY_LABEL = 75
MAX_VISIBLE_TO = 10
# Slack icon object (Block Kit reference, "Slack icon object"): the names a card icon may use.
SLACK_ICONS = frozenset(
    [
        "archive",
        "book",
        "bookmark",
        "bot",
        "bug",
        "calendar",
        "call",
        "caret-left",
        "caret-right",
        "check",
        "clipboard",
        "code",
        "comment",
        "compass",
        "copy",
        "cube",
        "download",
        "edit",
        "email",
        "eye-closed",
        "eye-open",
        "file",
        "flag",
        "folder",
        "gear",
        "globe",
        "heart",
        "help",
        "image",
        "info",
        "key",
        "lightbulb",
        "link",
        "map",
        "mobile",
        "new-window",
        "pin",
        "plus",
        "refine",
        "refresh",
        "rocket",
        "save",
        "screen",
        "share",
        "sparkle",
        "star",
        "star-filled",
        "tag",
        "thumbs-down",
        "thumbs-up",
        "trash",
        "upload",
        "user",
        "warning",
    ]
)
MESSAGE_ONLY_BLOCKS = frozenset({"card", "carousel", "context_actions", "markdown"})
_BUTTONS_ONLY = frozenset({"button"})


class Checker(Protocol):
    """What these checks need from the shared checker in ``blockkit``."""

    def fail(self, message: str, pointer: str) -> None: ...

    def items(self, value: Any, ptr: str, most: int) -> list[Any] | None: ...

    def block(self, block: Any, ptr: str) -> None: ...

    def element(self, element: Any, ptr: str, allowed: frozenset[str], ids: set[str]) -> None: ...

    def image(self, image: dict[str, Any], ptr: str) -> None: ...

    def text(self, obj: Any, ptr: str, limit: int, plain_only: bool = False) -> None: ...

    def max_len(self, value: Any, limit: int, ptr: str) -> bool: ...


def check_card(checker: Checker, block: dict[str, Any], ptr: str) -> None:
    if not any(key in block for key in ("hero_image", "title", "actions", "body")):
        checker.fail("must provide at least one of hero_image, title, actions or body", ptr)
    for key, limit in (
        ("title", MAX_CARD_TITLE),
        ("subtitle", MAX_CARD_SUBTITLE),
        ("body", MAX_CARD_BODY),
    ):
        if key in block:
            checker.text(block[key], f"{ptr}/{key}", limit)
    if "hero_image" in block:
        _image_element(checker, block["hero_image"], f"{ptr}/hero_image")
    if "icon" in block:
        icon = block["icon"]
        if isinstance(icon, dict) and icon.get("type") == "icon":
            if icon.get("name") not in SLACK_ICONS:
                checker.fail("must be one of the Slack icon names", f"{ptr}/icon/name")
        else:
            _image_element(checker, icon, f"{ptr}/icon")
    if "actions" in block:
        actions = checker.items(block["actions"], f"{ptr}/actions", MAX_CARD_ACTIONS)
        if actions is None:
            return
        ids: set[str] = set()
        for index, element in enumerate(actions):
            checker.element(element, f"{ptr}/actions/{index}", _BUTTONS_ONLY, ids)


def check_carousel(checker: Checker, block: dict[str, Any], ptr: str) -> None:
    cards = block.get("elements")
    if not isinstance(cards, list) or not cards:
        checker.fail("must provide at least 1 items", f"{ptr}/elements")
        return
    if len(cards) > MAX_CAROUSEL_CARDS:
        checker.fail(f"no more than {MAX_CAROUSEL_CARDS} items allowed", f"{ptr}/elements")
    for index, card in enumerate(cards):
        cptr = f"{ptr}/elements/{index}"
        if isinstance(card, dict) and card.get("type") != "card":
            checker.fail(f"unsupported type: {card.get('type')}", f"{cptr}/type")
            continue
        checker.block(card, cptr)


def check_context_actions(checker: Checker, block: dict[str, Any], ptr: str) -> None:
    elements = checker.items(block.get("elements"), f"{ptr}/elements", MAX_CONTEXT_ACTIONS)
    if elements is None:
        return
    ids: set[str] = set()
    for index, element in enumerate(elements):
        eptr = f"{ptr}/elements/{index}"
        if not isinstance(element, dict):
            checker.fail("must provide an object", eptr)
            continue
        etype = element.get("type")
        if etype == "feedback_buttons":
            _feedback_buttons(checker, element, eptr)
        elif etype == "icon_button":
            _icon_button(checker, element, eptr)
        else:
            checker.fail(f"unsupported type: {etype}", f"{eptr}/type")
            continue
        action_id = element.get("action_id")
        if action_id is not None:
            if checker.max_len(action_id, 255, f"{eptr}/action_id") and action_id in ids:
                checker.fail(f"duplicate action_id: {action_id}", f"{eptr}/action_id")
            ids.add(str(action_id))


def _feedback_buttons(checker: Checker, element: dict[str, Any], ptr: str) -> None:
    for key in ("positive_button", "negative_button"):
        button = element.get(key)
        if not isinstance(button, dict):
            checker.fail(f"missing required field: {key}", ptr)
            continue
        bptr = f"{ptr}/{key}"
        if "text" not in button:
            checker.fail("missing required field: text", bptr)
        else:
            checker.text(button["text"], f"{bptr}/text", MAX_FEEDBACK_TEXT, plain_only=True)
        value = button.get("value")
        if not isinstance(value, str) or not value:
            checker.fail("missing required field: value", bptr)
        else:
            checker.max_len(value, MAX_FEEDBACK_VALUE, f"{bptr}/value")
        checker.max_len(
            button.get("accessibility_label"),
            MAX_ACCESSIBILITY_LABEL,
            f"{bptr}/accessibility_label",
        )


def _icon_button(checker: Checker, element: dict[str, Any], ptr: str) -> None:
    if not isinstance(element.get("icon"), str) or not element["icon"]:
        checker.fail("missing required field: icon", ptr)
    if "text" not in element:
        checker.fail("missing required field: text", ptr)
    else:
        checker.text(element["text"], f"{ptr}/text", MAX_FEEDBACK_TEXT, plain_only=True)
    checker.max_len(element.get("value"), MAX_FEEDBACK_VALUE, f"{ptr}/value")
    checker.max_len(
        element.get("accessibility_label"), MAX_ACCESSIBILITY_LABEL, f"{ptr}/accessibility_label"
    )
    visible = element.get("visible_to_user_ids")
    if visible is not None and (not isinstance(visible, list) or len(visible) > MAX_VISIBLE_TO):
        checker.fail(f"no more than {MAX_VISIBLE_TO} items allowed", f"{ptr}/visible_to_user_ids")


def _image_element(checker: Checker, image: Any, ptr: str) -> None:
    if not isinstance(image, dict) or image.get("type") != "image":
        checker.fail("must be an image element", ptr)
        return
    checker.image(image, ptr)


def interactive_elements(block: dict[str, Any]) -> list[dict[str, Any]]:
    """The elements of these blocks that get an ``action_id`` when the app leaves it out."""
    if block.get("type") == "card":
        return [a for a in block.get("actions") or [] if isinstance(a, dict)]
    if block.get("type") == "context_actions":
        return [e for e in block.get("elements") or [] if isinstance(e, dict)]
    return []
