"""One workspace's polls shared by two replicas, page by page of its run listing.

A workspace with thousands of watched runs is more than one replica's sweep reads on time. Its
runs sit on listing pages that stay put, so once a walk has met them, each page's polls are
filed under that page and the replicas split the pages: while one replica reads a page, the
other serves the workspace's other pages, reading each one directly (no walk from the first
page), though it never met those runs itself.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from jobs_helpers import create_runs, store_only_deps, submitted

from suggestbot.contentapi import ContentClient, GenerationRun, Page
from suggestbot.jobs.lease_engine import SchedulerTimers
from suggestbot.jobs.poll_groups import page_group, walk_group
from suggestbot.jobs.scheduler import Scheduler
from suggestbot.sandbox import Sandbox
from suggestbot.store import SqliteStore
from suggestbot.store.records import Records

SCALE = 0.1  # the 10 s poll is 1 s
# Where a test needs no stall of a loaded machine to cost a replica its leases (2 s at SCALE)
# or a sweep its time budget (0.5 s): the 10 s poll is 3 s, a lease 6 s.
STALL_PROOF_SCALE = 0.3


class Gate:
    """Holds replica A inside one read of a page that is not the first, until replica B has
    read a page that is not the first (or 20 s have passed)."""

    def __init__(self) -> None:
        self.armed = threading.Event()
        self.a_inside = threading.Event()
        self.b_read_meanwhile = threading.Event()
        self.released = threading.Event()
        self.b_came_in_time = False
        self._lock = threading.Lock()
        self._used = False

    def hold_a(self) -> None:
        with self._lock:
            if self._used or not self.armed.is_set():
                return
            self._used = True
        self.a_inside.set()
        self.b_came_in_time = self.b_read_meanwhile.wait(20)
        self.a_inside.clear()
        self.released.set()


class NotedListing:
    """A replica's content client that notes the listing pages it reads (by cursor)."""

    def __init__(self, client: ContentClient, name: str, gate: Gate) -> None:
        self._client = client
        self.name = name
        self.gate = gate
        self.cursors: list[str | None] = []
        self.first_read: float | None = None
        self.met_by_cursor: set[str] = set()  # runs seen on a page read by cursor
        self.read_at: list[tuple[float, str | None]] = []  # each page's answer, and its cursor
        self._lock = threading.Lock()

    def list_runs_page(self, *, cursor: str | None = None, **kwargs: Any) -> Page[GenerationRun]:
        if self.name == "A" and cursor is not None:
            self.gate.hold_a()
        page = self._client.list_runs_page(cursor=cursor, **kwargs)
        with self._lock:
            self.cursors.append(cursor)
            self.read_at.append((time.time(), cursor))
            if cursor is not None:
                self.met_by_cursor.update(run.id for run in page.items)
            if self.first_read is None:
                self.first_read = time.time()
        if self.name == "B" and cursor is not None and self.gate.a_inside.is_set():
            self.gate.b_read_meanwhile.set()
        return page

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


class Replica:
    def __init__(self, records: Records, content: NotedListing, scale: float = SCALE) -> None:
        self.scheduler = Scheduler(workers=2)
        self.timers = SchedulerTimers(self.scheduler)
        self.listing = content
        self.deps = store_only_deps(
            timers=self.timers, content=cast(ContentClient, content), poll_scale=scale
        )
        self.deps.records = records
        self.timers.deps = self.deps

    def start(self) -> Replica:
        self.scheduler.start()
        self.timers.start()
        return self

    def stop(self) -> None:
        self.timers.stop()
        self.scheduler.shutdown()


@pytest.fixture
def records(tmp_path: Path) -> Iterator[Records]:
    store = SqliteStore(tmp_path / "s.sqlite")
    yield Records(store)
    store.close()


