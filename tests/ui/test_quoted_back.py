"""Everything a person typed that a message quotes back stays within the limit of the block it
lands in, however long the word: one test per place that quotes.

Built with ``slack_sdk.models.blocks``, an over-long text raises ``SlackObjectFormationError``
(a section's text is at most 3,000 characters); the emulator's Block Kit checks then read the
result as Slack would.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from suggestbot.slackemu.blockkit import check_message
from suggestbot.ui import field_errors
from suggestbot.ui.blocks.digest_notices import build_digest_not_found, build_digest_usage
from suggestbot.ui.blocks.inspiration import build_pair_picker
from suggestbot.ui.blocks.inspiration_notices import build_bad_option
from suggestbot.ui.blocks.notices import build_returned_text, build_unknown_subcommand
from suggestbot.ui.blocks.rename import build_rename_refused
from suggestbot.ui.blocks.results import Message
from suggestbot.ui.blocks.text import QUOTE_MAX, cut, quote

LONG_WORD = "x" * 3999 + "y"  # one 4,000-character word, as Slack allows in a command
SECTION_MAX = 3000


def _texts(message: Message) -> list[str]:
    return [str((b.get("text") or {}).get("text") or "") for b in message.blocks]


def _picker(word: str, *, unknown: bool) -> Message:
    return build_pair_picker(
        lang="en",
        asking="segment",
        typed="" if unknown else word,
        unknown=word if unknown else None,
        chosen=None,
        options=[("seg-1", "Retail")],
        values=["v1"],
    )


PLACES: dict[str, Callable[[str], Message]] = {
    "unknown /suggest subcommand": lambda w: build_unknown_subcommand(lang="en", sub=w),
    "unknown /suggest digest subcommand": lambda w: build_digest_usage(lang="de", sub=w),
    "digest id not found": lambda w: build_digest_not_found(lang="en", ref=w),
    "unknown inspire option": lambda w: build_bad_option(lang="en", option=w),
    "inspire words matching nothing": lambda w: _picker(w, unknown=True),
    "inspire words matching several": lambda w: _picker(w, unknown=False),
    "thread name refused": lambda w: build_rename_refused(
        lang="en", name=w, code="thread_name_too_long", retry_key="C1:1.0"
    ),
}


@pytest.mark.parametrize("place", sorted(PLACES))
def test_a_4000_character_word_is_cut_to_the_block(place: str) -> None:
    message = PLACES[place](LONG_WORD)  # raised SlackObjectFormationError before
    assert all(len(text) <= SECTION_MAX for text in _texts(message))
    assert check_message(blocks=message.blocks, slack_file_check=lambda f: None) == ([], None)
    shown = "\n".join(_texts(message))
    assert "x" * (QUOTE_MAX - 2) + "…" in shown  # its start, marked as cut
    assert "x" * QUOTE_MAX not in shown


@pytest.mark.parametrize("place", sorted(PLACES))
def test_a_short_word_is_quoted_whole_and_escaped(place: str) -> None:
    message = PLACES[place]("<!channel>&`x`")
    shown = "\n".join(_texts(message))
    assert "&lt;!channel&gt;&amp;" in shown  # no mention, no markup
    assert "`x`" not in shown  # its backticks cannot close the quote


def test_the_digest_modal_error_cuts_an_unknown_zone() -> None:
    errors: dict[str, Any] = field_errors.digest_form(
        lang="en",
        bad_time=False,
        bad_tz=LONG_WORD,
        no_weekdays=False,
        no_segment=False,
        no_use_case=False,
    )
    (message,) = errors.values()
    assert len(message) < 300
    assert cut(LONG_WORD) in message


def test_cut_and_quote() -> None:
    assert cut("a  b\nc") == "a b c"
    assert cut("abcdef", limit=4) == "abc…"
    assert quote("a*b<c") == "a*b&lt;c"
    assert len(quote(LONG_WORD)) == QUOTE_MAX


def test_text_handed_back_shows_a_broken_character_as_the_replacement_character() -> None:
    message = build_returned_text(lang="en", problem="Too long.", text="Autumn \ud800 teaser")
    shown = "\n".join(_texts(message))
    assert "Autumn \ufffd teaser" in shown
    shown.encode("utf-8")  # can be sent on: it raised UnicodeEncodeError before
    assert quote("a\ud800b") == "a\ufffdb"
