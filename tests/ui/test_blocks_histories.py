"""The history modals' words, in English and German: turns, lineage, a brief's set, and the top
line when there is nothing to show."""

from __future__ import annotations

import pytest

from suggestbot.ui.blocks.dates import slack_date
from suggestbot.ui.blocks.histories import (
    HistoryProblem,
    LineageStep,
    SetVariant,
    TurnEntry,
    history_problem,
    lineage_entries,
    lineage_intro,
    set_entries,
    set_intro,
    thread_entries,
    thread_intro,
)

AT = 1_900_000_000
WHEN = f"<!date^{AT}^"


@pytest.mark.parametrize(
    ("lang", "turn", "original", "other", "intro", "unnamed"),
    [
        ("en", "*Turn", "the original", "refined by someone else", "2 turns, oldest first.",
         "*Unnamed thread* · 1 turn,"),
        ("de", "*Runde", "das Original", "von jemand anderem verfeinert", "2 Runden, älteste",
         "*Thread ohne Namen* · 1 Runde,"),
    ],
)  # fmt: skip
def test_a_threads_turns_oldest_first_without_other_peoples_instructions(
    lang: str, turn: str, original: str, other: str, intro: str, unnamed: str
) -> None:
    turns = [
        TurnEntry(version=3, at=AT, instruction="their secret plan", by_other=True),
        TurnEntry(version=2, at=AT, instruction="Make it <warmer>"),
        TurnEntry(version=1, at=AT, instruction=None),
    ]
    first, second, third = thread_entries(lang=lang, turns=turns)
    assert first.startswith(f"{turn} 1* · {WHEN}") and first.endswith(original)
    assert second.startswith(f"{turn} 2*") and "Make it &lt;warmer&gt;" in second
    assert third.endswith(other) and "secret" not in third
    assert thread_intro(lang=lang, name="Tent <launch>", turns=2).startswith(
        "*Tent &lt;launch&gt;* · "
    )
    assert intro in thread_intro(lang=lang, name="Tent", turns=2)
    assert thread_intro(lang=lang, name=None, turns=1).startswith(unnamed)


@pytest.mark.parametrize(
    ("lang", "original", "refined", "now", "steps"),
    [
        ("en", "Original (variant 2)", "Refined", "This result", "(3 steps)"),
        ("de", "Original (Variante 2)", "Verfeinert", "Dieses Ergebnis", "(3 Schritte)"),
    ],
)
def test_a_lineage_runs_from_the_original_to_this_result(
    lang: str, original: str, refined: str, now: str, steps: str
) -> None:
    earlier = [
        LineageStep(at=AT, instruction=None, variant=2),
        LineageStep(at=AT, instruction="Shorter"),
    ]
    entries = lineage_entries(lang=lang, earlier=earlier, at=AT + 60, instruction="Warmer")
    assert entries[0] == f"*1.* {original} · {slack_date(AT, lang)}"
    assert entries[1].startswith(f"*2.* {refined}") and "Shorter" in entries[1]
    assert entries[2].startswith(f"*3.* {now} · <!date^{AT + 60}^") and "Warmer" in entries[2]
    assert steps in lineage_intro(lang=lang, steps=3)


@pytest.mark.parametrize(
    ("lang", "intro", "email", "social"),
    [
        ("en", "2 variants from the brief:", "*Variant 1* · Email", "*Variant 2* · Social post"),
        ("de", "2 Varianten aus dem Briefing:", "*Variante 1* · E-Mail", "Social-Post"),
    ],
)
def test_a_briefs_set_lists_each_variant_with_its_kind(
    lang: str, intro: str, email: str, social: str
) -> None:
    variants = [
        SetVariant(number=1, kind="email", text="Trail days — Join us " + "word " * 100),
        SetVariant(number=2, kind="social_single_image", text="Spring <is> here"),
    ]
    first, second = set_entries(lang=lang, variants=variants)
    head, body = first.split("\n")
    assert head == email and body.startswith("Trail days — Join us") and len(body) <= 300
    assert body.endswith("…")
    assert social in second and "Spring &lt;is&gt; here" in second
    assert set_intro(lang=lang, count=2, instruction="Spring launch").startswith(intro + "\n")


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", {"connect": "Connect your content service account first",
                "not_visible": ":lock: You can't see this", "unavailable": "could not be reached",
                "no_result": "This run has no result (yet)."}),
        ("de", {"connect": "Verknüpfe zuerst dein Konto", "not_visible": ":lock: Das kannst du",
                "unavailable": "war nicht erreichbar",
                "no_result": "Dieser Lauf hat (noch) kein Ergebnis."}),
    ],
)  # fmt: skip
def test_nothing_to_show_says_why(lang: str, words: dict[HistoryProblem, str]) -> None:
    for problem, expected in words.items():
        assert expected in history_problem(lang=lang, problem=problem)
