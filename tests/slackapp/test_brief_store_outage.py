"""A brief recorded before the ack whose send met an unreachable store is taken up again, from
the state it reached, once the store answers — not left until the next start, and never sent
again once its run was accepted."""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest

from suggestbot.flows.common.deps import Deps
from suggestbot.jobs.lease_engine import SchedulerTimers
from suggestbot.jobs.scheduler import Scheduler
from suggestbot.slackapp.inputs.brief import resume_when_store_is_back
from suggestbot.store import MemoryStore, StoreUnavailable, TokenVault, generate_key
from suggestbot.store.codec import Record
from suggestbot.store.records import Records, Request


class OutageStore(MemoryStore):
    """A store whose reads fail as an unreachable database's do, ``failures`` times."""

    def __init__(self, failures: int) -> None:
        super().__init__()
        self.failures = failures

    def get(self, table: str, key: str) -> Record | None:
        if self.failures > 0:
            self.failures -= 1
            raise StoreUnavailable("PostgreSQL cannot be reached (test)")
        return super().get(table, key)


class RecordedTimers:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def watch_run(self, request_id: str, *, delay_s: float) -> None:
        self.calls.append(("watch", request_id))

    def send_later(self, request_id: str, *, at: float) -> None:
        self.calls.append(("send", request_id))

    def resume_send(self, request_id: str, *, at: float) -> None:
        self.calls.append(("send", request_id))

    def hold_send(self, request_id: str) -> None:
        """Holding the send is not what these tests look at."""

    def record_held_send(self, requests: Any, req: Any) -> bool:
        """Written, and its send held here (one write in the app)."""
        if not requests.put_if_absent(req.id, req):
            return False
        self.hold_send(req.id)
        return True

    def end_send(self, request_id: str) -> None:
        """Nor is ending it."""

    def cancel(self, request_id: str) -> None:
        self.calls.append(("cancel", request_id))


def _deps(store: OutageStore, timers: RecordedTimers) -> Deps:
    return Deps(
        records=Records(store),
        vault=TokenVault([generate_key()]),
        content=None,  # type: ignore[arg-type]
        slack=None,  # type: ignore[arg-type]
        timers=timers,
    )


def _request(state: Any) -> Request:
    return Request(team_id="T1", user_id="U1", channel_id="C1", body={}, state=state)


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        ("new", "send"),
        ("sending", "send"),  # a run created meanwhile is adopted by the send, not made twice
        ("delayed", "send"),
        ("submitted", "watch"),  # the run was accepted: watched, never sent again
        ("posting", "watch"),
    ],
)
def test_taken_up_by_the_state_it_reached_once_the_store_answers(state: str, expected: str) -> None:
    store, timers = OutageStore(failures=0), RecordedTimers()
    deps = _deps(store, timers)
    req = _request(state)
    deps.records.requests.put(req.id, req)
    store.failures = 3
    resume_when_store_is_back(deps, req.id, every_s=0.001, give_up_s=60)
    assert store.failures == 0
    assert timers.calls == [(expected, req.id)]


def test_a_finished_request_is_left_alone() -> None:
    store, timers = OutageStore(failures=0), RecordedTimers()
    deps = _deps(store, timers)
    req = _request("done")
    deps.records.requests.put(req.id, req)
    store.failures = 1
    resume_when_store_is_back(deps, req.id, every_s=0.001, give_up_s=60)
    assert timers.calls == []


def test_a_store_that_stays_away_leaves_it_to_the_next_start(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store, timers = OutageStore(failures=10**9), RecordedTimers()
    with caplog.at_level(logging.ERROR):
        resume_when_store_is_back(_deps(store, timers), "r1", every_s=0.001, give_up_s=0.05)
    assert timers.calls == []
    assert "it is resumed at the next start" in caplog.text


def test_a_send_another_replica_took_over_meanwhile_is_left_to_it() -> None:
    """The outage outlasted this replica's hold on the send, and another replica claimed it
    once the store was back: taking the brief up again here leaves that claim alone (were the
    send written anew, a third claimer could send the brief beside the one sending it, and the
    service would make two runs of it)."""
    store = MemoryStore()
    scheduler = Scheduler(workers=1)
    timers = SchedulerTimers(scheduler)
    deps = Deps(
        records=Records(store),
        vault=TokenVault([generate_key()]),
        content=None,  # type: ignore[arg-type]
        slack=None,  # type: ignore[arg-type]
        timers=timers,
    )
    timers.deps = deps
    req = _request("sending")
    deps.records.requests.put(req.id, req)
    now = time.time()
    sends = deps.records.run_sends
    sends.schedule(req.id, due_at=now - 5)  # this replica's hold ran out in the outage
    assert sends.claim_keys([req.id], owner="other replica", now=now, lease_s=60)

    resume_when_store_is_back(deps, req.id, every_s=0.001, give_up_s=1)

    assert sends.claim_due(owner="third", now=now + 1, due_by=now + 1, lease_s=1, limit=9) == []
    assert sends.release(req.id, owner="other replica", due_at=None)  # still its own
    scheduler.shutdown(wait=False)
