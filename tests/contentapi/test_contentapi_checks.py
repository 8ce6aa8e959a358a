"""Brief and thread-name checks return the service's own codes."""

from __future__ import annotations

import pytest

from suggestbot.contentapi import (
    MAX_BRIEF_CHARS,
    check_brief,
    check_thread_name,
    normalise_thread_name,
)


def test_4000_emoji_pass_and_4001_fail() -> None:
    # One code point each, four UTF-8 bytes, two UTF-16 units: only code points count.
    assert check_brief("😀" * 4000) is None
    assert check_brief("😀" * 4001) == "input_too_long"
    assert MAX_BRIEF_CHARS == 4000


def test_length_counts_surrounding_whitespace_as_sent() -> None:
    assert check_brief("a" * 4000) is None
    assert check_brief("a" * 3999 + "\n\n") == "input_too_long"


@pytest.mark.parametrize("text", ["", "   ", "\n\t \r\n", "\u3000"])
def test_empty_once_trimmed_is_rejected(text: str) -> None:
    assert check_brief(text) == "input_rejected"


@pytest.mark.parametrize(
    "text", ["null\x00byte", "bell\x07", "esc\x1b[31m", "del\x7f", "c1\x85", "lone \ud83d half"]
)
def test_control_characters_and_broken_text_are_invalid_encoding(text: str) -> None:
    assert check_brief(text) == "input_invalid_encoding"


@pytest.mark.parametrize(
    "text",
    [
        "Line one\nLine two\r\nThree\tcolumns",
        "Family: 👨\u200d👩\u200d👧 and flags 🇩🇪",  # joiners and format characters are text
        "Grüße aus Köln — «quotes» and ünïcödé",
    ],
)
def test_ordinary_text_with_line_breaks_and_tabs_passes(text: str) -> None:
    assert check_brief(text) is None


def test_nine_short_words_are_too_long() -> None:
    assert check_thread_name("a b c d e f g h i") == "thread_name_too_long"
    assert check_thread_name("a b c d e f g h") is None


def test_words_are_counted_after_whitespace_collapse() -> None:
    assert check_thread_name("  one   two  three four five six seven eight   ") is None


def test_sixty_characters_pass_and_sixty_one_fail() -> None:
    assert check_thread_name("x" * 60) is None
    assert check_thread_name("x" * 61) == "thread_name_too_long"
    # Length is measured after trimming and collapsing.
    assert check_thread_name("   " + "x" * 30 + "      " + "y" * 29 + "   ") is None


@pytest.mark.parametrize("name", ["", "   ", "\u00a0 \u3000"])
def test_empty_name(name: str) -> None:
    assert check_thread_name(name) == "thread_name_empty"


@pytest.mark.parametrize(
    "name",
    ["Spring\nsale", "Spring\r\nsale", "Spring sale\n", "Spring\tsale", "nul\x00", "a\u2028b"],
)
def test_line_breaks_and_control_characters_are_not_plain_text(name: str) -> None:
    # Checked on the raw input: normalising would turn the break into a space and hide it.
    assert check_thread_name(name) == "thread_name_not_plain_text"


def test_normalisation_trims_and_collapses() -> None:
    assert normalise_thread_name("  Spring    sale \u00a0 2025 ") == "Spring sale 2025"
    assert normalise_thread_name("Already fine") == "Already fine"
