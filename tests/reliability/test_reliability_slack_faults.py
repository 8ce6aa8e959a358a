"""Slack misbehaving: 429s with Retry-After, 5xx (within the client's retries and past them),
and deliveries that arrive more than once, even while the first is still being handled.

Whatever Slack does, each brief makes one run, each message the app means to post appears
exactly once, and none goes missing.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any

import httpx
import pytest
from reliability_harness import (
    ProcessStage,
    StageFactory,
    brief_modal,
    brief_values,
    database_snapshot,
    generic_errors,
    held_back,
    is_ready,
    poll,
    result_problems,
    roots_by_tag,
    runs_by_tag,
    send_brief_by_modal,
    wait_for,
    wait_quiet,
)

from suggestbot.demo.stage import ALICE, BRUNO, CAROL, CHANNEL_LANG
from suggestbot.sandbox.faults import RunTiming
from suggestbot.slackemu.results import AppResponse
from suggestbot.ui.messages import t, tn

TAG = re.compile(r"\[k\d{2}\]")
SETTLE_TIMEOUT_S = 60.0


def tag(n: int) -> str:
    return f"[k{n:02d}]"


def start(process_stage: StageFactory, name: str) -> ProcessStage:
    return process_stage(
        name,
        time_factor=0.02,
        poll_scale=0.05,
        run_timing=RunTiming(queued_s=20.0, running_s=40.0),
    )


def first_briefs(stage: ProcessStage, variants: dict[str, int]) -> dict[str, tuple[str, int]]:
    """One brief per person through the modal with Slack well: their choices are remembered."""
    sent: dict[str, tuple[str, int]] = {}
    for n, (user, count) in enumerate(variants.items(), start=1):
        answer = send_brief_by_modal(stage, user, f"{tag(n)} Launch email", variants=count)
        assert answer.response.status == 200 and not answer.errors
        sent[tag(n)] = (user, count)
    settle(stage, sent)
    return sent


def problems(stage: ProcessStage, sent: dict[str, tuple[str, int]]) -> list[str]:
    roots, runs = roots_by_tag(stage, TAG), runs_by_tag(stage, TAG)
    found: list[str] = []
    for key, (user, variants) in sent.items():
        if len(roots.get(key, [])) != 1:
            found.append(f"{key}: {len(roots.get(key, []))} roots")
            continue
        found += [
            f"{key}: {p}"
            for p in result_problems(stage, roots[key][0], user=user, variants=variants)
        ]
        if runs.get(key) != 1:
            found.append(f"{key}: {runs.get(key, 0)} runs")
    return found


def settle(stage: ProcessStage, sent: dict[str, tuple[str, int]]) -> None:
    poll(lambda: not problems(stage, sent), timeout=SETTLE_TIMEOUT_S)
    # Once all is there, nothing more may arrive (a late duplicate would show here).
    wait_quiet(lambda: len(stage.emu.calls("chat.postMessage")), settle_s=1.5, timeout=30)
    assert problems(stage, sent) == []
    assert len(stage.emu.messages(stage.channel)) == len(sent)  # no stray roots


@pytest.mark.timeout(240)
def test_429s_and_5xx_within_the_retry_budget_double_and_lose_nothing(
    process_stage: StageFactory,
) -> None:
    stage = start(process_stage, "slack_429_5xx")
    stage.connect_all(ALICE, BRUNO, CAROL)
    sent = first_briefs(stage, {ALICE: 3, BRUNO: 2, CAROL: 1})
    faults = stage.emu.faults
    faults.server_error("chat.postMessage", times=2, status=503)
    faults.rate_limit("chat.postMessage", retry_after=1, times=3)
    faults.server_error("chat.update", times=2, status=500)
    faults.rate_limit("chat.update", retry_after=1, times=2)
    for n, user in enumerate((ALICE, BRUNO, CAROL, ALICE, BRUNO, CAROL), start=len(sent) + 1):
        answer = stage.slack.slash_command(user, stage.channel, f"brief {tag(n)} Post for May")
        assert answer.status == 200
        sent[tag(n)] = (user, sent[tag((n - 1) % 3 + 1)][1])
    settle(stage, sent)
    # Slack really refused: every injected 429 and 5xx was met (and ridden out).
    refused = [c for c in stage.emu.calls() if c.status in (429, 500, 503)]
    assert len(refused) == 2 + 3 + 2 + 2
    assert generic_errors(stage) == []


@pytest.mark.timeout(240)
def test_slack_down_past_its_retries_delays_posts_but_loses_none(
    process_stage: StageFactory,
) -> None:
    stage = start(process_stage, "slack_down")
    stage.connect_all(ALICE, BRUNO)
    sent = first_briefs(stage, {ALICE: 2, BRUNO: 3})
    # The client tries each call 4 times (3 retries on a 503); these outages outlast that
    # several times over, so the app itself must come back to what it could not post or
    # update: the roots first, and every update up to and including the final "ready".
    stage.emu.faults.server_error("chat.postMessage", times=10, status=503)
    stage.emu.faults.server_error("chat.update", times=32, status=503)
    for n, user in enumerate((ALICE, BRUNO), start=len(sent) + 1):
        answer = stage.slack.slash_command(user, stage.channel, f"brief {tag(n)} Post for June")
        assert answer.status == 200
        sent[tag(n)] = (user, sent[tag(n - 2)][1])
    settle(stage, sent)
    failed = [c for c in stage.emu.calls() if c.status == 503]
    assert len(failed) == 10 + 32
    # Among what failed for good at first: a root, and a final "ready" (both came back).
    refused = {str(c.args.get("text")) for c in failed}
    assert any(t("root.sending", CHANNEL_LANG, user=u) in refused for u in (ALICE, BRUNO))
    ready = {tn("root.ready", CHANNEL_LANG, user=u, count=n) for u, n in sent.values()}
    assert refused & ready
    assert generic_errors(stage) == []


# ---------------------------------------------------------------------- repeated deliveries


def deliver_together(
    stage: ProcessStage, *bodies: tuple[bytes, dict[str, Any]]
) -> list[AppResponse]:
    """Send every body at the same moment, each on its own connection."""
    barrier = threading.Barrier(len(bodies))
    answers: list[AppResponse | BaseException | None] = [None] * len(bodies)

    def send(i: int) -> None:
        body, kwargs = bodies[i]
        with httpx.Client(timeout=30) as client:
            barrier.wait(timeout=10)
            try:
                answers[i] = stage.slack.send(body, client=client, **kwargs)
            except BaseException as exc:
                answers[i] = exc

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(bodies))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=40)
    assert all(isinstance(a, AppResponse) for a in answers), answers
    return [a for a in answers if isinstance(a, AppResponse)]


def root_of(stage: ProcessStage, key: str) -> dict[str, Any]:
    return wait_for(lambda: (roots_by_tag(stage, TAG).get(key) or [None])[0], what=key)


def failed_root(stage: ProcessStage, key: str, user: str) -> dict[str, Any]:
    failed = t("root.failed", CHANNEL_LANG, user=user, reason="")
    return wait_for(
        lambda: next(
            (r for r in roots_by_tag(stage, TAG).get(key, []) if r["text"].startswith(failed)),
            None,
        ),
        what=f"{key} to fail",
    )


@pytest.mark.timeout(240)
def test_repeated_deliveries_make_one_run_and_one_post(process_stage: StageFactory) -> None:
    stage = start(process_stage, "slack_repeats")
    stage.connect_all(ALICE)
    sent: dict[str, tuple[str, int]] = {}

    # A modal submission delivered three times at once.
    stage.slack.slash_command(ALICE, stage.channel, "brief")
    wait_for(lambda: brief_modal(stage, ALICE), what="the brief modal")
    with held_back(stage) as bodies:
        stage.slack.submit_view(ALICE, brief_values(stage, ALICE, f"{tag(1)} Email", 2))
    answers = deliver_together(stage, *bodies * 3)
    assert [a.status for a in answers] == [200] * 3
    sent[tag(1)] = (ALICE, 2)
    settle(stage, sent)

    # A slash command delivered three times at once (remembered choices: a run at once).
    with held_back(stage) as bodies:
        stage.slack.slash_command(ALICE, stage.channel, f"brief {tag(2)} Email again")
    assert [a.status for a in deliver_together(stage, *bodies * 3)] == [200] * 3
    sent[tag(2)] = (ALICE, 2)
    settle(stage, sent)

    # Retry pressed: the same press delivered three times, then a double click (two presses).
    retry = t("button.retry", CHANNEL_LANG)
    stage.sandbox.faults.fail_next_runs = ["generation_failed", "generation_failed"]
    for key in (tag(3), tag(4)):
        stage.slack.slash_command(ALICE, stage.channel, f"brief {key} Will fail once")
        failed_root(stage, key, ALICE)
    with held_back(stage) as bodies:
        stage.slack.press_button(failed_root(stage, tag(3), ALICE), retry, user_id=ALICE)
    deliver_together(stage, *bodies * 3)
    with held_back(stage) as bodies:
        for _ in range(2):
            stage.slack.press_button(failed_root(stage, tag(4), ALICE), retry, user_id=ALICE)
    assert len({body for body, _ in bodies}) == 2  # two distinct presses
    deliver_together(stage, *bodies)
    for key in (tag(3), tag(4)):
        wait_for(lambda k=key: is_ready(root_of(stage, k), user=ALICE, variants=2), what=key)
    # One failed run and one retried run each: the repeats and the second click sent nothing.
    assert runs_by_tag(stage, TAG, status="failed") == {tag(3): 1, tag(4): 1}
    assert runs_by_tag(stage, TAG, status="succeeded") == {tag(1): 1, tag(2): 1} | {
        tag(3): 1,
        tag(4): 1,
    }
    wait_quiet(lambda: len(stage.emu.calls("chat.postMessage")), settle_s=1.5, timeout=30)
    for key in (tag(3), tag(4)):
        assert result_problems(stage, root_of(stage, key), user=ALICE, variants=2) == []

    # A thread reply whose event Slack retries while the first delivery is being handled.
    root = root_of(stage, tag(1))
    with held_back(stage) as bodies:
        stage.slack.post_user_message(
            ALICE, stage.channel, "1: make it shorter", thread_ts=root["ts"]
        )
    envelope = json.loads(bodies[0][0])
    retried = stage.slack.deliver_with_retry_while_running(
        envelope["event"], event_id=envelope["event_id"]
    )
    assert retried.overlapped and (retried.first.status, retried.retry.status) == (200, 200)

    def refinements() -> list[dict[str, Any]]:
        table = database_snapshot(stage.data_dir).get("requests", {})
        found = [json.loads(v) for v in table.values()]
        return [r for r in found if r["kind"] == "refinement"]

    wait_for(
        lambda: [r["state"] for r in refinements()] == ["done"],
        what="the refinement",
        detail=lambda: str([r["state"] for r in refinements()]),
    )
    wait_quiet(lambda: len(stage.emu.calls("chat.postMessage")), settle_s=1.5, timeout=30)
    state = stage.sandbox.env.state
    with state.lock:
        kinds = [r.type for r in state.runs.values()]
    assert kinds.count("refinement") == 1
    thread = stage.emu.messages(stage.channel, thread_ts=root["ts"])
    reply_at = next(i for i, m in enumerate(thread) if m.get("user") == ALICE)
    answers_after = [m for m in thread[reply_at + 1 :] if m.get("bot_id")]
    assert len(answers_after) == 1, [m.get("text") for m in answers_after]
    assert generic_errors(stage) == []
