"""``/suggest threads`` and ``/suggest runs`` with paging and histories, and the App Home."""

from __future__ import annotations

import json
from typing import Any

from refine_helpers import brief_thread, connect, refinement_runs, reply, service, wait_turn

from suggestbot.contentapi import RefinementRequest, SteeredGenerationRequest
from suggestbot.sandbox import RunTiming
from suggestbot.stage import ALICE, CAROL, Stage, wait_for


def _command(stage: Stage, user: str, text: str, needle: str) -> dict[str, Any]:
    """Run ``/suggest text`` and return the new ephemeral answer containing ``needle``."""
    before = len(stage.emu.ephemerals(user, stage.channel))
    stage.slack.slash_command(user, stage.channel, text)
    return wait_for(
        lambda: next(
            (e for e in stage.emu.ephemerals(user, stage.channel)[before:] if needle in e["text"]),
            None,
        ),
        what=f"an ephemeral answer with {needle!r}",
    )


def _history(stage: Stage, message: dict[str, Any], label_part: str) -> str:
    """Press the History button of the list item whose line contains ``label_part``."""
    [button] = [
        b["accessory"]["text"]["text"]
        for b in message["blocks"]
        if b.get("accessory") and label_part in b["text"]["text"]
    ]
    stage.slack.press_button(message, button, user_id=ALICE)
    wait_for(
        lambda: (
            (stage.emu.current_view(ALICE) or {}).get("callback_id") == "history"
            and "Loading" not in stage.emu.view_transcript(ALICE)
        ),
        what="the history modal",
    )
    return stage.emu.view_transcript(ALICE)


def _three_turns(stage: Stage) -> str:
    connect(stage, ALICE)
    ts = brief_thread(stage, ALICE, "Email about the trail festival")
    for number, text in enumerate(["shorter", "add the date", "sign as the team"], start=2):
        reply(stage, ALICE, ts, text)
        wait_turn(stage, ts, number)
    return ts


def test_threads_list_opens_the_turns_oldest_first(stage: Stage) -> None:
    _three_turns(stage)
    listing = _command(stage, ALICE, "threads", "Your recent threads")
    text = stage.emu.ephemeral_transcript(ALICE, stage.channel)
    assert "4 turns" in text and "from a brief" in text
    history = _history(stage, listing, "4 turns")
    lines = history.splitlines()
    order = [next(i for i, line in enumerate(lines) if f"Turn {n}" in line) for n in (1, 2, 3, 4)]
    assert order == sorted(order)
    for instruction in ("shorter", "add the date", "sign as the team"):
        assert f"> {instruction}" in history
    assert "the original" in history


def test_runs_list_pages_with_more_and_opens_a_lineage(stage: Stage) -> None:
    _three_turns(stage)
    stage.sandbox.faults.short_pages = 2  # every page holds 2 runs and carries a cursor
    first = _command(stage, ALICE, "runs", "Your recent runs")
    first_text = stage.emu.ephemeral_transcript(ALICE, stage.channel)
    assert first_text.count("Refinement") == 2 and "[More]" in first_text
    stage.slack.press_button(first, "More", user_id=ALICE)
    wait_for(
        lambda: "Brief" in stage.emu.ephemeral_transcript(ALICE, stage.channel),
        what="the second page",
    )
    # the page replaced the first one, keeping the cursor in its own More button
    pages = [e for e in stage.emu.ephemerals(ALICE, stage.channel) if "recent runs" in e["text"]]
    assert len(pages) == 1
    second_text = stage.emu.ephemeral_transcript(ALICE, stage.channel)
    assert "sign as the team" not in second_text and "*Brief*" in second_text

    stage.slack.press_button(pages[0], "More", user_id=ALICE)  # an empty last page ends it
    wait_for(
        lambda: (
            "That's all" in stage.emu.ephemeral_transcript(ALICE, stage.channel)
            or "No runs yet" in stage.emu.ephemeral_transcript(ALICE, stage.channel)
        ),
        what="the end of the list",
    )

    stage.sandbox.faults.short_pages = 0
    listing = _command(stage, ALICE, "runs", "Your recent runs")
    history = _history(stage, listing, "sign as the team")
    lines = history.splitlines()
    assert "Original (variant 1)" in history
    steps = [i for i, line in enumerate(lines) if line.strip().startswith("> ")]
    quoted = [lines[i].strip()[2:] for i in steps]
    assert quoted == ["shorter", "add the date", "sign as the team"]

    # a brief's run opens the variants of its set
    stage.slack.close_view(ALICE, clear=True)
    listing = _command(stage, ALICE, "runs", "Your recent runs")
    history = _history(stage, listing, "*Brief*")
    assert "1 variant from the brief" in history and "Variant 1" in history


