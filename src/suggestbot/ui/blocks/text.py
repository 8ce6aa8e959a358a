"""Text helpers: escaping for mrkdwn and splitting long text within Slack's limits."""

from __future__ import annotations

import re
from typing import Any

from suggestbot.ui.messages import t

SECTION_TEXT_MAX = 3000
# Slack refuses a message (``msg_blocks_too_long``) once the text in its blocks adds up past a
# limit it does not document: refusals were reported from about 11,300 characters on
# (slackapi/bolt-js #2509, #2867). Every message this app builds keeps its block text within
# this budget, with room left for what is added around a variant (an intro, a hint).
MESSAGE_TEXT_BUDGET = 10_000
# A modal's title and its submit and close buttons (Slack refuses the whole view past this).
VIEW_TEXT_MAX = 24


# What a person typed, shown back inside a sentence ("I don't know `/suggest …`"): at most
# this many characters, so a sentence stays far inside a section's 3,000 (and a field error's
# room under its input) whatever was typed.
QUOTE_MAX = 100


def cut(text: str, *, limit: int = QUOTE_MAX) -> str:
    """``text`` as typed, to quote back in plain text: on one line, at most ``limit``
    characters (ending "…" when cut)."""
    one_line = " ".join(mend(text).split())
    if len(one_line) > limit:
        one_line = one_line[: limit - 1].rstrip() + "…"
    return one_line


def quote(text: str, *, limit: int = QUOTE_MAX) -> str:
    """``text`` as typed, to quote back in mrkdwn: :func:`cut`, escaped, and without backticks
    that would end a code span early."""
    return escape_mrkdwn(cut(text, limit=limit).replace("`", "\u02cb"))


def mend(text: str) -> str:
    """``text`` with each lone surrogate (``"\\ud800"`` through a JSON escape: no character at
    all, which cannot be sent on) shown as U+FFFD, the replacement character."""
    return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)


def escape_mrkdwn(text: str) -> str:
    """Escape the three characters Slack's mrkdwn gives meaning to (``&``, ``<``, ``>``)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# What standard markdown gives meaning to anywhere in a line, and at its start.
_MARKDOWN_INLINE = re.compile(r"([\\`*_~\[\]<>|])")
_MARKDOWN_LINE_START = re.compile(r"^(\s*)([#=]|[-+](?=\s))", re.MULTILINE)
_MARKDOWN_NUMBERED = re.compile(r"^(\s*\d+)([.)])(?=\s)", re.MULTILINE)


def escape_markdown(text: str) -> str:
    """Plain text for a ``markdown`` block, shown as typed: each character markdown would read
    (emphasis, code, links, tables, HTML) and each line start it would turn into a heading or a
    list is escaped with a backslash. Line breaks stay line breaks."""
    escaped = _MARKDOWN_INLINE.sub(r"\\\1", text)
    escaped = _MARKDOWN_LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), escaped)
    # A backslash before a digit is no escape: a numbered line is kept by escaping its dot.
    return _MARKDOWN_NUMBERED.sub(lambda m: m.group(1) + "\\" + m.group(2), escaped)


def unescape_markdown(text: str) -> str:
    """The text :func:`escape_markdown` was given."""
    return re.sub(r"\\(.)", r"\1", text, flags=re.DOTALL)


def split_text(text: str, *, limit: int = SECTION_TEXT_MAX) -> list[str]:
    """Split ``text`` into chunks of at most ``limit`` characters.

    Cuts prefer a paragraph break, then a line break, then a space, so a long email body reads
    naturally across several section blocks; a single unbroken run is cut hard.
    """
    chunks: list[str] = []
    rest = text
    while len(rest) > limit:
        window = rest[:limit]
        cut = max(window.rfind("\n\n"), 0)
        if cut < limit // 2:
            cut = window.rfind("\n")
        if cut < limit // 2:
            cut = window.rfind(" ")
        if cut <= 0:
            cut = limit
        chunks.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip("\n ")
    if rest or not chunks:
        chunks.append(rest)
    return chunks


def block_text_length(value: Any) -> int:
    """Characters of text in a block (as a dict), the way Slack adds them up per message."""
    if isinstance(value, list):
        return sum(block_text_length(item) for item in value)
    if not isinstance(value, dict):
        return 0
    total = 0
    for key, item in value.items():
        total += len(item) if key == "text" and isinstance(item, str) else block_text_length(item)
    return total


def view_text(key: str, lang: str) -> str:
    """A modal's title or button text: cut to Slack's 24 characters with "…" rather than have
    the modal refused (the tests keep every enabled language within it; the pseudo-locale is
    not)."""
    text = t(key, lang)
    return text if len(text) <= VIEW_TEXT_MAX else text[: VIEW_TEXT_MAX - 1] + "…"