def _wait_until(condition: Any, timeout_s: float = 15) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_while_one_replica_reads_a_page_the_other_serves_the_workspaces_other_pages(
    box: Sandbox, machine: ContentClient, records: Records
) -> None:
    # Eight pages of watched runs, under a first page of newer runs nobody watches: once a walk
    # has met the watched runs, no poll needs the first page.
    runs = create_runs(box, machine, 900)
    watched_runs = {run.id for run in runs[:800]}
    watched = []
    for run in runs[:800]:
        req = submitted(run.id)
        records.requests.put(req.id, req)
        watched.append(req.id)
    gate = Gate()
    a = Replica(records, NotedListing(machine, "A", gate), STALL_PROOF_SCALE).start()
    b: Replica | None = None
    try:
        # A alone meets every run first, as after a quiet spell. (On a loaded machine its first
        # walk may run out of its time budget and poll the rest alone; a later walk meets them.)
        records.run_polls.schedule_grouped(dict.fromkeys(watched, time.time()), groups={})
        _wait_until(lambda: a.listing.met_by_cursor >= watched_runs, timeout_s=45)
        reads = len(a.listing.cursors)
        _wait_until(lambda: len(a.listing.cursors) > reads)  # the last page's polls filed
        b = Replica(records, NotedListing(machine, "B", gate), STALL_PROOF_SCALE).start()
        _wait_until(lambda: a.timers.live_replicas == 2 and b.timers.live_replicas == 2)
        gate.armed.set()
        # Released once A has been inside a read and B read meanwhile (or 20 s passed). Not
        # a_inside: when B reads at once, A is inside for less than one look of this loop.
        _wait_until(gate.released.is_set, timeout_s=65)
        # B read another page of the same workspace while A was inside its read.
        assert gate.b_came_in_time
        _wait_until(lambda: sum(c is not None for c in b.listing.cursors) >= 6)
    finally:
        gate.b_read_meanwhile.set()
        a.stop()
        if b is not None:
            b.stop()
    # B never walked for the runs A had met (a walk begins at the first page): it read each of
    # their pages directly.
    assert None not in b.listing.cursors, b.listing.cursors


