"""A brief recorded before the ack is recorded whole, with its held send, or not at all: the
listener tells the user "nothing was recorded, send it again" when the store fails, so a
brief left behind would be sent by recovery and then, sent again, posted twice. And the ack
waits for one write only: the brief and its held send go to the store together."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from flows_helpers import World, record_brief, world

from suggestbot.jobs.lease_engine import SchedulerTimers
from suggestbot.jobs.scheduler import Scheduler
from suggestbot.store import MemoryStore, StoreUnavailable
from suggestbot.store.codec import Record


class CountedWrites(MemoryStore):
    """Counts the writes the flows ask of the store (each is a commit on a database)."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []
        self._within = False  # the steps of one write on this single-process store

    def _note(self, write: str) -> None:
        if not self._within:
            self.writes.append(write)

    def put(self, table: str, key: str, value: Record) -> None:
        self._note(f"put {table}")
        super().put(table, key, value)

    def put_if_absent(self, table: str, key: str, value: Record) -> bool:
        self._note(f"put_if_absent {table}")
        return super().put_if_absent(table, key, value)

    def put_if_absent_held(self, table: str, key: str, value: Record, **held: Any) -> bool:
        self._note(f"put_if_absent_held {table} {held['queue']}")
        self._within = True
        try:
            return super().put_if_absent_held(table, key, value, **held)
        finally:
            self._within = False

    def schedule(self, queue: str, key: str, *, due_at: float, if_absent: bool = False) -> bool:
        self._note(f"schedule {queue}")
        return super().schedule(queue, key, due_at=due_at, if_absent=if_absent)

    def claim_keys(self, queue: str, keys: Any, **lease: Any) -> list[str]:
        self._note(f"claim_keys {queue}")
        return list(super().claim_keys(queue, keys, **lease))


class HeldRefused(CountedWrites):
    """The store goes away for the brief's write."""

    def put_if_absent_held(self, table: str, key: str, value: Record, **held: Any) -> bool:
        raise StoreUnavailable("PostgreSQL cannot be reached")


@pytest.fixture
def timers() -> Iterator[SchedulerTimers]:
    scheduler = Scheduler(workers=1)
    yield SchedulerTimers(scheduler)
    scheduler.shutdown()


def _with_timers(w: World, timers: SchedulerTimers) -> World:
    w.deps.timers = timers
    timers.deps = w.deps
    return w


def test_a_brief_and_its_held_send_are_one_write(timers: SchedulerTimers) -> None:
    store = CountedWrites()
    w = _with_timers(world(store=store), timers)

    req = record_brief(w)

    assert store.writes == ["put_if_absent_held requests run_sends"]
    assert w.deps.records.requests.get(req.id) is not None
    # Held by this process: no other replica claims the send while its lease runs.
    assert (
        w.deps.records.run_sends.claim_due(
            owner="another-replica", now=time.time(), due_by=time.time() + 1, lease_s=10, limit=10
        )
        == []
    )


def test_a_brief_that_could_not_be_written_holds_no_send(timers: SchedulerTimers) -> None:
    w = _with_timers(world(store=HeldRefused()), timers)

    with pytest.raises(StoreUnavailable):
        record_brief(w)

    assert list(w.deps.records.requests.values()) == []
    far = time.time() + 3600
    assert (
        w.deps.records.run_sends.claim_due(
            owner="another-replica", now=far, due_by=far, lease_s=10, limit=10
        )
        == []
    )  # nothing to send later either
