"""Status lines are renewed every minute — well inside the two minutes after which Slack drops
one — for the requests still working, each in its own workspace, by one replica at a time, and
a failing renewal never stops the next one."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace
from typing import Any, cast

from jobs_helpers import store_only_deps

from suggestbot.installations.scope import current_team
from suggestbot.jobs import status_renewal
from suggestbot.jobs.scheduler import Scheduler
from suggestbot.slack.outbound import StatusLines
from suggestbot.store.records import Request


class StatusSlack:
    def __init__(self, *, refuse: bool = False) -> None:
        self.calls: list[tuple[str | None, str, str, str]] = []
        self.refuse = refuse

    def assistant_threads_setStatus(self, **call: Any) -> dict[str, Any]:
        if self.refuse:
            raise RuntimeError("Slack is down")
        self.calls.append((current_team(), call["channel_id"], call["thread_ts"], call["status"]))
        return {"ok": True}


def _request(team: str, state: str, root_ts: str | None) -> Request:
    return Request(
        team_id=team,
        user_id="U1",
        channel_id="C1",
        post_channel_id="C1",
        root_ts=root_ts,
        body={"type": "steered_generation", "steering_text": "x"},
        state=state,  # type: ignore[arg-type]
        run_status="running" if state == "submitted" else None,
        attempt=1,
    )


def test_every_working_request_with_a_root_is_renewed_in_its_workspace() -> None:
    slack = StatusSlack()
    deps = store_only_deps(slack=slack)
    for req in (
        _request("T1", "submitted", "1.1"),
        _request("T2", "delayed", "2.2"),
        _request("T1", "done", "3.3"),  # ended: its results cleared the line
        _request("T1", "failed", "4.4"),  # ended: cleared when it failed
        _request("T1", "new", None),  # no root yet: nothing to show it under
    ):
        deps.records.requests.put(req.id, req)
    status_renewal.renew(deps)
    assert sorted(slack.calls) == [
        ("T1", "C1", "1.1", "is writing (attempt 1)…"),
        ("T2", "C1", "2.2", "is waiting: the service is busy, it sends again shortly…"),
    ]


def test_a_failing_renewal_is_logged_and_the_job_keeps_its_minute() -> None:
    deps = store_only_deps(slack=StatusSlack(refuse=True))
    req = _request("T1", "submitted", "1.1")
    deps.records.requests.put(req.id, req)
    status_renewal.renew(deps)  # does not raise
    scheduler = Scheduler(workers=1)
    status_renewal.schedule(scheduler, deps)
    assert status_renewal.JOB_ID in scheduler.job_ids()
    assert status_renewal.EVERY_S <= 60.0  # half of the two minutes Slack keeps a line


class Clock:
    def __init__(self) -> None:
        self.now = 1_900_000_000.0

    def __call__(self) -> float:
        return self.now


def test_one_replica_renews_the_lines_each_minute() -> None:
    slack = StatusSlack()
    first = store_only_deps(slack=slack)
    second = dataclasses.replace(first, owner="second replica")  # the same store and Slack
    req = _request("T1", "submitted", "1.1")
    first.records.requests.put(req.id, req)
    clock = Clock()
    for replica in (first, second):
        status_renewal.schedule(Scheduler(workers=1), replica, clock=clock)

    # Both look at the same moment: one of them renews the line.
    done = [status_renewal.renew_if_due(r, clock=clock) for r in (first, second)]
    assert sorted(done) == [False, True] and len(slack.calls) == 1
    # Looking again within the minute renews nothing; after it, one of them renews again.
    clock.now += status_renewal.LOOK_EVERY_S
    assert not any(status_renewal.renew_if_due(r, clock=clock) for r in (second, first))
    clock.now += status_renewal.EVERY_S - status_renewal.LOOK_EVERY_S
    done = [status_renewal.renew_if_due(r, clock=clock) for r in (second, first)]
    assert done == [True, False] and len(slack.calls) == 2


def test_a_replica_that_dies_renewing_leaves_the_next_renewal_to_another() -> None:
    slack = StatusSlack()
    dying = store_only_deps(slack=slack)
    living = dataclasses.replace(dying, owner="living replica")
    req = _request("T1", "submitted", "1.1")
    dying.records.requests.put(req.id, req)
    clock = Clock()
    status_renewal.schedule(Scheduler(workers=1), dying, clock=clock)
    queue = dying.records.status_renewal
    # The dying replica claimed the renewal and died before writing the next one.
    claimed = queue.claim_due(
        owner=dying.owner, now=clock(), due_by=clock(), lease_s=status_renewal.EVERY_S, limit=1
    )
    assert [c.key for c in claimed] == [status_renewal.UNIT]
    assert not status_renewal.renew_if_due(living, clock=clock)
    clock.now += status_renewal.EVERY_S
    assert status_renewal.renew_if_due(living, clock=clock) and len(slack.calls) == 1


class SlowStatusSlack(StatusSlack):
    """Each line takes ``took_s`` of the clock to set (thousands of lines, a slow Slack)."""

    def __init__(self, clock: Clock, took_s: float) -> None:
        super().__init__()
        self.clock = clock
        self.took_s = took_s

    def assistant_threads_setStatus(self, **call: Any) -> dict[str, Any]:
        self.clock.now += self.took_s
        return super().assistant_threads_setStatus(**call)


def test_a_renewal_that_runs_long_stops_and_the_next_look_goes_on_with_the_lines_left() -> None:
    clock = Clock()
    took_s = status_renewal.PASS_BUDGET_S * 0.6  # two lines and the pass is over its time
    slack = SlowStatusSlack(clock, took_s)
    deps = store_only_deps(slack=slack)
    # This process remembers the lines it set (a line set again within the minute is skipped).
    deps.outbound = cast(Any, SimpleNamespace(status_lines=StatusLines(clock=clock)))
    for n, root in enumerate(("1.1", "2.2", "3.3")):
        req = _request("T1", "submitted", root).model_copy(update={"created_at": clock() + n})
        deps.records.requests.put(req.id, req)
    status_renewal.schedule(Scheduler(workers=1), deps, clock=clock)

    # The first look renews the two longest-working and stops (it would outlast the look).
    assert status_renewal.renew_if_due(deps, clock=clock)
    assert [root for _, _, root, _ in slack.calls] == ["1.1", "2.2"]
    # The next look, not a minute later, goes on with the one left.
    clock.now += status_renewal.LOOK_EVERY_S
    assert status_renewal.renew_if_due(deps, clock=clock)
    assert [root for _, _, root, _ in slack.calls] == ["1.1", "2.2", "3.3"]
    # Everything renewed: the next renewal is a minute after that one.
    clock.now += status_renewal.LOOK_EVERY_S
    assert not status_renewal.renew_if_due(deps, clock=clock)
