"""Which ``message`` events are a person's reply in a thread, and what ``N:`` chooses."""

from __future__ import annotations

from typing import Any

import pytest

from suggestbot.ui.replies import parse_variant_choice, thread_reply

BOT = "U0BOT"


@pytest.mark.parametrize(
    ("text", "count", "expected"),
    [
        ("2: shorter please", 3, (2, "shorter please")),
        ("2 : shorter", 3, (2, "shorter")),
        ("2:shorter", 3, (2, "shorter")),
        ("  3:  warmer  ", 3, (3, "warmer")),
        ("1: line one\nline two", 2, (1, "line one\nline two")),
        ("2:", 3, (2, "")),
        ("10:30 works better", 3, (None, "10:30 works better")),
        ("2:30pm start", 3, (None, "2:30pm start")),
        ("4: too far", 3, (None, "4: too far")),
        ("0: nothing", 3, (None, "0: nothing")),
        ("make it 2: no", 3, (None, "make it 2: no")),
        ("  plain instruction ", 1, (None, "plain instruction")),
    ],
)
def test_parse_variant_choice(text: str, count: int, expected: tuple[int | None, str]) -> None:
    assert parse_variant_choice(text, count=count) == expected


def _event(**fields: Any) -> dict[str, Any]:
    event = {
        "type": "message",
        "channel": "C1",
        "user": "U1",
        "text": "shorter",
        "ts": "200.000001",
        "thread_ts": "100.000001",
        "team": "T1",
        "parent_user_id": BOT,
    }
    event.update(fields)
    return {k: v for k, v in event.items() if v is not None}


def test_a_persons_reply_in_the_bots_thread_counts() -> None:
    reply = thread_reply(_event(), bot_user_id=BOT)
    assert reply is not None
    assert (reply.team_id, reply.user_id, reply.channel) == ("T1", "U1", "C1")
    assert (reply.thread_ts, reply.ts, reply.text) == ("100.000001", "200.000001", "shorter")


def test_a_reply_also_sent_to_the_channel_counts() -> None:
    assert thread_reply(_event(subtype="thread_broadcast"), bot_user_id=BOT) is not None


def test_slack_escapes_are_undone() -> None:
    reply = thread_reply(_event(text="use &lt;b&gt; &amp; stars"), bot_user_id=BOT)
    assert reply is not None and reply.text == "use <b> & stars"


def test_team_comes_from_the_envelope_when_the_event_lacks_it() -> None:
    reply = thread_reply(_event(team=None), bot_user_id=BOT, team_id="T9")
    assert reply is not None and reply.team_id == "T9"


def test_a_reply_with_files_counts_by_its_text() -> None:
    files = [{"id": "F1", "name": "moodboard.png"}]
    reply = thread_reply(_event(subtype="file_share", files=files), bot_user_id=BOT)
    assert reply is not None and reply.with_files and reply.text == "shorter"
    plain = thread_reply(_event(), bot_user_id=BOT)
    assert plain is not None and not plain.with_files


def test_a_reply_of_files_alone_counts_so_its_author_can_be_told() -> None:
    event = _event(subtype="file_share", text="", files=[{"id": "F1"}])
    reply = thread_reply(event, bot_user_id=BOT)
    assert reply is not None and reply.with_files and reply.text == ""


@pytest.mark.parametrize(
    "fields",
    [
        {"subtype": "message_changed"},
        {"subtype": "message_deleted"},
        {"subtype": "bot_message", "bot_id": "B1"},
        {"subtype": "channel_join"},
        {"bot_id": "B2"},
        {"bot_profile": {"id": "B3"}},
        {"user": BOT},
        {"user": None},
        {"thread_ts": None},
        {"thread_ts": "200.000001"},  # the root itself
        {"parent_user_id": "U2"},  # a thread a person started
        {"text": "   "},
        {"type": "app_mention"},
        {"subtype": "file_share", "parent_user_id": "U2"},  # files in a person's thread
        {"subtype": "file_share", "bot_id": "B4"},
    ],
)
def test_everything_else_is_not_a_reply(fields: dict[str, Any]) -> None:
    event = _event(**{k: v for k, v in fields.items() if v is not None})
    for key in [k for k, v in fields.items() if v is None]:
        event.pop(key, None)
    assert thread_reply(event, bot_user_id=BOT) is None
