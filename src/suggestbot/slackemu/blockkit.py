"""Strict Block Kit checks for messages and views, phrased the way Slack phrases them.

Slack rejects a message whose blocks break a limit with ``invalid_blocks`` and a view with
``invalid_arguments``, each with ``response_metadata.messages`` like
``[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]``
(message shape seen in Slack's answers quoted in slackapi/bolt-js issue #793 and
slackapi/java-slack-sdk issue #1017; views: "[ERROR] must be less than 25 characters
[json-pointer:/view/title/text]"). The limits below are from Slack's Block Kit reference
(docs.slack.dev/reference/block-kit): blocks, block elements, composition objects, views.

Only the rules listed here (and, for the AI-app blocks ``card``, ``carousel`` and
``context_actions``, in ``blockkit_agent``) are checked; an unknown block or element type is
refused, since Slack refuses it too.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable
from typing import Any

from suggestbot.slackemu import blockkit_agent

MAX_MESSAGE_BLOCKS = 50
MAX_VIEW_BLOCKS = 100
MAX_SECTION_TEXT = 3000
MAX_SECTION_FIELDS = 10
MAX_FIELD_TEXT = 2000
MAX_HEADER_TEXT = 150
MAX_BUTTON_TEXT = 75
MAX_BUTTON_VALUE = 2000
MAX_URL = 3000
MAX_ID = 255
MAX_ALT_TEXT = 2000
MAX_IMAGE_TITLE = 2000
MAX_CONTEXT_ELEMENTS = 10
MAX_ACTIONS_ELEMENTS = 25
MAX_OPTIONS = 100
MAX_CHOICE_OPTIONS = 10
MAX_OPTION_TEXT = 75
MAX_OPTION_VALUE = 150
MAX_PLACEHOLDER = 150
MAX_LABEL = 2000
MAX_HINT = 2000
MAX_INPUT_LENGTH = 3000
MAX_VIEW_TITLE = 24
MAX_VIEW_BUTTON = 24
MAX_PRIVATE_METADATA = 3000
MAX_CALLBACK_ID = 255
MAX_EXTERNAL_ID = 255
MAX_MESSAGE_TEXT = 40_000
MAX_MARKDOWN_TEXT = 12_000
MESSAGE_TRUNCATED = "message_truncated"
# Slack refuses a message with ``msg_blocks_too_long`` once the text inside its blocks adds up
# past a limit it does not document, well below 50 x 3000. bolt-js issue #2509 saw it at about
# 13,200 characters; in #2867 a Slack engineer names "12,000 text characters with a buffer for
# block containers", and one message was refused at 11,341 characters of text. The emulator
# refuses above 11,000 characters of block text (every ``text`` string, at any depth), below
# every refusal reported, so an app that passes here passes there.
MAX_BLOCK_TEXT_PER_MESSAGE = 11_000

KNOWN_BLOCKS = frozenset(
    {
        "actions",
        "card",
        "carousel",
        "context",
        "context_actions",
        "divider",
        "file",
        "header",
        "image",
        "input",
        "markdown",
        "rich_text",
        "section",
        "video",
    }
)
_TEXT_INPUTS = frozenset(
    {"plain_text_input", "email_text_input", "url_text_input", "number_input", "rich_text_input"}
)
_SELECTS = frozenset(
    {
        "static_select",
        "multi_static_select",
        "external_select",
        "multi_external_select",
        "users_select",
        "multi_users_select",
        "conversations_select",
        "multi_conversations_select",
        "channels_select",
        "multi_channels_select",
    }
)
_PICKERS = frozenset({"datepicker", "timepicker", "datetimepicker"})
KNOWN_ELEMENTS = (
    frozenset({"button", "checkboxes", "radio_buttons", "overflow", "image", "file_input"})
    | _TEXT_INPUTS
    | _SELECTS
    | _PICKERS
)
_ACCESSORIES = KNOWN_ELEMENTS - _TEXT_INPUTS - {"file_input"}
_INPUT_ELEMENTS = _TEXT_INPUTS | _SELECTS | _PICKERS | {"checkboxes", "radio_buttons", "file_input"}

# Given a slack_file object, returns None when it names an uploaded, completed image, else why not.
SlackFileCheck = Callable[[dict[str, Any]], "str | None"]
# Given an image_url, returns None when Slack could download it, else why not.
ImageUrlCheck = Callable[[str], "str | None"]


def check_message(
    *,
    blocks: Any,
    slack_file_check: SlackFileCheck,
    image_url_check: ImageUrlCheck | None = None,
) -> tuple[list[str], str | None]:
    """Check a message's blocks; returns (``[ERROR] …`` lines, ``msg_blocks_too_long`` or None).

    The top-level ``text`` is not checked here: over 40,000 characters Slack truncates it and
    warns ``message_truncated`` rather than refusing (see :func:`truncate_text`)."""
    if blocks is None:
        return [], None
    checker = _Checker(slack_file_check, image_url_check)
    checker.blocks(blocks, "/blocks", MAX_MESSAGE_BLOCKS)
    if checker.markdown_total > MAX_MARKDOWN_TEXT:
        checker.fail(
            f"markdown blocks must hold less than {MAX_MARKDOWN_TEXT + 1} characters in total",
            "/blocks",
        )
    too_long = None
    # Markdown blocks have their own 12,000-character allowance (checked above), which Slack
    # accepts in full: only the other blocks' text counts towards the cap.
    others = [b for b in blocks if not (isinstance(b, dict) and b.get("type") == "markdown")]
    if not checker.errors and block_text_length(others) > MAX_BLOCK_TEXT_PER_MESSAGE:
        too_long = "msg_blocks_too_long"
    return checker.errors, too_long


def truncate_text(text: Any) -> tuple[Any, bool]:
    """``text`` as Slack keeps it: cut to 40,000 characters, and whether it was cut."""
    if isinstance(text, str) and len(text) > MAX_MESSAGE_TEXT:
        return text[:MAX_MESSAGE_TEXT], True
    return text, False


def block_text_length(value: Any) -> int:
    """Characters of text inside ``value`` (every ``text`` string, at any depth)."""
    if isinstance(value, list):
        return sum(block_text_length(item) for item in value)
    if not isinstance(value, dict):
        return 0
    total = 0
    for key, item in value.items():
        if key == "text" and isinstance(item, str):
            total += len(item)
        else:
            total += block_text_length(item)
    return total


def check_view(
    view: Any, *, slack_file_check: SlackFileCheck, image_url_check: ImageUrlCheck | None = None
) -> list[str]:
    """Check a modal or App Home view; returns ``[ERROR] …`` lines (empty when valid)."""
    checker = _Checker(slack_file_check, image_url_check, surface="view")
    checker.view(view, "/view")
    return checker.errors


def fill_ids(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Copy of ``blocks`` with the ``block_id``/``action_id`` Slack generates when omitted.

    A ``markdown`` block keeps no ``block_id`` at all, even one the app gave it: Slack turns
    it into other blocks when it renders, so nothing may be keyed on it."""
    filled = copy.deepcopy(blocks)
    counter = itertools.count(1)
    for block in filled:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "markdown":
            block.pop("block_id", None)
            continue
        cards = block.get("elements") if block.get("type") == "carousel" else None
        for part in [block, *(c for c in cards or [] if isinstance(c, dict))]:
            if "block_id" not in part:
                part["block_id"] = f"b{next(counter)}{_digest(part)}"
            for element in _interactive_elements(part):
                if "action_id" not in element:
                    element["action_id"] = f"a{next(counter)}{_digest(element)}"
    return filled


