"""Refining in a brief's thread as people see it: a reply becomes a status reply, then "Turn n";
with several variants the app asks which one, and nothing typed is lost on the way."""

from __future__ import annotations

from typing import Any

import pytest
from flows_helpers import (
    ALICE,
    BRUNO,
    CHANNEL,
    SEGMENT,
    TEAM,
    USE_CASE,
    Posted,
    World,
    buttons,
    email,
    refused,
    world,
)

from suggestbot.flows.brief import sending as brief
from suggestbot.flows.common import requests, usage
from suggestbot.flows.feedback import votes as feedback
from suggestbot.flows.refine import again as refine_again
from suggestbot.flows.refine import replies as refine
from suggestbot.jobs import run_watcher
from suggestbot.store.records import Request
from suggestbot.ui.blocks import ids
from suggestbot.ui.messages import t
from suggestbot.ui.replies import ThreadReply


@pytest.fixture
def w() -> World:
    return world()


def _finished_brief(w: World, count: int) -> Request:
    """A brief of Alice's whose run succeeded with ``count`` variants, not yet posted."""
    w.link(ALICE)
    req = brief.start(
        w.deps,
        team_id=TEAM,
        user_id=ALICE,
        channel_id=CHANNEL,
        run_request=brief.steered_request(
            segment_id=SEGMENT, use_case_id=USE_CASE, text="Boots", variants=count
        ),
        labels={"segment": "Hikers", "use_case": "Spring launch"},
    )
    variants = [email(f"s{n}", n, f"Subject {n}") for n in range(1, count + 1)]
    w.service.succeed(w.service.run_of()["id"], variants)
    return req


def _results(w: World, count: int) -> Posted:
    """A brief of Alice's whose ``count`` variants are posted; its root."""
    run_watcher.poll(w.deps, _finished_brief(w, count).id)
    [root] = w.slack.roots()
    return root


def _reply(w: World, root: Posted, text: str, *, user: str = ALICE) -> None:
    reply = ThreadReply(
        team_id=TEAM, user_id=user, channel=CHANNEL, thread_ts=root.ts, ts="9.9", text=text
    )
    refine.on_reply(w.deps, reply)


def _refinement_of(w: World, instruction: str) -> Request:
    [req] = [
        r
        for r in w.deps.records.requests.values()
        if r.kind == "refinement" and r.body.get("instruction") == instruction
    ]
    return req


def _refinement(w: World) -> Request:
    [req] = [r for r in w.deps.records.requests.values() if r.kind == "refinement"]
    return req


def test_a_reply_refines_the_only_variant_and_its_status_reply_says_queued(w: World) -> None:
    root = _results(w, 1)
    _reply(w, root, "shorter, and mention the rain")
    assert w.service.created[-1] == {
        "type": "refinement",
        "parent_suggestion_id": "s1",
        "instruction": "shorter, and mention the rain",
    }
    status = w.slack.thread(root)[-1]
    assert status.text == t("turn.queued", "en", user=ALICE)
    assert "> shorter, and mention the rain" in str(status.blocks)


def test_a_status_reply_posted_just_before_a_crash_is_found_again_not_posted_twice(
    w: World,
) -> None:
    """Killed between posting the status reply and writing down its ts: whoever takes the
    request over finds the reply in the thread (a channel's history does not list replies)."""
    root = _results(w, 1)
    _reply(w, root, "shorter")
    req = _refinement(w)
    posted = req.root_ts
    # As the store was left: where it was about to be posted, not what was posted.
    w.deps.records.requests.update(req.id, lambda r: r.model_copy(update={"root_ts": None}))

    requests.post_root(w.deps, req.id)

    mine = [
        m
        for m in w.slack.thread(root)
        if (m.metadata or {}).get("event_payload", {}).get("request_id") == req.id
    ]
    assert [m.ts for m in mine] == [posted]
    assert w.deps.records.requests.get(req.id).root_ts == posted


