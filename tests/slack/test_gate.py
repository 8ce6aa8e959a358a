"""The outbound gate: Slack's tiers, one post a second per channel, priorities, 429 pauses.

Every wait is measured on a fake clock that the gate's own ``sleep`` moves forward.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from typing import Any

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web import SlackResponse

from suggestbot.slack import Dropped, Priority, SlackGate, priority
from suggestbot.slack.budget import WINDOW_S
from suggestbot.slack.gate import DECORATION_WAIT_S, Closed


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.slept = 0.0
        self.lock = threading.Lock()

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        with self.lock:
            self.now += seconds
            self.slept += seconds


def gate_on(clock: Clock, **kwargs: Any) -> SlackGate:
    return SlackGate(clock=clock, wall_clock=clock, sleep=clock.sleep, **kwargs)


def ok() -> dict[str, Any]:
    return {"ok": True}


def answer_429(retry_after: int) -> SlackApiError:
    response = SlackResponse(
        client=None,
        http_verb="POST",
        api_url="https://slack.test/api/x",
        req_args={},
        data={"ok": False, "error": "ratelimited"},
        headers={"retry-after": str(retry_after)},
        status_code=429,
    )
    return SlackApiError("ratelimited", response)


@pytest.mark.parametrize(
    ("method", "per_minute"),
    [("chat.update", 50), ("views.publish", 100), ("conversations.list", 20)],
)
def test_a_tier_allows_n_calls_a_minute_and_holds_the_next(method: str, per_minute: int) -> None:
    """Tier 3 (chat.update), Tier 4 (views.publish, sent as urgent here) and an unknown method
    (Tier 2): n calls go at once, call n+1 waits until the first has left Slack's minute."""
    clock = Clock()
    gate = gate_on(clock)
    stack = contextlib.ExitStack()
    stack.enter_context(priority(Priority.URGENT))
    for _ in range(per_minute):
        gate.send(method, None, ok)
    assert clock.slept == 0
    gate.send(method, None, ok)
    assert WINDOW_S - 0.5 <= clock.slept <= WINDOW_S + 0.5
    stack.close()


def test_a_channel_takes_a_short_burst_then_one_post_a_second() -> None:
    clock = Clock()
    gate = gate_on(clock)
    for _ in range(3):
        gate.send("chat.postMessage", "C1", ok)
    assert clock.slept == 0
    gate.send("chat.postMessage", "C2", ok)  # another channel is not held back
    assert clock.slept == 0
    gate.send("chat.postMessage", "C1", ok)
    assert 1.0 <= clock.slept <= 1.1
    gate.send("chat.postMessage", "C1", ok)
    assert 2.0 <= clock.slept <= 2.2


def test_a_429_pauses_the_method_in_that_workspace_for_every_caller() -> None:
    clock = Clock()
    gate = gate_on(clock)
    answers = [answer_429(7)]

    def first() -> dict[str, Any]:
        if answers:
            raise answers.pop()
        return ok()

    assert gate.send("chat.update", None, first) == {"ok": True}  # urgent: tried again
    assert 7.0 <= clock.slept <= 7.3
    before = clock.slept
    gate.send("chat.update", None, ok)  # the pause has passed: goes at once
    assert clock.slept == before


def test_a_pause_holds_other_callers_and_not_other_methods() -> None:
    clock = Clock()
    gate = gate_on(clock)
    with pytest.raises(SlackApiError), priority(Priority.DECORATION):
        gate.send("chat.update", None, lambda: (_ for _ in ()).throw(answer_429(30)))
    gate.send("views.open", None, ok)  # another method is not paused
    assert clock.slept == 0
    gate.send("chat.update", None, ok)  # another caller of the paused method waits it out
    assert 29.5 <= clock.slept <= 30.5


def test_decoration_leaves_a_reserve_for_what_people_wait_for() -> None:
    """Status lines spend Tier 3 only down to a fifth of the minute; the results' updates
    still have their share, and decoration that cannot go soon is dropped, not queued."""
    clock = Clock()
    gate = gate_on(clock)
    sent = 0
    with priority(Priority.DECORATION):
        for _ in range(60):
            try:
                gate.send("chat.update", None, ok)
                sent += 1
            except Dropped:
                break
    assert sent == 40
    assert clock.slept <= DECORATION_WAIT_S
    for _ in range(10):
        gate.send("chat.update", None, ok)  # urgent: the reserve is there
    assert clock.slept <= DECORATION_WAIT_S


def test_an_urgent_call_waiting_makes_decoration_give_way() -> None:
    clock = Clock()
    gate = gate_on(clock)
    gate.budget.urgent_waiting("-", "chat.update", +1)
    with pytest.raises(Dropped), priority(Priority.DECORATION):
        gate.send("chat.update", None, ok)
    gate.budget.urgent_waiting("-", "chat.update", -1)
    with priority(Priority.DECORATION):
        gate.send("chat.update", None, ok)


