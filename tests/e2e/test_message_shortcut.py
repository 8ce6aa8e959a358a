""" "Turn into a brief" on a message, over loopback: the brief modal prefilled from the
message with its permalink as context, the brief sent from there, and the root that links
back to the message."""

from __future__ import annotations

from typing import Any

from suggestbot.demo.stage import ALICE, BRUNO, CAROL, Stage, wait_for
from suggestbot.ui.blocks import ids

TEXT = "Our autumn sale starts Friday: 20% off all tents & sleeping bags"


def _message(stage: Stage, user: str, text: str) -> dict[str, Any]:
    posted = stage.slack.post_user_message(user, stage.channel, text)
    return next(m for m in stage.emu.messages(stage.channel) if m["ts"] == posted.ts)


def _brief_modal(stage: Stage, user: str) -> dict[str, Any]:
    found: dict[str, Any] = wait_for(
        lambda: (v := stage.emu.current_view(user)) and v.get("submit") and v,
        what="the brief modal, filled in",
    )
    return found


def test_a_message_becomes_a_brief_that_links_back_to_it(stage: Stage) -> None:
    stage.connect(ALICE)
    message = _message(stage, CAROL, TEXT)
    answer = stage.slack.use_message_shortcut(message, ids.SHORTCUT_BRIEF, user_id=ALICE)
    assert answer.acked_in_time
    view = _brief_modal(stage, ALICE)
    [source] = [b for b in view["blocks"] if b.get("block_id") == "source"]
    line = source["elements"][0]["text"]
    assert line.startswith("From <") and line.endswith("|a message>")
    link = line.removeprefix("From <").removesuffix("|a message>")
    assert message["ts"].replace(".", "") in link and stage.channel in link
    [text_input] = [b for b in view["blocks"] if b.get("block_id") == ids.INPUT_BRIEF]
    assert text_input["element"]["initial_value"] == TEXT

    segment = next(iter(stage.demo.primary.segments))
    use_case = next(iter(stage.demo.primary.use_cases))
    submitted = stage.slack.submit_view(ALICE, {"Segment": segment, "Use case": use_case})
    assert submitted.errors == {}
    root = wait_for(
        lambda: next(
            (
                m
                for m in stage.emu.messages(stage.channel)
                if m.get("bot_id") and any(b.get("block_id") == "source" for b in m["blocks"])
            ),
            None,
        ),
        what="the brief's root",
        detail=lambda: stage.emu.transcript(stage.channel),
    )
    assert link in str(root["blocks"])
    assert "Our autumn sale starts Friday: 20% off all tents" in str(root["blocks"])
    wait_for(
        lambda: "are ready" in stage.emu.transcript(stage.channel, thread_ts=None),
        what="the root to say ready",
        detail=lambda: stage.emu.transcript(stage.channel),
    )
    history = stage.emu.status_history(stage.channel, root["ts"])
    assert [h for h in history if h["cause"] == "set"] and history[-1]["cause"] == "reply"
    assert stage.emu.warnings == []


def test_in_german_the_modal_says_where_the_brief_comes_from(stage: Stage) -> None:
    stage.connect(BRUNO)
    message = _message(stage, CAROL, "Neue Wanderschuhe ab Montag im Laden")
    stage.slack.use_message_shortcut(message, ids.SHORTCUT_BRIEF, user_id=BRUNO)
    view = _brief_modal(stage, BRUNO)
    [source] = [b for b in view["blocks"] if b.get("block_id") == "source"]
    assert source["elements"][0]["text"].startswith("Aus <")
    assert source["elements"][0]["text"].endswith("|einer Nachricht>")


def test_an_unlinked_person_is_asked_to_connect_with_the_text_kept(stage: Stage) -> None:
    message = _message(stage, CAROL, TEXT)
    stage.slack.use_message_shortcut(message, ids.SHORTCUT_BRIEF, user_id=ALICE)
    wait_for(
        lambda: "connect your content service" in stage.emu.ephemeral_transcript(ALICE),
        what="the request to connect",
        detail=lambda: stage.emu.ephemeral_transcript(ALICE),
    )
    assert stage.emu.current_view(ALICE) is None
    held = list(stage.runtime.deps.records.held.values()) if stage.runtime else []
    assert [h.text for h in held] == [TEXT]