def test_a_succeeded_refinement_becomes_the_next_turn_in_place(w: World) -> None:
    root = _results(w, 1)
    _reply(w, root, "warmer")
    run_id = w.service.run_of()["id"]
    w.service.succeed(run_id, [email("s1-r", 1, "Warmer subject", "Warm body")])
    run_watcher.poll(w.deps, _refinement(w).id)
    turn = w.slack.thread(root)[-1]
    assert turn.text == "Turn 2 · Email: Warmer subject"
    assert turn.updates >= 1  # the status reply became the turn, not a new message
    assert ("Refine…", ids.ACTION_REFINE_OPEN) in buttons(turn.blocks)
    # the turn can be rated like a variant: feedback on the refinement request's result
    [rated] = [b for b in turn.blocks if b["type"] == "context_actions"]
    value = rated["elements"][0]["positive_button"]["value"]
    assert value == f"up:{_refinement(w).id}:1"
    usage_before = usage.panel(w.deps, team_id=TEAM)
    assert usage_before.refinements_7 == 1
    vote = feedback.vote(
        w.deps, team_id=TEAM, user_id=ALICE, value=value.removeprefix("up:"), positive=True
    )
    assert vote is not None
    [line] = usage.panel(w.deps, team_id=TEAM).rates  # counted for the thread's segment
    assert (line.segment, line.up_7, line.votes_7) == ("Hikers", 1, 1)
    assert "turn 2" in str(root.blocks)  # the root shows the thread's newest turn
    _reply(w, root, "now shorter")
    assert w.service.created[-1]["parent_suggestion_id"] == "s1-r"  # threads do not branch


