"""The words of the history modals: a thread's turns, a refinement's lineage, a brief's set,
and the line at the top (what is shown, or why nothing is).

The flows read the service and pass plain values (numbers, epoch seconds, instructions); the
modal itself is ``thread_modals.build_history_modal``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from suggestbot.ui.blocks.dates import slack_date
from suggestbot.ui.blocks.lists import excerpt
from suggestbot.ui.blocks.text import escape_mrkdwn
from suggestbot.ui.blocks.turns import quote
from suggestbot.ui.messages import t, tn

SET_EXCERPT_MAX = 300

HistoryProblem = Literal["connect", "not_visible", "unavailable", "no_result"]
"""No linked account, nothing this person may see, the service away, a run without a result."""

_PROBLEMS: dict[HistoryProblem, str] = {
    "connect": "lists.connect",
    "not_visible": "history.not_visible",
    "unavailable": "lists.unavailable",
    "no_result": "history.no_result",
}


@dataclass(frozen=True)
class TurnEntry:
    """One turn of a thread. ``instruction`` None: the original; ``by_other``: someone else's
    refinement of shared content, shown without their instruction."""

    version: int
    at: int  # epoch seconds
    instruction: str | None
    by_other: bool = False


@dataclass(frozen=True)
class LineageStep:
    """One earlier step of a refined suggestion; ``instruction`` None: the original variant."""

    at: int  # epoch seconds
    instruction: str | None
    variant: int | None = None


@dataclass(frozen=True)
class SetVariant:
    number: int
    kind: str  # the service's kind, e.g. ``email``
    text: str  # the body, after the subject for an email


def history_problem(*, lang: str, problem: HistoryProblem) -> str:
    """The modal's top line when there is nothing to show."""
    return t(_PROBLEMS[problem], lang)


def thread_intro(*, lang: str, name: str | None, turns: int) -> str:
    shown = escape_mrkdwn(name) if name else t("lists.unnamed", lang)
    return tn("history.thread_intro", lang, name=shown, count=turns)


def thread_entries(*, lang: str, turns: Sequence[TurnEntry]) -> list[str]:
    """A thread's turns, oldest first, each with the instruction that produced it."""
    entries = []
    for turn in sorted(turns, key=lambda turn: turn.version):
        when = slack_date(turn.at, lang)
        if turn.instruction is None:
            entries.append(t("history.turn_first", lang, n=turn.version, when=when))
        elif turn.by_other:
            entries.append(t("history.turn_other", lang, n=turn.version, when=when))
        else:
            head = t("history.turn", lang, n=turn.version, when=when)
            entries.append(head + "\n" + quote(turn.instruction))
    return entries


def lineage_intro(*, lang: str, steps: int) -> str:
    return tn("history.lineage_intro", lang, count=steps)


def lineage_entries(
    *, lang: str, earlier: Sequence[LineageStep], at: int, instruction: str
) -> list[str]:
    """A refined suggestion's history, original first, ending with the run's own instruction
    (``instruction``, run at ``at``)."""
    entries = []
    for number, step in enumerate(earlier, start=1):
        when = slack_date(step.at, lang)
        if step.instruction is None:
            original = t("history.original", lang, n=number, when=when, variant=step.variant)
            entries.append(original)
        else:
            head = t("history.step", lang, n=number, when=when)
            entries.append(head + "\n" + quote(step.instruction))
    now = t("history.now", lang, n=len(earlier) + 1, when=slack_date(at, lang))
    entries.append(now + "\n" + quote(instruction))
    return entries


def set_intro(*, lang: str, count: int, instruction: str) -> str:
    """Above a brief's variants: how many, then the brief."""
    return tn("history.set_intro", lang, count=count) + "\n" + quote(instruction)


def set_entries(*, lang: str, variants: Sequence[SetVariant]) -> list[str]:
    entries = []
    for variant in variants:
        kind = t(f"variant.kind.{variant.kind}", lang)
        head = t("history.variant", lang, n=variant.number, kind=kind)
        entries.append(head + "\n" + escape_mrkdwn(excerpt(variant.text, SET_EXCERPT_MAX)))
    return entries