def test_methods_that_only_decorate_are_decoration_by_default() -> None:
    clock = Clock()
    gate = gate_on(clock)
    for _ in range(80):  # Tier 3: 40 above the reserve
        try:
            gate.send("assistant.threads.setStatus", "C1", ok)
        except Dropped:
            break
    assert gate.budget.used("-", "assistant.threads.setStatus", clock()) == 40


def test_workspaces_have_their_own_budgets() -> None:
    clock = Clock()
    team = ["T1"]
    gate = gate_on(clock, workspace=lambda: team[0])
    for _ in range(50):
        gate.send("chat.update", None, ok)
    team[0] = "T2"
    gate.send("chat.update", None, ok)
    assert clock.slept == 0


def test_replicas_take_fair_shares_of_a_workspace_budget() -> None:
    """Three live replicas: each may spend a third of the minute, so together they never
    spend more than Slack allows."""
    clock = Clock()
    gate = gate_on(clock, shares=lambda: 3)
    for _ in range(16):
        gate.send("chat.update", None, ok)
    assert clock.slept == 0
    gate.send("chat.update", None, ok)
    assert clock.slept >= WINDOW_S - 0.5


def test_state_is_forgotten_once_it_limits_nothing() -> None:
    """Channels, methods and pauses are kept only while they limit something: a long-running
    app does not remember every channel it ever posted to."""
    clock = Clock()
    gate = gate_on(clock, workspace=lambda: "T1")
    for n in range(300):
        gate.send("chat.postMessage", f"C{n}", ok)
        gate.send("chat.update", None, ok) if n < 50 else None
    assert gate.budget.size() > 300
    clock.now += WINDOW_S + 1
    gate.send("views.open", None, ok)  # any call sweeps what expired
    assert gate.budget.size() == 1  # only views.open's own minute


def test_one_warning_a_minute_per_workspace_while_decoration_is_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    gate = gate_on(clock, workspace=lambda: "T1")
    with priority(Priority.URGENT):
        for _ in range(100):
            gate.send("views.publish", None, ok)  # urgent calls spend the minute
    caplog.set_level(logging.WARNING, logger="suggestbot.slack.gate")
    dropped = 0
    for _ in range(25):
        with pytest.raises(Dropped), priority(Priority.DECORATION):
            gate.send("views.publish", None, ok)
        dropped += 1
    warnings = [r for r in caplog.records if "budget is short" in r.getMessage()]
    assert dropped == 25
    assert len(warnings) == 1
    assert "T1" in warnings[0].getMessage()


def test_a_roots_passing_progress_stops_at_half_the_minute() -> None:
    """A burst of "running" updates never spends what the roots' "ready" needs."""
    clock = Clock()
    gate = gate_on(clock)
    sent = 0
    with priority(Priority.PROGRESS):
        for _ in range(50):
            try:
                gate.send("chat.update", None, ok)
                sent += 1
            except Dropped:
                break
    assert sent == 25
    with priority(Priority.DECORATION):
        for _ in range(15):
            gate.send("chat.update", None, ok)  # final states still have their share


def test_a_modal_is_not_held_past_its_triggers_life() -> None:
    """views.open must answer within the trigger's 3 s: past Tier 4's minute it is held at
    most 2 s, not until the minute has room (which would make the trigger useless)."""
    clock = Clock()
    gate = gate_on(clock)
    for _ in range(100):
        gate.send("views.open", None, ok)
    gate.send("views.open", None, ok)
    assert clock.slept <= 2.3


def test_once_closed_a_call_that_would_wait_fails_at_once_and_one_that_may_go_goes() -> None:
    """On SIGTERM a backlog of posts into one channel (one a second) must not hold the
    shutdown: a post waiting for its second fails as Slack out of reach (its work is recorded
    and resumed elsewhere), one into another channel still goes, decoration is dropped."""
    frozen = Clock()  # time stands still: a waiting call waits until something else happens
    gate = SlackGate(clock=frozen, wall_clock=frozen, sleep=lambda s: threading.Event().wait(0.01))
    for _ in range(3):
        gate.send("chat.postMessage", "C1", ok)  # the channel's burst is spent
    outcome: list[BaseException | None] = []

    def held() -> None:
        try:
            gate.send("chat.postMessage", "C1", ok)
            outcome.append(None)
        except BaseException as exc:  # the assertion below says what it was
            outcome.append(exc)

    waiting = threading.Thread(target=held)
    waiting.start()
    waiting.join(timeout=0.5)
    assert waiting.is_alive() and outcome == []  # held for the channel's next second

    gate.close()
    waiting.join(timeout=5)
    assert not waiting.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], Closed)
    assert isinstance(outcome[0], OSError)  # flows take it as Slack out of reach
    assert gate.send("chat.postMessage", "C2", ok) == {"ok": True}
    with pytest.raises(Closed):
        gate.send("chat.postMessage", "C1", ok)
    with pytest.raises(Dropped), priority(Priority.DECORATION):
        gate.send("chat.postMessage", "C1", ok)
    for _ in range(100):
        gate.send("views.open", None, ok)
    assert gate.send("views.open", None, ok) == {"ok": True}  # its trigger cannot wait
