"""What the service sees of the watcher: no run is read sooner than the guidance allows.

The real watch thread, sweeps and single polls run against the sandbox over loopback with the
schedule shrunk ten times (a 1 s poll interval, so a 0.1 s early tolerance). Every time a run's
state reaches the app as its poll (its listing page arrived, or its single read answered) is
noted; each must come no earlier than the tolerance before the poll was due, and no sooner
than one interval less the tolerance after that run's previous poll.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections.abc import Iterator
from typing import Any, cast

import pytest
from jobs_helpers import create_runs, store_only_deps, submitted

from suggestbot.contentapi import (
    ContentClient,
    GenerationRun,
)
from suggestbot.jobs.lease_engine import SchedulerTimers
from suggestbot.jobs.leases import EARLY_SHARE
from suggestbot.jobs.scheduler import Scheduler
from suggestbot.jobs.watch_list import Due
from suggestbot.sandbox import Sandbox
from suggestbot.sandbox.faults import RunTiming

SCALE = 0.1
INTERVAL_S = 10.0 * SCALE
TOLERANCE_S = EARLY_SHARE * INTERVAL_S


class PollReads:
    """Notes, for each run whose poll was taken out, when its state next reached the app."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.due: dict[str, float] = {}  # run id -> when its pending poll was due
        self.reads: dict[str, list[tuple[float, float]]] = {}  # run id -> (due, read)
        self.singles = 0
        self.page_reads = 0

    def taken(self, run_id: str, due_at: float) -> None:
        with self.lock:
            self.due[run_id] = due_at

    def read(self, runs: list[GenerationRun], *, single: bool) -> None:
        now = time.time()
        with self.lock:
            for run in runs:
                due = self.due.pop(run.id, None)
                if due is not None:
                    self.reads.setdefault(run.id, []).append((due, now))
                    if single:
                        self.singles += 1
                    else:
                        self.page_reads += 1


class RecordingContent:
    """The service client, noting which runs each listing page or single read returned."""

    def __init__(self, client: ContentClient, reads: PollReads) -> None:
        self._client = client
        self._reads = reads

    def list_runs_page(self, **kwargs: Any) -> Any:
        page = self._client.list_runs_page(**kwargs)
        self._reads.read(list(page.items), single=False)
        return page

    def get_run(self, *, run_id: str) -> GenerationRun:
        run = self._client.get_run(run_id=run_id)
        self._reads.read([run], single=True)
        return run

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


class NotingTimers(SchedulerTimers):
    """The app's timers, noting when each poll taken out was due (by run id)."""

    reads: PollReads

    def _dispatch(self, deps: Any, due: list[Due]) -> None:
        for item in due:
            req = deps.records.requests.get(item.request_id)
            if req is not None and req.run_id is not None:
                self.reads.taken(req.run_id, item.at)
        super()._dispatch(deps, due)


@pytest.fixture
def box() -> Iterator[Sandbox]:
    sandbox = Sandbox(time_factor=0.01)
    sandbox.faults.run_timing = RunTiming(queued_s=1e6, running_s=1.0)
    # Pages of 10: a sweep of a few runs pages at most half as many pages as runs, so the
    # older watched runs are not met and go to be polled alone.
    sandbox.faults.short_pages = 10
    yield sandbox


def test_no_run_is_read_sooner_than_the_guidance_allows(
    box: Sandbox, machine: ContentClient
) -> None:
    runs = create_runs(box, machine, 120)
    watched = runs[::3]  # spread over the whole listing, old and new
    reads = PollReads()
    scheduler = Scheduler(workers=3)
    timers = NotingTimers(scheduler)
    timers.reads = reads
    content = cast(ContentClient, RecordingContent(machine, reads))
    deps = store_only_deps(content=content, timers=timers, poll_scale=SCALE)
    timers.deps = deps
    scheduler.start()
    timers.start()
    try:
        rng = random.Random(16)
        for run in watched:
            req = submitted(run.id)
            deps.records.requests.put(req.id, req)
            timers.watch_run(req.id, delay_s=rng.uniform(0, INTERVAL_S))

        def enough() -> bool:
            with reads.lock:
                return all(len(reads.reads.get(r.id, [])) >= 4 for r in watched)

        deadline = time.monotonic() + 60
        while not enough():
            assert time.monotonic() < deadline, "runs were not polled four times"
            time.sleep(0.05)
    finally:
        timers.stop()
        scheduler.shutdown()

    assert reads.singles > 0 and reads.page_reads > 0  # both ways of reading were used
    for run in watched:
        polls = reads.reads[run.id]
        for due, read in polls:
            assert read >= due - TOLERANCE_S, "read earlier than the tolerance before due"
        for (_, before), (_, after) in itertools.pairwise(polls):
            assert after - before >= INTERVAL_S - TOLERANCE_S, "two reads too close"
