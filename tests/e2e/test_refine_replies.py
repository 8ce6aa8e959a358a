"""Refining by replying in a brief's Slack thread, under both readings of "when a thread is
created" (design §4): turns, variant choice, the question when a reply is ambiguous."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from refine_helpers import (
    brief_thread,
    connect,
    ephemeral_text,
    header,
    refinement_runs,
    reply,
    root_text,
    runs_of,
    service,
    thread_messages,
    thread_of_head,
    turns,
    wait_ephemeral_with,
    wait_turn,
)

from suggestbot.demo.stage import ALICE, Stage, wait_for
from suggestbot.jobs import retention
from suggestbot.sandbox import RunTiming


@pytest.fixture(params=[False, True], ids=["thread-with-root", "thread-on-first-refinement"])
def stage(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stage]:
    with Stage(data_dir=tmp_path / "data") as running:
        running.sandbox.faults.thread_on_first_refinement = request.param
        yield running


def test_three_replies_make_three_turns_of_one_service_thread(stage: Stage) -> None:
    connect(stage, ALICE)
    ts = brief_thread(stage, ALICE, "Email for the spring sale of our ultralight tent")
    instructions = ["Make it shorter", "Mention free returns", "End with a question"]
    for number, instruction in enumerate(instructions, start=2):
        reply(stage, ALICE, ts, instruction)
        turn = wait_turn(stage, ts, number)
        assert instruction in str(turn["blocks"])

    assert [header(m) for m in turns(stage, ts)] == [
        "Turn 2 · Email",
        "Turn 3 · Email",
        "Turn 4 · Email",
    ]
    runs = refinement_runs(stage)
    assert len(runs) == 3 and all(r.status.value == "succeeded" for r in runs)
    newest = max(runs, key=lambda r: r.created_at)
    assert newest.suggestion_id is not None
    thread = thread_of_head(stage, newest.suggestion_id)
    assert thread.turn_count == 4
    assert [t.instruction for t in thread.turns or []] == [None, *instructions]
    # each refinement refined the previous head: one lineage, no branches
    parents = [r.request.parent_suggestion_id for r in sorted(runs, key=lambda r: r.created_at)]
    assert parents[1:] == [r.suggestion_id for r in sorted(runs, key=lambda r: r.created_at)[:-1]]
    wait_for(lambda: "turn 4" in root_text(stage, ts), what="the root to show turn 4")
    transcript = stage.emu.transcript(stage.channel, thread_ts=ts)
    assert transcript.count("== Turn ") == 3
    assert "Rename thread" in transcript
    assert "Show whole instruction" not in transcript + ephemeral_text(stage, ALICE)
    assert stage.emu.warnings == []


def test_a_long_reply_is_sent_whole_and_the_turn_offers_the_whole_instruction(
    stage: Stage,
) -> None:
    connect(stage, ALICE)
    ts = brief_thread(stage, ALICE, "Email for the spring sale of our ultralight tent")
    long_reply = "Keep the tone warm. " + "Mention every colour and size we offer. " * 120
    long_reply = long_reply.strip()
    assert len(long_reply) > 4000
    reply(stage, ALICE, ts, long_reply)
    turn = wait_turn(stage, ts, 2)

    [run] = refinement_runs(stage)
    assert run.request.instruction == long_reply  # sent whole: the contract sets no limit
    told = wait_ephemeral_with(stage, ALICE, f"Your reply of {len(long_reply):,} characters")
    assert "Show whole instruction" in told["text"]
    quoted = next(b for b in turn["blocks"] if b["block_id"] == "instruction")["text"]["text"]
    assert len(quoted) < 1000 and quoted.rstrip().endswith("…")
    stage.slack.press_button(turn, "Show whole instruction", user_id=ALICE)
    view = wait_for(lambda: stage.emu.current_view(ALICE), what="the instruction modal")
    shown = "".join(b["text"]["text"] for b in view["blocks"] if b["type"] == "section")
    assert shown.replace("\n", " ").replace(" ", "") == long_reply.replace(" ", "")
    assert stage.emu.warnings == []


def test_reply_with_number_picks_that_variant(stage: Stage) -> None:
    connect(stage, ALICE)
    ts = brief_thread(stage, ALICE, "Email about the loyalty weekend", variants=3)
    variant_ids = _variant_ids(stage, ts)
    reply(stage, ALICE, ts, "2: warmer tone, please")
    wait_turn(stage, ts, 2)
    [run] = refinement_runs(stage)
    assert run.request.parent_suggestion_id == variant_ids[2]
    assert run.request.instruction == "warmer tone, please"
    assert "continues variant 2" in root_text(stage, ts) or wait_for(
        lambda: "continues variant 2" in root_text(stage, ts), what="the root to name variant 2"
    )
    # the thread now follows variant 2: a plain reply refines its newest turn
    reply(stage, ALICE, ts, "now shorter")
    wait_turn(stage, ts, 3)
    second = max(refinement_runs(stage), key=lambda r: r.created_at)
    assert second.request.parent_suggestion_id == run.suggestion_id


def test_ambiguous_reply_asks_which_variant_and_keeps_the_text(stage: Stage) -> None:
    connect(stage, ALICE)
    ts = brief_thread(stage, ALICE, "Email inviting hikers to the autumn trail day", variants=3)
    variant_ids = _variant_ids(stage, ts)
    runs_before = len(runs_of(stage))
    reply(stage, ALICE, ts, "Add a line about the weather forecast")
    question = wait_ephemeral_with(stage, ALICE, "Which one")
    assert "Add a line about the weather forecast" in ephemeral_text(stage, ALICE)
    assert len(runs_of(stage)) == runs_before  # nothing sent before the answer
    stage.slack.press_button(question, "Variant 3", user_id=ALICE)
    wait_turn(stage, ts, 2)
    [run] = refinement_runs(stage)
    assert run.request.parent_suggestion_id == variant_ids[3]
    assert run.request.instruction == "Add a line about the weather forecast"
    assert "Refining variant 3" in ephemeral_text(stage, ALICE)


def test_a_choice_pressed_after_the_reply_was_forgotten_says_so(stage: Stage) -> None:
    connect(stage, ALICE)
    ts = brief_thread(stage, ALICE, "Email inviting hikers to the spring trail day", variants=2)
    reply(stage, ALICE, ts, "Mention the shuttle bus")
    question = wait_ephemeral_with(stage, ALICE, "Which one")
    runs_before = len(runs_of(stage))
    deps = stage.runtime.deps if stage.runtime else None
    assert deps is not None
    now = time.time()
    deps.clock = lambda: now + 8 * 24 * 3600  # over a week later
    assert retention.prune_unsent(deps) == 1
    deps.clock = time.time

    stage.slack.press_button(question, "Variant 2", user_id=ALICE)

    wait_for(
        lambda: "no longer kept" in ephemeral_text(stage, ALICE),
        what="the explanation",
        detail=lambda: ephemeral_text(stage, ALICE),
    )
    assert len(runs_of(stage)) == runs_before


def test_refine_button_opens_the_modal_and_refines_that_variant(stage: Stage) -> None:
    connect(stage, ALICE)
    ts = brief_thread(stage, ALICE, "Email for the trail runners' club", variants=2)
    variant_ids = _variant_ids(stage, ts)
    second = thread_messages(stage, ts)[3]  # after the root and the gallery
    stage.slack.press_button(second, "Refine…", user_id=ALICE)
    wait_for(lambda: stage.emu.current_view(ALICE) is not None, what="the Refine modal")
    view_text = stage.emu.view_transcript(ALICE)
    assert "variant 2" in view_text
    assert "Image" not in view_text  # an email has no image to keep or regenerate
    stage.slack.submit_view(ALICE, {"What should change?": "Use a more playful subject"})
    wait_turn(stage, ts, 2)
    [run] = refinement_runs(stage)
    assert run.request.parent_suggestion_id == variant_ids[2]


def _variant_ids(stage: Stage, ts: str) -> dict[int, str]:
    """Variant number → suggestion id, from the brief's run (the service's own record)."""
    assert stage.runtime is not None
    [brief_run] = [r for r in runs_of(stage) if r.type.value == "steered_generation"]
    assert brief_run.suggestion_set_id is not None
    found = service(stage).get_suggestion_set(id=brief_run.suggestion_set_id)
    return {s.variant_no: s.id for s in found.suggestions}


def test_a_refinement_in_flight_survives_a_restart(stage: Stage) -> None:
    connect(stage, ALICE)
    ts = brief_thread(stage, ALICE, "Email about the hut-to-hut tour")
    stage.sandbox.faults.run_timing = RunTiming(queued_s=100.0, running_s=100.0)
    reply(stage, ALICE, ts, "Mention the luggage transfer")
    wait_for(
        lambda: (
            "Refinement from <@U0ALICE> is queued"
            in stage.emu.transcript(stage.channel, thread_ts=ts)
        ),
        what="the refinement to be queued",
    )
    stage.restart_app(graceful=False)
    wait_turn(stage, ts, 2)
    assert len(refinement_runs(stage)) == 1
    assert len(turns(stage, ts)) == 1
    assert "queued" not in stage.emu.transcript(stage.channel, thread_ts=ts)