def test_app_home_shows_link_runs_threads_digests_within_limits(stage: Stage) -> None:
    _three_turns(stage)
    assert stage.runtime is not None and stage.sandbox.demo is not None
    deps = stage.runtime.deps
    # many runs still in progress, created directly with Alice's own token
    stage.sandbox.faults.run_timing = RunTiming(queued_s=3600, running_s=3600)
    user = deps.records.users.get(f"{stage.emu.team_id}:{ALICE}")
    assert user is not None
    alice = service(stage).as_user(deps.vault.decrypt(user.token_enc))
    demo = stage.sandbox.demo
    for n in range(14):
        alice.create_run(
            request=SteeredGenerationRequest(
                segment_id=demo.segment_id, use_case_id=demo.use_case_id, steering_text=f"idea {n}"
            )
        )
    head = max(refinement_runs(stage), key=lambda r: r.created_at).suggestion_id
    assert head is not None
    alice.create_run(request=RefinementRequest(parent_suggestion_id=head, instruction="later"))
    # digests someone else's code keeps in the store: Alice's 40, and one of Carol's
    for n in range(40):
        deps.records.store.put(
            "digests",
            f"d{n:03d}",
            {
                "id": f"d{n:03d}",
                "team_id": stage.emu.team_id,
                "channel_id": stage.channel,
                "created_by": ALICE,
                "segment_name": "Weekend Hikers",
                "use_case_name": "Spring Launch",
                "time": "09:00",
                "tz": "Europe/Berlin",
                "weekdays": [0, 2, 4],
                "paused": n == 0,
                "created_at": 1_700_000_000 + n,
            },
        )
    deps.records.store.put(
        "digests", "carol", {"created_by": CAROL, "channel_id": stage.channel, "time": "07:00"}
    )

    answer = stage.slack.app_home_opened(ALICE)
    assert answer.acked_in_time
    home = wait_for(lambda: stage.emu.home_view(ALICE), what="the published Home")
    assert len(home["blocks"]) <= 100
    text = json.dumps(home)
    assert "Disconnect" in text and "connected" in text
    assert text.count("queued") + text.count("running") >= 10
    assert "5 more running" in text
    assert "4 turns" in text  # the thread refined three times
    assert text.count("Weekend Hikers") >= 20 and "20 more not shown" in text
    assert "Mon, Wed, Fri" in text and "(paused)" in text
    assert "07:00" not in text  # Carol's digest is not Alice's
    assert "/suggest draft" in text  # help
    assert stage.emu.warnings == []

    # a thread's history opens from Home too
    stage.slack.press_button(home, "History 1", user_id=ALICE)
    wait_for(
        lambda: (
            "Thread history" in stage.emu.view_transcript(ALICE)
            and "Turn 4" in stage.emu.view_transcript(ALICE)
        ),
        what="the thread history from Home",
    )
    stage.slack.close_view(ALICE, clear=True)

    # Disconnect from Home: the token is gone and Home says so
    stage.slack.press_button(home, "Disconnect", user_id=ALICE)
    wait_for(
        lambda: "Connect account" in json.dumps(stage.emu.home_view(ALICE)),
        what="Home to offer connecting again",
    )
    assert deps.records.users.get(f"{stage.emu.team_id}:{ALICE}") is None


def test_app_home_for_someone_not_connected(stage: Stage) -> None:
    stage.slack.app_home_opened(CAROL)
    home = wait_for(lambda: stage.emu.home_view(CAROL), what="Carol's Home")
    text = json.dumps(home)
    assert "Connect account" in text and "You have not set up a digest" in text
    stage.slack.press_button(home, "Connect account", user_id=CAROL)
    wait_for(
        lambda: (stage.emu.current_view(CAROL) or {}).get("callback_id") == "connect",
        what="the connect modal from Home",
    )
