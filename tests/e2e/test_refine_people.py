"""Who refines: the acting user's own token, a parent the replier cannot see, an unlinked
replier, and the messages that must never start a refinement."""

from __future__ import annotations

from typing import Any

from refine_helpers import (
    brief_thread,
    connect,
    connect_as_new_service_user,
    ephemeral_text,
    refinement_runs,
    reply,
    shared_ready_made_thread,
    thread_messages,
    wait_ephemeral_with,
    wait_turn,
)

from suggestbot.demo.stage import ALICE, BRUNO, CAROL, Stage, wait_for
from suggestbot.flows.common import slackio
from suggestbot.slackemu import BOT_ID, BOT_USER_ID
from suggestbot.ui.blocks.results import Message


def test_each_reply_runs_with_the_repliers_own_account(stage: Stage) -> None:
    bruno_service_id = connect_as_new_service_user(stage, BRUNO)
    alice_service_id = connect_as_new_service_user(stage, ALICE)
    ts, variant_ids = shared_ready_made_thread(stage)

    reply(stage, BRUNO, ts, "1: kürzer bitte")
    wait_turn(stage, ts, 2)
    reply(stage, ALICE, ts, "and friendlier")
    wait_turn(stage, ts, 3)

    first, second = sorted(refinement_runs(stage), key=lambda r: r.created_at)
    assert first.created_by == bruno_service_id
    assert first.request.parent_suggestion_id == variant_ids[0]
    assert second.created_by == alice_service_id
    assert second.request.parent_suggestion_id == first.suggestion_id
    # each turn is written in the channel's language (the workspace's), whoever asked for it
    transcript = stage.emu.transcript(stage.channel, thread_ts=ts)
    assert "== Turn 2 · Email ==" in transcript and "<@U0BRUNO> asked:" in transcript
    assert "== Turn 3 · Email ==" in transcript and "<@U0ALICE> asked:" in transcript


def test_a_parent_the_replier_cannot_see_is_explained_not_failed(stage: Stage) -> None:
    connect(stage, ALICE)
    ts = brief_thread(stage, ALICE, "Email about the spring sale")
    connect_as_new_service_user(stage, CAROL)
    replies_before = len(thread_messages(stage, ts))

    reply(stage, CAROL, ts, "Make it punchier")

    wait_for(lambda: "can't see" in ephemeral_text(stage, CAROL), what="the explanation")
    assert "can't see this suggestion in the content service" in ephemeral_text(stage, CAROL)
    assert "Sorry, something went wrong" not in ephemeral_text(stage, CAROL)
    assert refinement_runs(stage) == []
    # no status reply in the thread: the channel only sees Bruno's own message
    assert len(thread_messages(stage, ts)) == replies_before + 1


def test_unlinked_replier_is_asked_to_connect_and_resends_with_one_click(stage: Stage) -> None:
    ts, _ = shared_ready_made_thread(stage)
    reply(stage, CAROL, ts, "2: mention the rain jackets")
    prompt = wait_ephemeral_with(stage, CAROL, "connect")
    assert prompt.get("thread_ts") == ts
    assert refinement_runs(stage) == []

    stage.slack.press_button(prompt, "Connect account", user_id=CAROL)
    wait_for(lambda: stage.emu.current_view(CAROL) is not None, what="the connect modal")
    assert stage.sandbox.demo is not None
    carol_service_id, token = stage.sandbox.create_user_token(stage.sandbox.demo.tenant_id)
    stage.slack.submit_view(CAROL, {"Personal token": token})
    wait_for(
        lambda: "Your reply is kept" in ephemeral_text(stage, CAROL),
        what="the offer to resend the kept reply",
    )

    stage.slack.press_button(prompt, "Resend", user_id=CAROL)
    wait_turn(stage, ts, 2)
    [run] = refinement_runs(stage)
    assert run.created_by == carol_service_id
    assert run.request.instruction == "mention the rain jackets"


def _message_event(stage: Stage, ts: str, **fields: Any) -> dict[str, Any]:
    event: dict[str, Any] = {
        "type": "message",
        "channel": stage.channel,
        "channel_type": "channel",
        "team": stage.emu.team_id,
        "ts": f"{float(ts) + 50:.6f}",
        "event_ts": f"{float(ts) + 50:.6f}",
        "thread_ts": ts,
        "text": "make it louder",
    }
    event.update(fields)
    return event


def test_only_a_persons_new_reply_in_our_thread_starts_a_refinement(stage: Stage) -> None:
    connect(stage, ALICE)
    ts = brief_thread(stage, ALICE, "Email about the new trail shoes")
    told_before = stage.emu.ephemerals(ALICE)
    ignored = [
        _message_event(stage, ts, user=BOT_USER_ID, bot_id=BOT_ID, subtype="bot_message"),
        _message_event(stage, ts, bot_id="B0OTHER", user="U0OTHERBOT"),
        _message_event(
            stage,
            ts,
            subtype="message_changed",
            message={"user": ALICE, "text": "make it louder", "ts": ts, "thread_ts": ts},
        ),
        _message_event(stage, ts, subtype="message_deleted", deleted_ts=ts),
        _message_event(stage, ts, subtype="channel_join", user=ALICE),
        _message_event(stage, ts, user=ALICE, parent_user_id=BRUNO),
    ]
    for event in ignored:
        answer = stage.slack.event(event)
        assert answer.status == 200 and answer.acked_in_time
    # a thread started by a person, and one the app posted but never bound
    person_root = stage.slack.post_user_message(BRUNO, stage.channel, "lunch?")
    stage.slack.post_user_message(ALICE, stage.channel, "yes", thread_ts=person_root.ts)
    assert stage.runtime is not None
    other_ts = slackio.post(
        stage.runtime.deps, channel=stage.channel, message=Message(text="FYI", blocks=[])
    )
    stage.slack.post_user_message(ALICE, stage.channel, "thanks", thread_ts=other_ts)

    # the one that counts, sent last: once its turn is posted, the others have been handled
    reply(stage, ALICE, ts, "make it louder")
    wait_turn(stage, ts, 2)
    assert len(refinement_runs(stage)) == 1
    assert stage.emu.ephemerals(ALICE) == told_before
    assert len(stage.emu.messages(stage.channel, thread_ts=person_root.ts)) == 2
    assert len(stage.emu.messages(stage.channel, thread_ts=other_ts)) == 2
