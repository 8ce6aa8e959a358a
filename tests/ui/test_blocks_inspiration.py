"""Builders for ready-made content and digests: within Slack's limits, in both languages."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Any

import pytest

from suggestbot.slackemu.blockkit import MAX_MESSAGE_TEXT, check_message, check_view
from suggestbot.store.records import Digest
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.digests import build_digest_list, build_digest_modal, home_line
from suggestbot.ui.blocks.inspiration import (
    Labels,
    build_digest_line,
    build_digest_message,
    build_digest_quiet_line,
    build_empty_answer,
    build_inspiration_answer,
    build_picker,
    digest_late_note,
    pick_value,
    read_pick_value,
    shorten,
)
from suggestbot.ui.blocks.results import Variant
from suggestbot.ui.messages import t, tn

LABELS = Labels(segment="Weekend <Hikers>", use_case="Spring & Launch")


def variant(n: int, total: int, *, body_chars: int = 400) -> Variant:
    social = n % 2 == 0
    return Variant(
        suggestion_id=f"0190c0de-5eed-7000-8000-{n:012x}",
        number=n,
        total=total,
        kind="social_single_image" if social else "email",
        body=("word " * (body_chars // 5)).strip(),
        subject=None if social else f"Subject {n}",
        image_url=f"https://images.example/{n}.png?sig=abc" if social else None,
        alt_text="A tent on a ridge" if social else None,
    )


def errors_of(blocks: list[dict[str, Any]], text: str) -> list[str]:
    errors, too_long = check_message(blocks=blocks, slack_file_check=lambda f: None)
    truncated = ["message_truncated"] if len(text) > MAX_MESSAGE_TEXT else []
    return errors + ([too_long] if too_long else []) + truncated


def buttons(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for b in blocks if b["type"] == "actions" for e in b["elements"]]


@pytest.mark.parametrize("lang", ["en", "de"])
def test_answer_has_unique_share_and_refine_buttons_per_variant(lang: str) -> None:
    variants = [variant(n, 4, body_chars=5000) for n in range(1, 5)]
    message = build_inspiration_answer(
        lang=lang,
        labels=LABELS,
        version=3,
        newest=True,
        variants=variants,
        offer_id="f" * 32,
        notes=["a note"],
    )
    assert errors_of(message.blocks, message.text) == []
    labels = [b["text"]["text"] for b in buttons(message.blocks)]
    assert len(labels) == 8 and len(set(labels)) == 8
    values = {b["value"] for b in buttons(message.blocks)}
    assert values == {f"{'f' * 32}:{v.suggestion_id}" for v in variants}
    assert {b["action_id"] for b in buttons(message.blocks)} == {
        ids.ACTION_INSPIRE_SHARE,
        ids.ACTION_INSPIRE_REFINE,
    }
    # Names are escaped for mrkdwn; two images, each with alt text.
    assert "Weekend &lt;Hikers&gt;" in message.blocks[0]["text"]["text"]
    images = [b for b in message.blocks if b["type"] == "image"]
    assert len(images) == 2 and all(i["alt_text"] for i in images)


def test_a_digest_is_one_message_within_limits_however_large_the_set() -> None:
    many = [variant(n, 15, body_chars=4000) for n in range(1, 16)]
    message = build_digest_message(
        lang="en", labels=LABELS, version=7, variants=many, late_note="late"
    )
    assert errors_of(message.blocks, message.text) == []
    assert len(message.blocks) <= 50
    shown = "\n".join(
        b["text"]["text"] for b in message.blocks if b["type"] == "section" and "text" in b
    )
    assert "Variant 1 of 15" in shown
    assert any(
        "did not fit" in e["text"]
        for b in message.blocks
        if b["type"] == "context"
        for e in b["elements"]
    )
    assert buttons(message.blocks) == []  # refined by replying in its thread


@pytest.mark.parametrize("lang", ["en", "de"])
def test_an_answer_with_many_long_variants_stays_under_the_block_text_cap(lang: str) -> None:
    # 11 variants fit in 50 blocks, but not in the text Slack takes per message.
    many = [variant(n, 11, body_chars=3000) for n in range(1, 12)]
    message = build_inspiration_answer(
        lang=lang, labels=LABELS, version=2, newest=True, variants=many, offer_id="f" * 32
    )
    assert errors_of(message.blocks, message.text) == []
    shown = len(buttons(message.blocks)) // 2
    assert 1 < shown < 11
    left_out = tn("inspire.left_out", lang, count=11 - shown)
    assert left_out in str(message.blocks)


def test_picker_splits_many_options_into_blocks_with_unique_action_ids() -> None:
    options = [(f"id-{n}", f"Segment {n}") for n in range(30)]
    message = build_picker(
        lang="en",
        intro="Which segment?",
        options=options,
        values=[pick_value(segment_id=i, use_case_id="u", version=2) for i, _ in options],
        chosen="Use case: *X*",
    )
    assert errors_of(message.blocks, message.text) == []
    actions = [b for b in message.blocks if b["type"] == "actions"]
    assert [len(a["elements"]) for a in actions] == [25, 5]
    all_ids = [e["action_id"] for a in actions for e in a["elements"]]
    assert len(set(all_ids)) == 30 and all(i.startswith(ids.ACTION_INSPIRE_PICK) for i in all_ids)
    assert read_pick_value(actions[1]["elements"][0]["value"]) == {"s": "id-25", "u": "u", "v": 2}


def test_empty_answers_offer_what_can_help() -> None:
    generate = pick_value(segment_id="s", use_case_id="u")
    empty = build_empty_answer(
        lang="en",
        labels=LABELS,
        version=None,
        newest_version=None,
        locale_mismatch=None,
        generate_value=generate,
    )
    assert [b["text"]["text"] for b in buttons(empty.blocks)] == ["Generate now"]
    missing = build_empty_answer(
        lang="de",
        labels=LABELS,
        version=9,
        newest_version=2,
        locale_mismatch=None,
        generate_value=generate,
    )
    assert "Version 9" in missing.text and [b["text"]["text"] for b in buttons(missing.blocks)] == [
        "Neueste zeigen"
    ]
    wrong_locale = build_empty_answer(
        lang="en",
        labels=LABELS,
        version=None,
        newest_version=None,
        locale_mismatch=("de", "en"),
        generate_value=generate,
    )
    assert buttons(wrong_locale.blocks) == [] and "CONTENT_LOCALE=en" in wrong_locale.text


@pytest.mark.parametrize("lang", ["en", "de"])
def test_digest_modal_defaults(lang: str) -> None:
    view = build_digest_modal(
        lang=lang,
        segments=[("s1", "Weekend Hikers")],
        use_cases=[("u1", "Spring Launch")],
        tz="America/New_York",
        private_metadata='{"channel":"C1"}',
    )
    assert check_view(view, slack_file_check=lambda f: None) == []
    inputs = {b["block_id"]: b["element"] for b in view["blocks"] if b["type"] == "input"}
    assert inputs[ids.INPUT_DIGEST_TZ]["initial_value"] == "America/New_York"
    assert inputs[ids.INPUT_DIGEST_TIME]["type"] == "timepicker"
    assert [o["value"] for o in inputs[ids.INPUT_DIGEST_WEEKDAYS]["initial_options"]] == [
        "0",
        "1",
        "2",
        "3",
        "4",
    ]
    assert inputs[ids.INPUT_DIGEST_QUIET]["initial_option"]["value"] == "line"


def test_digest_list_shows_health_and_the_right_toggle() -> None:
    now = datetime(2030, 1, 7, 12, tzinfo=UTC)
    healthy = Digest(
        team_id="T",
        channel_id="C1",
        created_by="U1",
        segment_id="s",
        use_case_id="u",
        segment_name="Weekend Hikers",
        use_case_name="Spring Launch",
        time="09:00",
        tz="Europe/Berlin",
        weekdays=[0, 1, 2, 3, 4],
        last_delivery_at=now.timestamp() - 3600,
    )
    broken = healthy.model_copy(
        update={
            "id": "b" * 8,
            "paused": True,
            "paused_reason": "not_in_channel",
            "last_error": "not_in_channel",
            "last_error_at": now.timestamp(),
        }
    )
    tuesday_9am = datetime(2030, 1, 8, 8, tzinfo=UTC)  # 09:00 in Berlin
    message = build_digest_list(
        lang="en",
        digests=[healthy, broken],
        next_fires={healthy.id: tuesday_9am, broken.id: None},
        channel_id="C1",
    )
    assert errors_of(message.blocks, message.text) == []
    assert message.blocks[0]["text"]["text"] == "*Digests in <#C1>* (and yours elsewhere)"
    sections = [b["text"]["text"] for b in message.blocks if b["type"] == "section"][1:]
    next_at = f"Active · next <!date^{int(tuesday_9am.timestamp())}^"
    assert "Mon–Fri" in sections[0] and next_at in sections[0]
    assert "Last delivery: <!date^" in sections[0] and "no errors" in sections[0]
    removed = (
        "Paused: I was removed from <#C1> — invite me with `/invite @suggestbot`, then press "
        "*Resume*."
    )
    assert removed in sections[1]
    assert "Last problem <!date^" in sections[1] and "the one above" in sections[1]
    assert "not_in_channel" not in str(message.blocks)
    toggles = [b["text"]["text"] for b in buttons(message.blocks)]
    assert Counter(toggles) == Counter(
        ["Pause", "Preview", "Remove", "Resume", "Preview", "Remove"]
    )
    # Someone who may change only the first (not its creator nor an admin) previews the other.
    mine = build_digest_list(
        lang="en",
        digests=[healthy, broken],
        next_fires={healthy.id: tuesday_9am, broken.id: None},
        channel_id="C1",
        changeable={healthy.id},
    )
    shown = [(b["text"]["text"], b["value"]) for b in buttons(mine.blocks)]
    assert shown == [
        ("Pause", healthy.id),
        ("Preview", healthy.id),
        ("Remove", healthy.id),
        ("Preview", broken.id),
    ]


def test_short_line_and_shorten() -> None:
    line = build_digest_line(text="No new inspiration", late_note="Posted late")
    assert errors_of(line.blocks, line.text) == []
    assert shorten("a b c d", 100) == "a b c d"
    cut = shorten("word " * 100, 50)
    assert len(cut) <= 50 and cut.endswith("…")


@pytest.mark.parametrize("lang", ["en", "de"])
def test_app_home_says_why_a_digest_paused_and_what_to_do_without_slack_codes(lang: str) -> None:
    digest = Digest(
        team_id="T1",
        channel_id="C0SALES",
        created_by="U1",
        segment_id="s",
        use_case_id="u",
        segment_name="Hikers",
        use_case_name="Launch",
        time="09:00",
        tz="Europe/Berlin",
        weekdays=[0],
        paused=True,
        paused_reason="not_in_channel",
    )
    line = home_line(digest, lang=lang)
    assert "not_in_channel" not in line
    assert "<#C0SALES>" in line and "`/invite @suggestbot`" in line
    assert t("digest.problem.not_in_channel", lang, channel="C0SALES") in line
    odd = home_line(
        digest.model_copy(update={"paused_reason": "team_access_not_granted"}), lang=lang
    )
    assert "team_access_not_granted" not in odd
    assert t("digest.problem.other", lang, channel="C0SALES") in odd
    assert home_line(digest.model_copy(update={"paused_reason": None}), lang=lang).endswith(
        t("home.digest_paused", lang)
    )


@pytest.mark.parametrize(
    ("lang", "nothing_yet", "unchanged", "late"),
    [
        ("en", "No ready-made content for", "still version 4", "Posted late: this digest was due"),
        ("de", "Noch keine fertigen Inhalte für", "weiterhin Version 4", "Verspätet gepostet"),
    ],
)
def test_a_quiet_digest_line_says_why_there_is_no_set(
    lang: str, nothing_yet: str, unchanged: str, late: str
) -> None:
    empty = build_digest_quiet_line(lang=lang, labels=LABELS, version=None)
    assert nothing_yet in empty.text
    assert "*Weekend &lt;Hikers&gt;* · *Spring &amp; Launch*" in empty.text
    assert [b["block_id"] for b in empty.blocks] == ["line"]
    note = digest_late_note(lang=lang, time="09:00", tz="Europe/Berlin")
    assert note.startswith(f":clock3: {late}") and "09:00 (Europe/Berlin)" in note
    same = build_digest_quiet_line(lang=lang, labels=LABELS, version=4, late_note=note)
    assert unchanged in same.text and same.text.startswith(":zzz:")
    assert same.blocks[1]["elements"][0]["text"] == note
    assert errors_of(same.blocks, same.text) == []
