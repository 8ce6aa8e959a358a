"""A run's poll that fails before it begins — its request cannot even be read, the database
being away — is polled again once the store answers, not left busy until the next start."""

from __future__ import annotations

import time

from suggestbot.flows.common.deps import Deps
from suggestbot.jobs.lease_engine import SchedulerTimers
from suggestbot.jobs.scheduler import Scheduler
from suggestbot.store import MemoryStore, StoreUnavailable
from suggestbot.store.codec import Record
from suggestbot.store.records import Records, Request


class OutageStore(MemoryStore):
    def __init__(self) -> None:
        super().__init__()
        self.failing_reads = 0

    def get(self, table: str, key: str) -> Record | None:
        if self.failing_reads > 0:
            self.failing_reads -= 1
            raise StoreUnavailable("PostgreSQL cannot be reached (test)")
        return super().get(table, key)


def test_a_poll_that_could_not_read_its_request_is_due_again() -> None:
    store = OutageStore()
    scheduler = Scheduler(workers=1)
    timers = SchedulerTimers(scheduler)
    deps = Deps(
        records=Records(store),
        vault=None,  # type: ignore[arg-type]
        content=None,  # type: ignore[arg-type]
        slack=None,  # type: ignore[arg-type]
        timers=timers,
        poll_scale=0.001,
    )
    timers.deps = deps
    req = Request(
        team_id="T1", user_id="U1", channel_id="C1", body={}, state="submitted", run_id="run-1"
    )
    deps.records.requests.put(req.id, req)
    scheduler.start()
    try:
        timers.watching.put(req.id, time.time())
        [due] = timers.watching.take(until=time.time() + 1)  # handed to a worker: busy
        store.failing_reads = 1
        timers._poll_alone(req.id, due.at)
        deadline = time.monotonic() + 10
        again: list[str] = []
        while not again and time.monotonic() < deadline:
            time.sleep(0.01)
            # Written back to the store as due soon, free for any replica (this one included) to
            # claim, and no longer held busy here.
            claims = deps.records.run_polls.claim_due(
                owner="another-replica",
                now=time.time(),
                due_by=time.time() + 60,
                lease_s=10,
                limit=10,
            )
            again = [claim.key for claim in claims]
        assert again == [req.id]
        assert not timers.watching.is_busy(req.id)
        assert store.failing_reads == 0
    finally:
        timers.stop()
        scheduler.shutdown()
