"""One helper writes Slack's date tokens, with a fallback a person can read."""

from __future__ import annotations

import pathlib

from suggestbot.ui.blocks.dates import slack_date

AT = 1_700_000_000  # 2023-11-14 22:13:20 UTC


def test_the_fallback_is_a_date_in_the_messages_language_not_an_epoch() -> None:
    assert (
        slack_date(AT, "de")
        == "<!date^1700000000^{date_short_pretty} {time}|14.11.2023, 22:13 UTC>"
    )
    assert slack_date(AT, "de", time_only=True) == "<!date^1700000000^{time_secs}|22:13:20 UTC>"
    assert slack_date(AT + 0.9, "en").startswith("<!date^1700000000^")
    assert "|1700000000>" not in slack_date(AT, "en")


def test_no_other_module_writes_a_date_token() -> None:
    src = pathlib.Path(__file__).parents[2] / "src" / "suggestbot"
    writers = [
        p.relative_to(src).as_posix()
        for p in src.rglob("*.py")
        if "<!date^" in p.read_text() and p.parts[-2] != "demo"
    ]
    assert writers == ["ui/blocks/dates.py"]
