"""Text helpers: escaping for mrkdwn and splitting long text within Slack's limits."""

from __future__ import annotations

SECTION_TEXT_MAX = 3000


def escape_mrkdwn(text: str) -> str:
    """Escape the three characters Slack's mrkdwn gives meaning to (``&``, ``<``, ``>``)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


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
