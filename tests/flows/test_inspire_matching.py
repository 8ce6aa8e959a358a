"""Reading ``/suggest inspire`` arguments: names in any case, unique prefixes, ids, options."""

from __future__ import annotations

import pytest

from suggestbot.flows.inspiration.matching import match_options, parse_inspire, resolve_pair

SEGMENTS = [
    ("0190c0de-5eed-7000-8000-00000000a101", "Weekend Hikers"),
    ("0190c0de-5eed-7000-8000-00000000a102", "Trail Runners"),
    ("0190c0de-5eed-7000-8000-00000000a104", "Trail Walkers"),
]
USE_CASES = [
    ("0190c0de-5eed-7000-8000-00000000a201", "Spring Launch"),
    ("0190c0de-5eed-7000-8000-00000000a202", "Loyalty Reward"),
    ("0190c0de-5eed-7000-8000-00000000a203", "Social Teaser"),
]


def test_options_are_read_anywhere() -> None:
    args = parse_inspire("weekend --version 3 spring --refresh")
    assert args.words == ("weekend", "spring")
    assert args.version == 3 and args.refresh and args.error is None
    assert parse_inspire("--version=2").version == 2
    assert parse_inspire('"Weekend Hikers" "Spring Launch"').words == (
        "Weekend Hikers",
        "Spring Launch",
    )
    # An unbalanced quote is plain text, not an error.
    assert parse_inspire('weekend "spring').words == ("weekend", '"spring')


@pytest.mark.parametrize("bad", ["--version", "--version 0", "--version x", "--verbose"])
def test_bad_options_are_named(bad: str) -> None:
    assert parse_inspire(f"weekend {bad}").error is not None


def test_match_by_name_any_case_prefix_or_id() -> None:
    assert match_options("WEEKEND hikers", SEGMENTS) == [SEGMENTS[0]]
    assert match_options("week", SEGMENTS) == [SEGMENTS[0]]
    assert match_options("trail", SEGMENTS) == SEGMENTS[1:]
    assert match_options(SEGMENTS[1][0].upper(), SEGMENTS) == [SEGMENTS[1]]
    assert match_options("0190c0de-5eed-7000-8000-00000000a10", SEGMENTS) == SEGMENTS
    assert match_options("0190", SEGMENTS) == []  # ids need 8 characters to be a prefix
    assert match_options("kayak", SEGMENTS) == []


def test_names_with_spaces_need_no_quotes() -> None:
    found = resolve_pair(
        ["weekend", "hikers", "spring", "launch"], segments=SEGMENTS, use_cases=USE_CASES
    )
    assert found.complete
    assert found.segment.chosen == SEGMENTS[0] and found.use_case.chosen == USE_CASES[0]
    found = resolve_pair(["trail", "runners", "loyal"], segments=SEGMENTS, use_cases=USE_CASES)
    assert found.segment.chosen == SEGMENTS[1] and found.use_case.chosen == USE_CASES[1]


def test_missing_or_ambiguous_sides_become_choices() -> None:
    nothing = resolve_pair([], segments=SEGMENTS, use_cases=USE_CASES)
    assert nothing.segment.choices == tuple(SEGMENTS) and nothing.use_case.choices == tuple(
        USE_CASES
    )
    only_segment = resolve_pair(["weekend"], segments=SEGMENTS, use_cases=USE_CASES)
    assert only_segment.segment.chosen == SEGMENTS[0]
    assert only_segment.use_case.choices == tuple(USE_CASES)
    ambiguous = resolve_pair(["trail", "social"], segments=SEGMENTS, use_cases=USE_CASES)
    assert ambiguous.segment.chosen is None
    assert ambiguous.segment.choices == tuple(SEGMENTS[1:])
    assert ambiguous.use_case.chosen == USE_CASES[2]


def test_unknown_words_are_reported_with_every_choice() -> None:
    found = resolve_pair(["kayak", "spring"], segments=SEGMENTS, use_cases=USE_CASES)
    assert found.unknown_text == "kayak spring"
    assert not found.complete
    assert found.segment.choices == tuple(SEGMENTS)
