"""Checks run before sending, returning the service's own error codes.

The app checks a brief and a thread name locally so the user hears about a mistake at once and
keeps what they typed; the service checks again and stays the authority. Each function returns
the code the service would answer with (section 7 of the contract) or None.

Lengths are Unicode code points (Python's ``len``), as the contract counts them: not bytes, not
UTF-16 units. An emoji like 😀 is one character.
"""

from __future__ import annotations

import re
from typing import Final

# Contract limits (section 8).
MAX_BRIEF_CHARS: Final = 4000
MAX_VARIANTS: Final = 3
MAX_THREAD_NAME_CHARS: Final = 60
MAX_THREAD_NAME_WORDS: Final = 8
MAX_PAGE_LIMIT: Final = 100
MAX_REFS_PER_CALL: Final = 100

INPUT_TOO_LONG: Final = "input_too_long"
INPUT_REJECTED: Final = "input_rejected"
INPUT_INVALID_ENCODING: Final = "input_invalid_encoding"
THREAD_NAME_EMPTY: Final = "thread_name_empty"
THREAD_NAME_TOO_LONG: Final = "thread_name_too_long"
THREAD_NAME_NOT_PLAIN_TEXT: Final = "thread_name_not_plain_text"

# C0 and C1 control characters except tab, line feed and carriage return, plus lone surrogates
# (what a bad decode leaves behind: text that cannot be encoded as UTF-8).
_BRIEF_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
# Every control character including tab and line breaks, the Unicode line and paragraph
# separators, and lone surrogates.
_NAME_FORBIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def is_invalid_text(text: str) -> bool:
    """True when ``text`` holds what the service refuses as ``input_invalid_encoding``.

    That is control characters other than tab and line breaks, and lone surrogates (which
    arrive through JSON escapes such as ``"\\ud800"`` and cannot be encoded at all: sent on,
    they fail inside the HTTP client instead of reaching the service). Every text a user types
    is checked with this before it is stored or sent.
    """
    return _BRIEF_FORBIDDEN.search(text) is not None


def check_brief(text: str) -> str | None:
    """Check a brief (``steering_text``) as the service will.

    Args:
        text: the brief as the user typed it.

    Returns:
        ``input_invalid_encoding`` for control characters other than line breaks and tabs (or
        text that is not valid Unicode), ``input_rejected`` when nothing is left once trimmed,
        ``input_too_long`` above 4000 code points, otherwise None. The first that applies wins,
        in that order.
    """
    if is_invalid_text(text):
        return INPUT_INVALID_ENCODING
    if not text.strip():
        return INPUT_REJECTED
    if len(text) > MAX_BRIEF_CHARS:
        return INPUT_TOO_LONG
    return None


def normalise_thread_name(name: str) -> str:
    """Trim and collapse every whitespace run to one space, as the service stores a name."""
    return " ".join(name.split())


def check_thread_name(name: str) -> str | None:
    """Check a thread name as the service will.

    The contract says the service trims and collapses whitespace before validating, yet also
    rejects names that contain line breaks; collapsing first would turn every line break into a
    space and make that rule unreachable. So control characters (line breaks and tabs
    included) are looked for in the raw input, before normalising. Being stricter than the
    service here costs nothing: Slack's single-line input cannot produce them.

    Args:
        name: the name as the user typed it.

    Returns:
        ``thread_name_not_plain_text``, ``thread_name_empty`` or ``thread_name_too_long`` (more
        than 60 characters or more than 8 words once normalised), the first that applies in that
        order, otherwise None.
    """
    if _NAME_FORBIDDEN.search(name):
        return THREAD_NAME_NOT_PLAIN_TEXT
    normalised = normalise_thread_name(name)
    if not normalised:
        return THREAD_NAME_EMPTY
    if len(normalised) > MAX_THREAD_NAME_CHARS:
        return THREAD_NAME_TOO_LONG
    if len(normalised.split(" ")) > MAX_THREAD_NAME_WORDS:
        return THREAD_NAME_TOO_LONG
    return None
