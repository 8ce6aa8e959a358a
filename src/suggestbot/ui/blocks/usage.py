"""The usage panel of App Home: what the workspace did over 7 and 30 days, and how people
rated the results per segment and use case."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from slack_sdk.models.blocks import Block, ContextBlock, DividerBlock, SectionBlock
from slack_sdk.models.blocks.basic_components import MarkdownTextObject

from suggestbot.ui.blocks.text import SECTION_TEXT_MAX, escape_mrkdwn
from suggestbot.ui.messages import percent, t, tn

RATES_SHOWN = 8


@dataclass(frozen=True)
class RateLine:
    """Votes on one segment and use case: thumbs up and all votes, over 7 and 30 days."""

    segment: str
    use_case: str
    up_7: int
    votes_7: int
    up_30: int
    votes_30: int


@dataclass(frozen=True)
class UsagePanel:
    briefs_7: int = 0
    refinements_7: int = 0
    digests_7: int = 0
    briefs_30: int = 0
    refinements_30: int = 0
    digests_30: int = 0
    rates: Sequence[RateLine] = field(default_factory=tuple)


def _rate(lang: str, up: int, votes: int) -> str:
    if not votes:
        return t("home.usage_no_votes", lang)
    return tn("home.usage_rate", lang, count=votes, percent=percent(up / votes, lang))


def build_usage_blocks(*, lang: str, panel: UsagePanel) -> list[Block]:
    """The panel's blocks (at most :data:`RATES_SHOWN` rate lines, most voted first)."""
    counts = "\n".join(
        t(
            "home.usage_counts",
            lang,
            days=days,
            briefs=tn("home.usage_briefs", lang, count=briefs),
            refinements=tn("home.usage_refinements", lang, count=refinements),
            digests=tn("home.usage_digests", lang, count=digests),
        )
        for days, briefs, refinements, digests in (
            (7, panel.briefs_7, panel.refinements_7, panel.digests_7),
            (30, panel.briefs_30, panel.refinements_30, panel.digests_30),
        )
    )
    blocks: list[Block] = [
        DividerBlock(block_id="usage-divider"),
        SectionBlock(block_id="usage-title", text=MarkdownTextObject(text=t("home.usage", lang))),
        SectionBlock(block_id="usage-counts", text=MarkdownTextObject(text=counts)),
    ]
    if not panel.rates:
        empty = t("home.usage_rates_empty", lang)
        blocks.append(
            ContextBlock(block_id="usage-rates", elements=[MarkdownTextObject(text=empty)])
        )
        return blocks
    lines = [
        t(
            "home.usage_rate_line",
            lang,
            segment=escape_mrkdwn(line.segment),
            use_case=escape_mrkdwn(line.use_case),
            week=_rate(lang, line.up_7, line.votes_7),
            month=_rate(lang, line.up_30, line.votes_30),
        )
        for line in panel.rates[:RATES_SHOWN]
    ]
    text = "\n".join([t("home.usage_rates", lang), *lines])[:SECTION_TEXT_MAX]
    blocks.append(SectionBlock(block_id="usage-rates", text=MarkdownTextObject(text=text)))
    return blocks
