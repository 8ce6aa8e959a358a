"""The composer's pure parts: which ``message.im`` events are briefs, how a brief names its
choices up front, the suggested prompts and the choices offered on a root, the status line."""

from __future__ import annotations

from typing import Any

import pytest

from suggestbot.store.records import ComposerChoices
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.composer import (
    build_choice_blocks,
    build_not_your_composer,
    build_suggested_prompts,
    request_of_choices_block,
)
from suggestbot.ui.blocks.live_status import build_live_status
from suggestbot.ui.blocks.requests import Phase, RequestStatus
from suggestbot.ui.replies import composer_message, split_choice_header

SEGMENTS = [("s1", "Weekend Hikers"), ("s2", "Trail Runners")]
USE_CASES = [("u1", "Spring Launch"), ("u2", "Loyalty Reward"), ("u3", "Social Teaser")]


def _im(**fields: Any) -> dict[str, Any]:
    event = {
        "type": "message",
        "channel_type": "im",
        "channel": "D1",
        "user": "U1",
        "ts": "1.000100",
        "text": "A post about tents &amp; stoves",
        "team": "T1",
    }
    event.update(fields)
    return {k: v for k, v in event.items() if v is not None}


def test_a_persons_top_level_message_to_the_app_is_a_brief() -> None:
    brief = composer_message(_im(), bot_user_id="UBOT")
    assert brief is not None
    assert (brief.channel, brief.user_id, brief.team_id) == ("D1", "U1", "T1")
    assert brief.text == "A post about tents & stoves"


@pytest.mark.parametrize(
    "fields",
    [
        {"channel_type": "channel"},  # a channel message: not the Messages tab
        {"thread_ts": "0.5"},  # a reply in a thread there refines instead
        {"subtype": "message_changed"},
        {"bot_id": "B1"},
        {"user": "UBOT"},
        {"text": "   "},
    ],
)
def test_everything_else_is_not_a_brief(fields: dict[str, Any]) -> None:
    assert composer_message(_im(**fields), bot_user_id="UBOT") is None


def test_a_brief_names_its_choices_up_front_or_not_at_all() -> None:
    split = split_choice_header(
        "trail runners · social teaser: Race day is coming",
        segments=SEGMENTS,
        use_cases=USE_CASES,
    )
    assert split == ("s2", "u3", "Race day is coming")
    for text in (
        "Note: our shop opens at 10",  # an ordinary colon
        "Climbers · Spring Launch: new ropes",  # no such segment
        "Weekend Hikers · Spring Launch:",  # nothing to send
    ):
        assert split_choice_header(text, segments=SEGMENTS, use_cases=USE_CASES) == (
            None,
            None,
            text.strip(),
        )


def test_at_most_four_prompts_each_naming_choices_the_brief_then_reads_back() -> None:
    many = [(f"s{n}", f"Segment {n}") for n in range(9)]
    prompts = build_suggested_prompts(lang="en", segments=many, use_cases=USE_CASES)
    assert prompts is not None and len(prompts.prompts) == 4
    for prompt in prompts.prompts:
        segment, use_case, rest = split_choice_header(
            prompt["message"], segments=many, use_cases=USE_CASES
        )
        assert segment and use_case and rest
        assert len(prompt["title"]) <= 75
    assert build_suggested_prompts(lang="en", segments=[], use_cases=USE_CASES) is None
    german = build_suggested_prompts(lang="de", segments=SEGMENTS, use_cases=USE_CASES)
    assert german is not None and german.title == "Ein Briefing aus einer Vorlage beginnen:"
    assert len(german.prompts) == 3  # as many as the longer list, up to four


def test_the_choices_on_a_root_are_set_to_the_brief_and_name_it() -> None:
    blocks = build_choice_blocks(
        lang="en",
        request_id="req-1",
        choices=ComposerChoices(segments=SEGMENTS, use_cases=USE_CASES),
        segment_id="s2",
        use_case_id="u1",
        variants=3,
    )
    [actions] = [b for b in blocks if b["type"] == "actions"]
    assert request_of_choices_block(actions["block_id"]) == "req-1"
    initial = [e["initial_option"]["value"] for e in actions["elements"]]
    assert initial == ["s2", "u1", "3"]
    assert [e["action_id"] for e in actions["elements"]] == [
        ids.ACTION_COMPOSER_SEGMENT,
        ids.ACTION_COMPOSER_USE_CASE,
        ids.ACTION_COMPOSER_VARIANTS,
    ]
    assert request_of_choices_block("something-else") is None


@pytest.mark.parametrize("phase", [Phase.DONE, Phase.FAILED, Phase.WAITING_USER])
def test_no_status_line_once_a_request_ended_or_waits_for_its_author(phase: Phase) -> None:
    status = RequestStatus(kind="brief", phase=phase, author="U1")
    assert build_live_status(lang="en", status=status) is None


def test_a_working_refinement_has_its_own_loading_messages() -> None:
    status = RequestStatus(kind="refinement", phase=Phase.REQUEUED, author="U1", attempt=2)
    line = build_live_status(lang="en", status=status)
    assert line is not None and line.status == "is retrying (attempt 2)…"
    assert line.loading_messages[0] == "Reading your instruction…"
    assert 1 <= len(line.loading_messages) <= 10


@pytest.mark.parametrize(
    ("lang", "words"),
    [("en", "Only the author of this brief"), ("de", "Nur die Person, die dieses Briefing")],
)
def test_someone_else_picking_choices_is_told_only_the_author_may(lang: str, words: str) -> None:
    message = build_not_your_composer(lang=lang)
    assert message.text.startswith(words)
    assert message.blocks[0]["text"]["text"] == message.text