def test_polls_falling_due_page_after_page_are_read_from_their_pages_after_one_walk(
    box: Sandbox, machine: ContentClient, records: Records
) -> None:
    """Thousands of runs watched at once (a start, a takeover): the oldest fall due first, and
    they sit on the last pages. The walk that finds the first of them passes every newer
    page, and the polls that fall due after it are read from those pages, not each by a walk
    of its own from the first page."""
    runs = create_runs(box, machine, 400)  # four pages; runs[:100] the oldest, on the last
    start = time.time() + 0.5
    due: dict[str, float] = {}
    for n, run in enumerate(runs):
        req = submitted(run.id)
        records.requests.put(req.id, req)
        due[req.id] = start + (n // 100) * 0.3  # a page at a time, oldest page first
    replica = Replica(records, NotedListing(machine, "A", Gate())).start()
    try:
        records.run_polls.schedule_grouped(due, groups=dict.fromkeys(due, "T1"))
        _wait_until(lambda: len(replica.listing.cursors) >= 7)
        time.sleep(0.3)  # anything more the first polls would cost
    finally:
        replica.stop()
    cursors = replica.listing.cursors
    second_page = cursors[1]
    walks = sum(
        1
        for n, cursor in enumerate(cursors[:-1])
        if cursor is None and cursors[n + 1] == second_page
    )
    # One walk (the first page, then on) for the oldest; the polls that fell due after it were
    # read from their pages (the newest page, which moves, from the top, on its own).
    assert walks == 1, cursors
    assert len(cursors[:7]) == len(set(cursors[:7])) + 3, cursors  # four pages, three again


def test_a_workspace_whose_runs_are_all_still_to_be_found_is_walked_by_both_replicas(
    box: Sandbox, machine: ContentClient, records: Records
) -> None:
    """At a start (or the first start after an upgrade) every run of a workspace is still to
    be found by a walk: its polls are filed under a few walk groups, so both replicas walk for
    their share at once instead of one replica serving every poll until its walk has placed
    them."""
    gate = Gate()
    a = Replica(records, NotedListing(machine, "A", gate)).start()
    b = Replica(records, NotedListing(machine, "B", gate)).start()
    try:
        _wait_until(lambda: a.timers.live_replicas == 2 and b.timers.live_replicas == 2)
        requests = [submitted(run.id) for run in create_runs(box, machine, 400)]
        for req in requests:
            records.requests.put(req.id, req)
        # As the brief flow files a new run's poll (the app's own client: its listing); all
        # of them due at once.
        records.run_polls.schedule_grouped(
            dict.fromkeys((req.id for req in requests), time.time()),
            groups={req.id: walk_group(None, req.id) for req in requests},
        )
        _wait_until(lambda: a.listing.first_read is not None and b.listing.first_read)
    finally:
        a.stop()
        b.stop()
    # Both walked in the first round. (Had one replica claimed them all, the other would have
    # had nothing to read before the next interval, a second later.)
    assert a.listing.first_read is not None and b.listing.first_read is not None
    assert abs(a.listing.first_read - b.listing.first_read) < 0.5


def _gaps(listing: NotedListing, cursor: str | None, after: float) -> list[float]:
    """Seconds between the reads of one page (by its cursor) answered after ``after``."""
    times = [at for at, read in listing.read_at if read == cursor and at > after]
    return [b - a for a, b in itertools.pairwise(times)]


def test_a_pages_runs_whose_polls_fell_apart_are_read_once_an_interval_again(
    box: Sandbox, machine: ContentClient, records: Records
) -> None:
    """A page's runs can have polls due at different times (walked for by different replicas
    at a start, taken over in part): the page's first read serves the polls filed under it
    that fall due within the interval too, so from then on one read an interval serves the
    page, not a read for each set of polls."""
    create_runs(box, machine, 300)
    cursor = machine.list_runs_page(limit=100).next_cursor
    assert cursor is not None
    on_page = machine.list_runs_page(cursor=cursor, limit=100).items
    interval = 10 * STALL_PROOF_SCALE
    start = time.time() + 0.5
    due: dict[str, float] = {}
    for n, run in enumerate(on_page):
        req = submitted(run.id)
        records.requests.put(req.id, req)
        due[req.id] = start + (interval / 2 if n % 2 else 0.0)  # half of them half an interval on
    replica = Replica(records, NotedListing(machine, "A", Gate()), STALL_PROOF_SCALE).start()
    try:
        records.run_polls.schedule_grouped(due, groups=dict.fromkeys(due, page_group(None, cursor)))
        _wait_until(lambda: len(_gaps(replica.listing, cursor, 0.0)) >= 3, timeout_s=30)
    finally:
        replica.stop()
    # Every read a full interval (less the early tolerance) after the one before: none for the
    # half of the page that was due half an interval later.
    gaps = _gaps(replica.listing, cursor, 0.0)
    assert min(gaps) >= 0.85 * interval, gaps


def test_new_runs_on_the_first_page_are_read_together_once_their_first_polls_are_over(
    box: Sandbox, machine: ContentClient, records: Records
) -> None:
    """New runs are filed under their listing's walk groups, due as their briefs came; once a
    walk has met them on the first page they are one group, read by one walk an interval."""
    runs = create_runs(box, machine, 60)  # all on the first page
    interval = 10 * STALL_PROOF_SCALE
    start = time.time() + 0.5
    due: dict[str, float] = {}
    groups: dict[str, str] = {}
    for n, run in enumerate(runs):
        req = submitted(run.id)
        records.requests.put(req.id, req)
        due[req.id] = start + (n % 3) * interval / 3  # briefs a third of an interval apart
        groups[req.id] = walk_group(None, req.id)
    replica = Replica(records, NotedListing(machine, "A", Gate()), STALL_PROOF_SCALE).start()
    try:
        records.run_polls.schedule_grouped(due, groups=groups)
        # The first polls, then the second round: by then every run is in one group.
        settled = start + 2 * interval
        _wait_until(lambda: len(_gaps(replica.listing, None, settled)) >= 3, timeout_s=30)
    finally:
        replica.stop()
    gaps = _gaps(replica.listing, None, settled)
    assert min(gaps) >= 0.85 * interval, gaps
