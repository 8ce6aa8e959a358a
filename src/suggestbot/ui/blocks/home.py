"""The App Home tab: link state, recent results, runs in progress, recent threads, digests, help.

A Home view holds at most 100 blocks; every list here is capped, and what does not fit is
counted in one line instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    SectionBlock,
)
from slack_sdk.models.blocks.basic_components import MarkdownTextObject, PlainTextObject
from slack_sdk.models.views import View

from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.dates import slack_date
from suggestbot.ui.blocks.lists import (
    RunItem,
    ThreadItem,
    excerpt,
    run_line,
    thread_line,
)
from suggestbot.ui.blocks.notices import help_languages
from suggestbot.ui.blocks.text import SECTION_TEXT_MAX, escape_mrkdwn
from suggestbot.ui.blocks.usage import UsagePanel, build_usage_blocks
from suggestbot.ui.messages import t, tn

HOME_BLOCKS_MAX = 100
RESULTS_SHOWN = 5
RUNS_SHOWN = 10
THREADS_SHOWN = 10
DIGESTS_SHOWN = 20


@dataclass(frozen=True)
class ResultItem:
    """A finished brief: what was asked, how it ended, and a link to its Slack thread."""

    text: str
    failed: bool
    variants: int
    created_at: int  # epoch seconds
    link: str | None = None


@dataclass(frozen=True)
class HomeData:
    """What one user's Home shows (everything already read; the builder does no I/O)."""

    link_state: str  # "linked", "expired" or "unlinked"
    linked_since: int | None = None
    results: Sequence[ResultItem] = ()
    runs: Sequence[RunItem] = ()
    threads: Sequence[ThreadItem] = ()
    digests: Sequence[str] = ()  # one mrkdwn line each, already escaped
    service_unavailable: bool = False
    extra_runs: int = 0
    more_threads: bool = False  # the service has more than are shown
    usage: UsagePanel | None = None  # the workspace's usage, shown to everyone in it
    content_locale: str = "en"  # the tenant's, in which the service writes the content


def _section(block_id: str, text: str) -> SectionBlock:
    return SectionBlock(block_id=block_id, text=MarkdownTextObject(text=text[:SECTION_TEXT_MAX]))


def _context(block_id: str, text: str) -> ContextBlock:
    return ContextBlock(block_id=block_id, elements=[MarkdownTextObject(text=text)])


def result_line(item: ResultItem, lang: str, *, number: int) -> str:
    status = (
        t("home.result_failed", lang)
        if item.failed
        else tn("home.result_ready", lang, count=item.variants)
    )
    line = t(
        "home.result_line",
        lang,
        n=number,
        status=status,
        when=slack_date(item.created_at, lang),
        text=escape_mrkdwn(excerpt(item.text)),
    )
    if item.link:
        line += "\n" + t("home.result_link", lang, link=item.link)
    return line


def _link_blocks(lang: str, data: HomeData) -> list[Block]:
    if data.link_state == "linked":
        text = t("home.linked", lang, since=slack_date(data.linked_since or 0, lang))
        buttons = [
            ButtonElement(
                text=t("home.disconnect", lang),
                action_id=ids.ACTION_HOME_DISCONNECT,
                value="disconnect",
                style="danger",
            )
        ]
    else:
        key = "home.expired" if data.link_state == "expired" else "home.unlinked"
        text = t(key, lang)
        buttons = [
            ButtonElement(
                text=t("connect.button", lang),
                action_id=ids.ACTION_CONNECT,
                value="home",
                style="primary",
            )
        ]
    buttons.append(
        ButtonElement(text=t("home.refresh", lang), action_id=ids.ACTION_HOME_REFRESH, value="home")
    )
    return [_section("link", text), ActionsBlock(block_id="link-actions", elements=buttons)]


def build_home(*, lang: str, data: HomeData) -> dict[str, Any]:
    """The Home view for one user."""
    blocks: list[Block] = [
        HeaderBlock(block_id="title", text=PlainTextObject(text=t("home.title", lang))),
        *_link_blocks(lang, data),
    ]
    if data.service_unavailable:
        blocks.append(_context("service", t("home.service_unavailable", lang)))

    blocks += [
        DividerBlock(block_id="results-divider"),
        _section("results-title", t("home.results", lang)),
    ]
    results = list(data.results[:RESULTS_SHOWN])
    if not results:
        blocks.append(_context("results-empty", t("home.results_empty", lang)))
    blocks += [
        _section(f"result-{i}", result_line(r, lang, number=i + 1)) for i, r in enumerate(results)
    ]

    blocks += [DividerBlock(block_id="runs-divider"), _section("runs-title", t("home.runs", lang))]
    runs = list(data.runs[:RUNS_SHOWN])
    if not runs:
        blocks.append(_context("runs-empty", t("home.runs_empty", lang)))
    blocks += [_section(f"run-{i}", run_line(r, lang, number=i + 1)) for i, r in enumerate(runs)]
    hidden_runs = data.extra_runs + len(data.runs) - len(runs)
    if hidden_runs > 0:
        blocks.append(_context("runs-more", tn("home.more_runs", lang, count=hidden_runs)))

    blocks += [
        DividerBlock(block_id="threads-divider"),
        _section("threads-title", t("home.threads", lang)),
    ]
    shown_threads = list(data.threads[:THREADS_SHOWN])
    if not shown_threads:
        blocks.append(_context("threads-empty", t("home.threads_empty", lang)))
    for i, item in enumerate(shown_threads):
        blocks.append(
            SectionBlock(
                block_id=f"thread-{i}",
                text=MarkdownTextObject(text=thread_line(item, lang, number=i + 1)),
                accessory=ButtonElement(
                    text=t("lists.history", lang, n=i + 1),
                    action_id=ids.ACTION_THREAD_HISTORY,
                    value=item.id,
                ),
            )
        )
    if data.more_threads or len(data.threads) > len(shown_threads):
        blocks.append(_context("threads-more", t("home.more_threads", lang)))

    blocks += [
        DividerBlock(block_id="digests-divider"),
        _section("digests-title", t("home.digests", lang)),
    ]
    digests = list(data.digests[:DIGESTS_SHOWN])
    if not digests:
        blocks.append(_context("digests-empty", t("home.digests_empty", lang)))
    blocks += [_section(f"digest-{i}", line) for i, line in enumerate(digests)]
    if len(data.digests) > len(digests):
        blocks.append(
            _context(
                "digests-more",
                t("home.more_digests", lang, count=len(data.digests) - len(digests)),
            )
        )

    if data.usage is not None:
        blocks += build_usage_blocks(lang=lang, panel=data.usage)

    blocks += [
        DividerBlock(block_id="help-divider"),
        HeaderBlock(block_id="help-title", text=PlainTextObject(text=t("help.title", lang))),
        _section("help", t("help.body", lang)),
        _section("help-languages", help_languages(lang=lang, content_locale=data.content_locale)),
    ]
    return View(type="home", blocks=blocks[:HOME_BLOCKS_MAX]).to_dict()
