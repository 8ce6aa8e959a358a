"""Renaming the service thread from Slack, and drafts refined in their own thread, under both
readings of "when a thread is created" (design §4)."""

from __future__ import annotations

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
    service,
    thread_messages,
    thread_of_head,
    wait_turn,
)

from suggestbot.demo.stage import ALICE, Stage, wait_for
from suggestbot.sandbox import InjectedError


@pytest.fixture(params=[False, True], ids=["thread-with-root", "thread-on-first-refinement"])
def stage(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stage]:
    with Stage(data_dir=tmp_path / "data") as running:
        running.sandbox.faults.thread_on_first_refinement = request.param
        yield running


def _open_rename(stage: Stage, ts: str) -> None:
    root = wait_for(
        lambda: next(
            (m for m in thread_messages(stage, ts)[:1] if "Rename thread" in str(m["blocks"])),
            None,
        ),
        what="the Rename thread button on the root",
    )
    stage.slack.press_button(root, "Rename thread", user_id=ALICE)
    wait_for(
        lambda: (stage.emu.current_view(ALICE) or {}).get("callback_id") == "rename_thread",
        what="the rename modal",
    )


def test_rename_checks_the_name_then_shows_the_stored_one(stage: Stage) -> None:
    connect(stage, ALICE)
    ts = brief_thread(stage, ALICE, "Email for the spring sale")
    reply(stage, ALICE, ts, "shorter")
    wait_turn(stage, ts, 2)
    _open_rename(stage, ts)

    too_long = stage.slack.submit_view(ALICE, {"Thread name": "x" * 61})
    assert too_long.errors == {
        "Thread name": "A thread name holds at most 60 characters and 8 words."
    }
    nine_words = stage.slack.submit_view(ALICE, {"Thread name": "a b c d e f g h i"})
    assert "8 words" in nine_words.errors["Thread name"]
    blank = stage.slack.submit_view(ALICE, {"Thread name": "   "})
    assert blank.errors == {"Thread name": "Type a name."}
    control = stage.slack.submit_view(ALICE, {"Thread name": "a\tb"})
    assert "plain text" in control.errors["Thread name"]

    done = stage.slack.submit_view(ALICE, {"Thread name": "  a   b "})
    assert done.errors == {} and done.view is None  # sent: the modal closes
    wait_for(
        lambda: "now called *a b*" in ephemeral_text(stage, ALICE),
        what="the stored name, told in the thread",
    )
    [run] = refinement_runs(stage)
    assert run.suggestion_id is not None
    assert thread_of_head(stage, run.suggestion_id).name == "a b"
    wait_for(lambda: "*a b*" in root_text(stage, ts), what="the root to show the new name")


def test_rename_shows_the_services_own_refusal(stage: Stage) -> None:
    connect(stage, ALICE)
    ts = brief_thread(stage, ALICE, "Email for the loyalty weekend")
    reply(stage, ALICE, ts, "friendlier")
    wait_turn(stage, ts, 2)
    _open_rename(stage, ts)
    stage.sandbox.faults.unknown_error_codes = [
        InjectedError(status=422, code="thread_name_too_long", path="PATCH /v1/threads/*")
    ]
    stage.slack.submit_view(ALICE, {"Thread name": "Loyalty weekend"})
    refusal = wait_for(
        lambda: next(
            (
                e
                for e in stage.emu.ephemerals(ALICE, stage.channel)
                if "did not accept" in e["text"]
            ),
            None,
        ),
        what="the service's refusal",
    )
    assert "“Loyalty weekend”" in refusal["text"] and "at most 60 characters" in refusal["text"]
    assert refusal.get("thread_ts") == ts
    # the button opens the modal again, prefilled with the thread's current name
    stage.slack.press_button(refusal, "Rename thread", user_id=ALICE)
    wait_for(
        lambda: (stage.emu.current_view(ALICE) or {}).get("callback_id") == "rename_thread",
        what="the rename modal again",
    )
    stage.sandbox.faults.unknown_error_codes = []
    stage.slack.submit_view(ALICE, {"Thread name": "Loyalty weekend"})
    wait_for(
        lambda: "now called *Loyalty weekend*" in ephemeral_text(stage, ALICE),
        what="the rename on the second try",
    )


def _write_draft(stage: Stage, subject: str, body: str) -> str:
    before = {m["ts"] for m in stage.emu.messages(stage.channel)}
    stage.slack.slash_command(ALICE, stage.channel, "draft")
    wait_for(
        lambda: (
            (stage.emu.current_view(ALICE) or {}).get("callback_id") == "draft"
            and "Subject" in stage.emu.view_transcript(ALICE)
        ),
        what="the draft modal",
    )
    assert stage.sandbox.demo is not None
    demo = stage.sandbox.demo.primary
    answer = stage.slack.submit_view(
        ALICE,
        {
            "Segment": next(iter(demo.segments)),
            "Use case": next(iter(demo.use_cases)),
            "Subject": "Our tent, lighter than ever",
            "Email text": body,
        },
    )
    assert answer.errors == {}
    root = wait_for(
        lambda: next((m for m in stage.emu.messages(stage.channel) if m["ts"] not in before), None),
        what="the draft's root",
    )
    return str(root["ts"])


def test_a_draft_becomes_a_thread_refined_twice(stage: Stage) -> None:
    connect(stage, ALICE)
    ts = _write_draft(stage, "Our tent, lighter than ever", "Hi hikers,\nour tent weighs 900 g.")
    root = stage.emu.transcript(stage.channel, thread_ts=ts)
    assert "Draft email by <@U0ALICE>" in root and "our tent weighs 900 g." in root

    reply(stage, ALICE, ts, "Add a call to action")
    wait_turn(stage, ts, 2)
    reply(stage, ALICE, ts, "Sign it from the team")
    wait_turn(stage, ts, 3)

    assert [header(m) for m in thread_messages(stage, ts)[1:] if header(m)] == [
        "Turn 2 · Email",
        "Turn 3 · Email",
    ]
    runs = sorted(refinement_runs(stage), key=lambda r: r.created_at)
    assert runs[1].request.parent_suggestion_id == runs[0].suggestion_id
    assert runs[1].suggestion_id is not None
    thread = thread_of_head(stage, runs[1].suggestion_id)
    assert thread.root_origin == "user_draft"
    assert thread.turn_count == 3
    draft = service(stage).get_suggestion(id=str(runs[0].request.parent_suggestion_id))
    assert draft.parent_suggestion_id is None and draft.payload.body.endswith("900 g.")
    wait_for(lambda: "turn 3" in root_text(stage, ts), what="the root to show turn 3")


def test_a_draft_thread_can_be_renamed_as_soon_as_the_service_has_it(stage: Stage) -> None:
    connect(stage, ALICE)
    ts = _write_draft(stage, "Subject", "Body text")
    if not stage.sandbox.faults.thread_on_first_refinement:
        # the service created the thread with the draft: renaming works before any refinement
        _open_rename(stage, ts)
        stage.slack.submit_view(ALICE, {"Thread name": "Tent   launch"})
        wait_for(
            lambda: "now called *Tent launch*" in ephemeral_text(stage, ALICE),
            what="the rename",
        )
        wait_for(lambda: "*Tent launch*" in root_text(stage, ts), what="the name on the root")
    else:
        # no thread yet, so no rename button until the first refinement creates it
        assert "Rename thread" not in stage.emu.transcript(stage.channel, thread_ts=ts)
        reply(stage, ALICE, ts, "warmer")
        wait_turn(stage, ts, 2)
        _open_rename(stage, ts)