def test_a_reply_sent_the_moment_a_turn_shows_refines_that_turn(
    w: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Someone who replies as soon as "Turn 2" appears refines Turn 2: the thread's head has
    moved on before the turn is shown (else the service refuses the older parent)."""
    root = _results(w, 1)
    _reply(w, root, "warmer")
    w.service.succeed(w.service.run_of()["id"], [email("s1-r", 1, "Warmer subject")])
    shown = w.slack.chat_update

    def update_then_reply(**kwargs: Any) -> dict[str, Any]:
        answer = shown(**kwargs)
        if kwargs["text"].startswith("Turn 2"):
            _reply(w, root, "now add the date")  # replied to what just appeared
        return answer

    monkeypatch.setattr(w.slack, "chat_update", update_then_reply)
    run_watcher.poll(w.deps, _refinement_of(w, "warmer").id)
    assert w.service.created[-1] == {
        "type": "refinement",
        "parent_suggestion_id": "s1-r",
        "instruction": "now add the date",
    }


def test_a_reply_sent_while_the_root_still_says_generating_refines_the_posted_variant(
    w: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The variants are in the thread; the root's "ready" waits for Slack's budget. A reply
    sent in between refines the variant people see, instead of being told to wait."""
    req = _finished_brief(w, 1)
    shown = w.slack.chat_update

    def root_update_then_reply(**kwargs: Any) -> dict[str, Any]:
        root = w.slack.messages[(kwargs["channel"], kwargs["ts"])]
        if root.thread_ts is None and w.slack.thread(root):  # the root, its variant posted
            _reply(w, root, "shorter")
        return shown(**kwargs)

    monkeypatch.setattr(w.slack, "chat_update", root_update_then_reply)
    run_watcher.poll(w.deps, req.id)
    assert w.service.created[-1] == {
        "type": "refinement",
        "parent_suggestion_id": "s1",
        "instruction": "shorter",
    }
    assert not w.slack.ephemerals  # nobody was told to reply again


def test_with_several_variants_the_author_is_asked_which_one_and_nothing_is_sent(
    w: World,
) -> None:
    root = _results(w, 3)
    _reply(w, root, "friendlier")
    assert [c["type"] for c in w.service.created] == ["steered_generation"]
    [asked] = w.slack.ephemerals
    assert (asked.user, asked.thread_ts) == (ALICE, root.ts)
    assert asked.text == t("choose.question", "en", count=3)
    assert "Email: Subject 2" in str(asked.blocks)  # each variant told apart by its subject
    choose_two = next(
        e["value"]
        for b in asked.blocks
        if b["type"] == "actions"
        for e in b["elements"]
        if e["action_id"] == f"{ids.ACTION_CHOOSE_VARIANT}.2"
    )
    refine.on_choice(w.deps, value=choose_two, team_id=TEAM, user_id=ALICE, response_url=None)
    assert w.service.created[-1]["parent_suggestion_id"] == "s2"
    assert w.service.created[-1]["instruction"] == "friendlier"  # what was typed, kept
    # twice:
    refine.on_choice(w.deps, value=choose_two, team_id=TEAM, user_id=ALICE, response_url=None)
    assert len(w.service.created) == 2


def test_n_colon_picks_the_variant_and_an_empty_instruction_is_explained(w: World) -> None:
    root = _results(w, 2)
    _reply(w, root, "2:")
    assert w.slack.seen_by(ALICE) == [t("refine.empty", "en")]
    _reply(w, root, "2: in German")
    assert w.service.created[-1]["parent_suggestion_id"] == "s2"
    assert w.service.created[-1]["instruction"] == "in German"


def test_a_reply_from_someone_not_connected_is_kept_for_a_one_click_resend(w: World) -> None:
    root = _results(w, 1)
    _reply(w, root, "more formal", user=BRUNO)
    [prompt] = w.slack.ephemerals
    assert (prompt.user, prompt.text) == (BRUNO, t("refine.connect_needed", "en"))
    assert buttons(prompt.blocks) == [
        ("Connect account", ids.ACTION_CONNECT),
        ("Resend", ids.ACTION_RESEND),
    ]
    [held] = list(w.deps.records.held.values())
    assert held.text == "more formal" and held.thread_ts == root.ts
    w.link(BRUNO)
    refine.resend_held(w.deps, held, team_id=TEAM, acting_user=BRUNO)
    assert w.service.created[-1]["instruction"] == "more formal"
    assert _refinement(w).user_id == BRUNO  # sent with Bruno's own token


def test_a_refinement_of_a_parent_no_longer_newest_offers_to_refine_the_newest(
    w: World,
) -> None:
    root = _results(w, 1)
    _reply(w, root, "bolder")
    w.service.fail(w.service.run_of()["id"], "invalid_parent")
    run_watcher.poll(w.deps, _refinement(w).id)
    status = w.slack.thread(root)[-1]
    reason = t("fail.invalid_parent", "en")
    assert status.text == t("turn.failed", "en", user=ALICE, reason=reason)
    assert buttons(status.blocks) == [("Refine newest", ids.ACTION_REFINE_HEAD)]
    failed = _refinement(w)
    refine_again.refine_head(w.deps, request_id=failed.id, team_id=TEAM, acting_user=ALICE)
    assert _refinement(w).id == failed.id  # the author's refinement, sent again in place
    assert w.service.created[-1]["instruction"] == "bolder"
    assert w.slack.thread(root)[-1].text == t("turn.queued", "en", user=ALICE)


def test_a_rejected_instruction_is_told_as_the_reply_s_fault_with_no_edit_button(
    w: World,
) -> None:
    root = _results(w, 1)
    w.service.create_answers.append(refused(422, "input_rejected"))
    _reply(w, root, "   x")
    status = w.slack.thread(root)[-1]
    assert status.text.startswith(f":x: The refinement from <@{ALICE}> failed: ")
    assert status.text.endswith(t("fail.instruction.input_rejected", "en"))
    assert buttons(status.blocks) == []  # Edit and resend is for briefs only


def test_a_reply_before_the_results_are_posted_is_asked_to_wait(w: World) -> None:
    w.link(ALICE)
    brief.start(
        w.deps,
        team_id=TEAM,
        user_id=ALICE,
        channel_id=CHANNEL,
        run_request=brief.steered_request(
            segment_id=SEGMENT, use_case_id=USE_CASE, text="Boots", variants=1
        ),
        labels={},
    )
    [root] = w.slack.roots()
    _reply(w, root, "shorter")
    assert w.slack.seen_by(ALICE) == [t("refine.not_ready", "en")]
    assert len(w.service.created) == 1