def _digest(obj: Any) -> str:
    return format(abs(hash(repr(obj))) % 0xFFFF, "04x")


def _interactive_elements(block: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    candidates: list[Any] = []
    if block.get("type") == "actions":
        candidates.extend(block.get("elements") or [])
    if isinstance(block.get("accessory"), dict):
        candidates.append(block["accessory"])
    if block.get("type") == "input" and isinstance(block.get("element"), dict):
        candidates.append(block["element"])
    candidates.extend(blockkit_agent.interactive_elements(block))
    for element in candidates:
        if isinstance(element, dict) and element.get("type") not in (None, "image"):
            found.append(element)
    return found


class _Checker:
    def __init__(
        self,
        slack_file_check: SlackFileCheck,
        image_url_check: ImageUrlCheck | None,
        *,
        surface: str = "message",
    ) -> None:
        self.surface = surface
        self.errors: list[str] = []
        self._slack_file_check = slack_file_check
        self._image_url_check = image_url_check
        self._block_ids: set[str] = set()
        self.markdown_total = 0

    def fail(self, message: str, pointer: str) -> None:
        self.errors.append(f"[ERROR] {message} [json-pointer:{pointer}]")

    def items(self, value: Any, ptr: str, most: int) -> list[Any] | None:
        """A block's list of elements: non-empty (else None, refused) and at most ``most``
        long (longer is refused, but its items are still checked, as Slack reports them all)."""
        if not isinstance(value, list) or not value:
            self.fail("must provide a non-empty array", ptr)
            return None
        if len(value) > most:
            self.fail(f"no more than {most} items allowed", ptr)
        return value

    # -- views --------------------------------------------------------------------------
    def view(self, view: Any, ptr: str) -> None:
        if not isinstance(view, dict):
            self.fail("must provide an object", ptr)
            return
        vtype = view.get("type")
        if vtype not in ("modal", "home"):
            self.fail(f"unsupported type: {vtype}", f"{ptr}/type")
            return
        if vtype == "modal":
            if "title" not in view:
                self.fail("missing required field: title", ptr)
            else:
                self.text(view["title"], f"{ptr}/title", MAX_VIEW_TITLE, plain_only=True)
            for key in ("submit", "close"):
                if view.get(key) is not None:
                    self.text(view[key], f"{ptr}/{key}", MAX_VIEW_BUTTON, plain_only=True)
        self.max_len(view.get("private_metadata"), MAX_PRIVATE_METADATA, f"{ptr}/private_metadata")
        self.max_len(view.get("callback_id"), MAX_CALLBACK_ID, f"{ptr}/callback_id")
        self.max_len(view.get("external_id"), MAX_EXTERNAL_ID, f"{ptr}/external_id")
        if "blocks" not in view:
            self.fail("missing required field: blocks", ptr)
            return
        self.blocks(view["blocks"], f"{ptr}/blocks", MAX_VIEW_BLOCKS)
        if vtype == "modal" and view.get("submit") is None:
            for index, block in enumerate(view.get("blocks") or []):
                if isinstance(block, dict) and block.get("type") == "input":
                    self.fail(
                        "must define `submit` to use an `input` block in modals",
                        f"{ptr}/blocks/{index}/input",
                    )
                    break

    # -- blocks -------------------------------------------------------------------------
    def blocks(self, blocks: Any, ptr: str, limit: int) -> None:
        if not isinstance(blocks, list):
            self.fail("must provide an array", ptr)
            return
        if len(blocks) > limit:
            self.fail(f"no more than {limit} items allowed", ptr)
        for index, block in enumerate(blocks):
            self.block(block, f"{ptr}/{index}")

    def block(self, block: Any, ptr: str) -> None:
        if not isinstance(block, dict):
            self.fail("must provide an object", ptr)
            return
        btype = block.get("type")
        if btype not in KNOWN_BLOCKS or (
            self.surface == "view" and btype in blockkit_agent.MESSAGE_ONLY_BLOCKS
        ):
            self.fail(f"unsupported type: {btype}", f"{ptr}/type")
            return
        block_id = block.get("block_id")
        if block_id is not None:
            if self.max_len(block_id, MAX_ID, f"{ptr}/block_id") and block_id in self._block_ids:
                self.fail(f"duplicate block_id: {block_id}", f"{ptr}/block_id")
            self._block_ids.add(str(block_id))
        getattr(self, f"_block_{btype}", self._block_other)(block, ptr)

    def _block_section(self, block: dict[str, Any], ptr: str) -> None:
        has_text = "text" in block
        fields = block.get("fields")
        if not has_text and not fields:
            self.fail("must provide either text or fields", ptr)
        if has_text:
            self.text(block["text"], f"{ptr}/text", MAX_SECTION_TEXT)
        if fields is not None:
            if not isinstance(fields, list):
                self.fail("must provide an array", f"{ptr}/fields")
            else:
                if len(fields) > MAX_SECTION_FIELDS:
                    self.fail(f"no more than {MAX_SECTION_FIELDS} items allowed", f"{ptr}/fields")
                for index, item in enumerate(fields):
                    self.text(item, f"{ptr}/fields/{index}", MAX_FIELD_TEXT)
        if "accessory" in block:
            self.element(block["accessory"], f"{ptr}/accessory", _ACCESSORIES, set())

    def _block_header(self, block: dict[str, Any], ptr: str) -> None:
        if "text" not in block:
            self.fail("missing required field: text", ptr)
            return
        self.text(block["text"], f"{ptr}/text", MAX_HEADER_TEXT, plain_only=True)

    def _block_divider(self, block: dict[str, Any], ptr: str) -> None:
        return None

    def _block_context(self, block: dict[str, Any], ptr: str) -> None:
        elements = self.items(block.get("elements"), f"{ptr}/elements", MAX_CONTEXT_ELEMENTS)
        if elements is None:
            return
        for index, element in enumerate(elements):
            eptr = f"{ptr}/elements/{index}"
            if isinstance(element, dict) and element.get("type") == "image":
                self.image(element, eptr)
            else:
                self.text(element, eptr, MAX_SECTION_TEXT)

    def _block_actions(self, block: dict[str, Any], ptr: str) -> None:
        elements = self.items(block.get("elements"), f"{ptr}/elements", MAX_ACTIONS_ELEMENTS)
        if elements is None:
            return
        action_ids: set[str] = set()
        for index, element in enumerate(elements):
            self.element(element, f"{ptr}/elements/{index}", _ACCESSORIES, action_ids)

    def _block_image(self, block: dict[str, Any], ptr: str) -> None:
        self.image(block, ptr)
        if "title" in block:
            self.text(block["title"], f"{ptr}/title", MAX_IMAGE_TITLE, plain_only=True)

    def _block_input(self, block: dict[str, Any], ptr: str) -> None:
        if "label" not in block:
            self.fail("missing required field: label", ptr)
        else:
            self.text(block["label"], f"{ptr}/label", MAX_LABEL, plain_only=True)
        if "hint" in block:
            self.text(block["hint"], f"{ptr}/hint", MAX_HINT, plain_only=True)
        if "element" not in block:
            self.fail("missing required field: element", ptr)
            return
        self.element(block["element"], f"{ptr}/element", _INPUT_ELEMENTS, set())

    def _block_markdown(self, block: dict[str, Any], ptr: str) -> None:
        # Slack's markdown block: ``text`` required and non-empty; 12,000 characters for all
        # markdown blocks of one payload together (Block Kit reference, markdown block).
        text = block.get("text")
        if not isinstance(text, str):
            self.fail("missing required field: text", ptr)
            return
        if not text:
            self.fail("must be more than 0 characters", f"{ptr}/text")
        self.markdown_total += len(text)

    def _block_card(self, block: dict[str, Any], ptr: str) -> None:
        blockkit_agent.check_card(self, block, ptr)

    def _block_carousel(self, block: dict[str, Any], ptr: str) -> None:
        blockkit_agent.check_carousel(self, block, ptr)

    def _block_context_actions(self, block: dict[str, Any], ptr: str) -> None:
        blockkit_agent.check_context_actions(self, block, ptr)

    def _block_other(self, block: dict[str, Any], ptr: str) -> None:
        # rich_text, file, video: only the shared block_id rule is checked here.
        return None

    # -- elements -----------------------------------------------------------------------
    def element(self, element: Any, ptr: str, allowed: frozenset[str], ids: set[str]) -> None:
        if not isinstance(element, dict):
            self.fail("must provide an object", ptr)
            return
        etype = element.get("type")
        if etype not in allowed:
            self.fail(f"unsupported type: {etype}", f"{ptr}/type")
            return
        if etype == "image":
            self.image(element, ptr)
            return
        action_id = element.get("action_id")
        if action_id is not None:
            if self.max_len(action_id, MAX_ID, f"{ptr}/action_id") and action_id in ids:
                self.fail(f"duplicate action_id: {action_id}", f"{ptr}/action_id")
            ids.add(str(action_id))
        if "placeholder" in element:
            self.text(element["placeholder"], f"{ptr}/placeholder", MAX_PLACEHOLDER, True)
        if etype == "button":
            self._button(element, ptr)
        elif etype in ("static_select", "multi_static_select"):
            self._options(element, ptr, MAX_OPTIONS, groups_allowed=True)
            self._initial_options(element, ptr)
        elif etype in ("checkboxes", "radio_buttons"):
            self._options(element, ptr, MAX_CHOICE_OPTIONS, groups_allowed=False)
            self._initial_options(element, ptr)
        elif etype == "overflow":
            self._options(element, ptr, 5, groups_allowed=False, minimum=1)
        elif etype in _TEXT_INPUTS:
            self._text_input(element, ptr)
        if "confirm" in element:
            self._confirm(element["confirm"], f"{ptr}/confirm")

    def _button(self, element: dict[str, Any], ptr: str) -> None:
        if "text" not in element:
            self.fail("missing required field: text", ptr)
        else:
            self.text(element["text"], f"{ptr}/text", MAX_BUTTON_TEXT, plain_only=True)
        self.max_len(element.get("value"), MAX_BUTTON_VALUE, f"{ptr}/value")
        self.max_len(element.get("url"), MAX_URL, f"{ptr}/url")
        style = element.get("style")
        if style is not None and style not in ("primary", "danger"):
            self.fail("must be one of primary, danger", f"{ptr}/style")

    def _options(
        self,
        element: dict[str, Any],
        ptr: str,
        limit: int,
        *,
        groups_allowed: bool,
        minimum: int = 1,
    ) -> None:
        options = element.get("options")
        if options is None and groups_allowed and "option_groups" in element:
            groups = element["option_groups"]
            for gindex, group in enumerate(groups if isinstance(groups, list) else []):
                gptr = f"{ptr}/option_groups/{gindex}"
                self._option_list(group.get("options"), f"{gptr}/options", limit, minimum)
            return
        self._option_list(options, f"{ptr}/options", limit, minimum)

    def _option_list(self, options: Any, ptr: str, limit: int, minimum: int) -> None:
        if not isinstance(options, list) or len(options) < minimum:
            self.fail(f"must provide at least {minimum} items", ptr)
            return
        if len(options) > limit:
            self.fail(f"no more than {limit} items allowed", ptr)
        for index, option in enumerate(options):
            optr = f"{ptr}/{index}"
            if not isinstance(option, dict) or "text" not in option:
                self.fail("missing required field: text", optr)
                continue
            self.text(option["text"], f"{optr}/text", MAX_OPTION_TEXT)
            self.max_len(option.get("value"), MAX_OPTION_VALUE, f"{optr}/value")

    def _initial_options(self, element: dict[str, Any], ptr: str) -> None:
        """An initial option must be one of the element's own options (text and value)."""
        offered = [
            (_option_key(o))
            for o in _all_options(element)
            if isinstance(o, dict) and _option_key(o) is not None
        ]
        for key in ("initial_option", "initial_options"):
            if key not in element:
                continue
            chosen = element[key]
            items = [chosen] if key == "initial_option" else chosen
            if not isinstance(items, list):
                self.fail("must provide an array", f"{ptr}/{key}")
                continue
            for index, item in enumerate(items):
                iptr = f"{ptr}/{key}" if key == "initial_option" else f"{ptr}/{key}/{index}"
                if not isinstance(item, dict) or _option_key(item) not in offered:
                    self.fail("must match one of the provided options", iptr)

    def _text_input(self, element: dict[str, Any], ptr: str) -> None:
        if element.get("type") == "number_input" and "is_decimal_allowed" not in element:
            self.fail("missing required field: is_decimal_allowed", ptr)
        min_allowed = {"max_length": 1, "min_length": 0}
        for key in ("max_length", "min_length"):
            value = element.get(key)
            if value is None:
                continue
            if not isinstance(value, int) or isinstance(value, bool):
                self.fail("must be an integer", f"{ptr}/{key}")
            elif value > MAX_INPUT_LENGTH:
                self.fail(f"must be less than {MAX_INPUT_LENGTH + 1}", f"{ptr}/{key}")
            elif value < min_allowed[key]:
                self.fail(f"must be at least {min_allowed[key]}", f"{ptr}/{key}")
        initial = element.get("initial_value")
        max_length = element.get("max_length")
        limit = MAX_INPUT_LENGTH
        if isinstance(max_length, int) and 1 <= max_length < MAX_INPUT_LENGTH:
            limit = max_length
        if element.get("type") == "plain_text_input":
            self.max_len(initial, limit, f"{ptr}/initial_value")
        else:
            self.max_len(initial, MAX_INPUT_LENGTH, f"{ptr}/initial_value")

    def _confirm(self, confirm: Any, ptr: str) -> None:
        if not isinstance(confirm, dict):
            self.fail("must provide an object", ptr)
            return
        for key, limit in (("title", 100), ("text", 300), ("confirm", 30), ("deny", 30)):
            if key in confirm:
                self.text(confirm[key], f"{ptr}/{key}", limit, plain_only=key != "text")

    def image(self, image: dict[str, Any], ptr: str) -> None:
        has_url = "image_url" in image
        has_file = "slack_file" in image
        if has_url == has_file:
            self.fail("must provide exactly one of image_url or slack_file", ptr)
        if has_url:
            url = image["image_url"]
            if not isinstance(url, str) or not url:
                self.fail("must be more than 0 characters", f"{ptr}/image_url")
            elif not url.lower().startswith(("http://", "https://")):
                self.fail("must be a valid http or https URL", f"{ptr}/image_url")
            elif self.max_len(url, MAX_URL, f"{ptr}/image_url") and self._image_url_check:
                problem = self._image_url_check(url)
                if problem:
                    self.fail(problem, f"{ptr}/image_url")
        if has_file:
            slack_file = image["slack_file"]
            if not isinstance(slack_file, dict) or ("id" in slack_file) == ("url" in slack_file):
                self.fail("must provide exactly one of id or url", f"{ptr}/slack_file")
            else:
                problem = self._slack_file_check(slack_file)
                if problem:
                    self.fail(problem, f"{ptr}/slack_file")
        if "alt_text" not in image:
            self.fail("missing required field: alt_text", ptr)
            return
        alt = image["alt_text"]
        if not isinstance(alt, str) or not alt:
            self.fail("must be more than 0 characters", f"{ptr}/alt_text")
        else:
            self.max_len(alt, MAX_ALT_TEXT, f"{ptr}/alt_text")

    # -- composition objects --------------------------------------------------------------
    def text(self, obj: Any, ptr: str, limit: int, plain_only: bool = False) -> None:
        if not isinstance(obj, dict):
            self.fail("must provide an object", ptr)
            return
        ttype = obj.get("type")
        allowed = ("plain_text",) if plain_only else ("plain_text", "mrkdwn")
        if ttype not in allowed:
            self.fail(f"must be one of {', '.join(allowed)}", f"{ptr}/type")
        text = obj.get("text")
        if not isinstance(text, str):
            self.fail("missing required field: text", ptr)
            return
        if not text:
            self.fail("must be more than 0 characters", f"{ptr}/text")
        self.max_len(text, limit, f"{ptr}/text")

    def max_len(self, value: Any, limit: int, ptr: str) -> bool:
        """True when ``value`` is absent or fits; records the error otherwise."""
        if value is None:
            return True
        if not isinstance(value, str):
            self.fail("must be a string", ptr)
            return False
        if len(value) > limit:
            self.fail(f"must be less than {limit + 1} characters", ptr)
            return False
        return True


def _all_options(element: dict[str, Any]) -> list[Any]:
    options = element.get("options")
    if isinstance(options, list):
        return options
    found: list[Any] = []
    for group in element.get("option_groups") or []:
        if isinstance(group, dict) and isinstance(group.get("options"), list):
            found.extend(group["options"])
    return found


def _option_key(option: dict[str, Any]) -> tuple[str, str, str] | None:
    text = option.get("text")
    if not isinstance(text, dict):
        return None
    return (str(text.get("type")), str(text.get("text")), str(option.get("value")))
