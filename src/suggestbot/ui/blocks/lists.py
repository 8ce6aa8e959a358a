"""The user's recent threads and runs, one page at a time, each with a button to its history."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    HeaderBlock,
    SectionBlock,
)
from slack_sdk.models.blocks.basic_components import MarkdownTextObject, PlainTextObject

from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.dates import slack_date
from suggestbot.ui.blocks.notices import build_notice
from suggestbot.ui.blocks.results import MESSAGE_BLOCKS_MAX, Message
from suggestbot.ui.blocks.text import MESSAGE_TEXT_BUDGET, escape_mrkdwn
from suggestbot.ui.messages import has_key, t, tn

EXCERPT_MAX = 140
EXCERPT_MIN = 40
KNOWN_ORIGINS = frozenset({"precompute", "steered", "user_draft"})
# Room for the header, the "empty" or paging lines and the More button.
ITEMS_MAX = MESSAGE_BLOCKS_MAX - 4


@dataclass(frozen=True)
class ThreadItem:
    id: str
    name: str | None
    root_origin: str
    turn_count: int
    updated_at: int  # epoch seconds
    created_at: int = 0  # the listing's order (newest first)


@dataclass(frozen=True)
class RunItem:
    id: str
    type: str
    status: str
    created_at: int
    text: str
    history: bool  # a suggestion (lineage) or set to open


def excerpt(text: str, limit: int = EXCERPT_MAX) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def thread_line(item: ThreadItem, lang: str, *, number: int) -> str:
    name = escape_mrkdwn(item.name) if item.name else t("lists.unnamed", lang)
    known = item.root_origin in KNOWN_ORIGINS
    origin = (
        t(f"lists.origin.{item.root_origin}", lang) if known else escape_mrkdwn(item.root_origin)
    )
    return tn(
        "lists.thread_line",
        lang,
        n=number,
        name=name,
        origin=origin,
        count=item.turn_count,
        when=slack_date(item.updated_at, lang),
    )


def run_line(item: RunItem, lang: str, *, number: int, text_max: int = EXCERPT_MAX) -> str:
    refinement = item.type == "refinement"
    kind = t("lists.run_type.refinement", lang) if refinement else t("lists.run_type.brief", lang)
    status_key = f"lists.status.{item.status}"
    status = t(status_key, lang) if has_key(status_key) else escape_mrkdwn(item.status)
    return t(
        "lists.run_line",
        lang,
        n=number,
        kind=kind,
        status=status,
        when=slack_date(item.created_at, lang),
        text=escape_mrkdwn(excerpt(item.text, text_max)) if text_max else "",
    )


def _excerpt_room(lang: str, items: Sequence[RunItem], first: int) -> int:
    """How long each run's excerpt may be for a full page to stay within the message's text
    budget: dates, statuses and labels take more room in some languages than in others."""
    shown = items[:ITEMS_MAX]
    if not shown:
        return EXCERPT_MAX
    fixed = max(
        len(run_line(item, lang, number=n, text_max=0)) for n, item in enumerate(shown, first)
    )
    fixed += len(t("lists.history", lang, n=first + len(shown)))
    return max(EXCERPT_MIN, min(EXCERPT_MAX, MESSAGE_TEXT_BUDGET // len(shown) - fixed))


def _page(
    *,
    lang: str,
    title_key: str,
    empty_key: str,
    lines: Sequence[tuple[str, str | None]],
    action_id: str,
    more_value: str | None,
    first: int,
) -> Message:
    title = t(title_key, lang)
    blocks: list[Block] = [HeaderBlock(block_id="title", text=PlainTextObject(text=title))]
    if not lines:
        # Nothing of the user's among the pages read so far is not "nothing" while more remain.
        text = t("lists.none_yet_more" if more_value else empty_key, lang)
        blocks.append(SectionBlock(block_id="empty", text=MarkdownTextObject(text=text)))
    for i, (line, value) in enumerate(lines[:ITEMS_MAX]):
        accessory = (
            ButtonElement(
                text=t("lists.history", lang, n=first + i), action_id=action_id, value=value
            )
            if value
            else None
        )
        blocks.append(
            SectionBlock(
                block_id=f"item-{i}", text=MarkdownTextObject(text=line), accessory=accessory
            )
        )
    if more_value:
        blocks.append(
            ActionsBlock(
                block_id="paging",
                elements=[
                    ButtonElement(
                        text=t("lists.more", lang), action_id=ids.ACTION_LIST_MORE, value=more_value
                    )
                ],
            )
        )
    elif lines:
        blocks.append(
            ContextBlock(block_id="end", elements=[MarkdownTextObject(text=t("lists.end", lang))])
        )
    return Message(text=title, blocks=[b.to_dict() for b in blocks])


def build_thread_list(
    *, lang: str, items: Sequence[ThreadItem], more_value: str | None, first: int = 1
) -> Message:
    """A page of threads numbered from ``first`` (numbers continue across pages);
    ``more_value`` is the More button's value, or None at the end of the list."""
    return _page(
        lang=lang,
        title_key="lists.threads_title",
        empty_key="lists.threads_empty",
        lines=[(thread_line(item, lang, number=n), item.id) for n, item in enumerate(items, first)],
        action_id=ids.ACTION_THREAD_HISTORY,
        more_value=more_value,
        first=first,
    )


def build_run_list(
    *, lang: str, items: Sequence[RunItem], more_value: str | None, first: int = 1
) -> Message:
    """A page of runs numbered from ``first``; finished ones open their history (a lineage,
    or the set's variants)."""
    room = _excerpt_room(lang, items, first)
    return _page(
        lang=lang,
        title_key="lists.runs_title",
        empty_key="lists.runs_empty",
        lines=[
            (run_line(item, lang, number=n, text_max=room), item.id if item.history else None)
            for n, item in enumerate(items, first)
        ],
        action_id=ids.ACTION_RUN_HISTORY,
        more_value=more_value,
        first=first,
    )


ListNotice = Literal["connect", "expired", "unavailable"]
"""Why no list is shown: no linked account, a token the service refused, the service away."""

_LIST_NOTICES: dict[ListNotice, str] = {
    "connect": "lists.connect",
    "expired": "connect.expired",
    "unavailable": "lists.unavailable",
}


def build_list_notice(*, lang: str, notice: ListNotice) -> Message:
    """Said instead of a list (or beside it, when More cannot fetch the next page)."""
    return build_notice(lang=lang, text=t(_LIST_NOTICES[notice], lang))
