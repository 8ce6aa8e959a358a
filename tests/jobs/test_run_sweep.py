"""Polling many runs with the run listing, against the sandbox over loopback.

What an operator would notice: how many requests the watcher sends for a given number of
watched runs, and that every watched run still gets its poll (and its next one, on schedule).
"""

from __future__ import annotations

import time
from collections.abc import Collection, Mapping
from typing import Any, cast

import pytest
from jobs_helpers import create_runs, store_only_deps, submitted

from suggestbot.contentapi import (
    ContentClient,
    GenerationRun,
    RunStatus,
)
from suggestbot.flows.common.deps import Deps
from suggestbot.jobs import run_watcher
from suggestbot.jobs.run_positions import RunPositions
from suggestbot.jobs.watch_list import Due
from suggestbot.sandbox import Sandbox
from suggestbot.sandbox.faults import RunTiming
from suggestbot.store.records import Request

LIST = "GET /v1/generation-runs"
GET_ONE = "GET /v1/generation-runs/{run_id}"
SCALE = 0.1  # the 10 s poll is 1 s


class NotedTimers:
    """Notes when the next poll of each request is asked for (epoch seconds)."""

    def __init__(self) -> None:
        self.next_poll: dict[str, float] = {}

    def watch_run(self, request_id: str, *, delay_s: float) -> None:
        self.next_poll[request_id] = time.time() + delay_s

    def watch_runs(
        self, delays: Mapping[str, float], *, groups: Mapping[str, str] | None = None
    ) -> None:
        for request_id, delay_s in delays.items():
            self.watch_run(request_id, delay_s=delay_s)

    def resume_watch(self, request_id: str) -> None:
        self.next_poll.setdefault(request_id, time.time())

    def send_later(self, request_id: str, *, at: float) -> None:
        raise AssertionError("a poll never sends")

    def resume_send(self, request_id: str, *, at: float) -> None:
        raise AssertionError("a poll never sends")

    def resume_many(self, *, watches: Collection[str], sends: Mapping[str, float]) -> None:
        for request_id in watches:
            self.resume_watch(request_id)
        if sends:
            raise AssertionError("a poll never sends")

    def hold_send(self, request_id: str) -> None:
        raise AssertionError("a poll never sends")

    def record_held_send(self, requests: Any, req: Any) -> bool:
        raise AssertionError("a poll never sends")

    def end_send(self, request_id: str) -> None:
        raise AssertionError("a poll never sends")

    def cancel(self, request_id: str) -> None:
        self.next_poll.pop(request_id, None)


@pytest.fixture
def deps(machine: ContentClient) -> Deps:
    # nothing here talks to Slack: finished runs are handed over
    return store_only_deps(content=machine, timers=NotedTimers(), poll_scale=SCALE)


def _finished_runs(box: Sandbox, machine: ContentClient, count: int) -> list[GenerationRun]:
    """``count`` runs that have succeeded (runs created after them stay queued again)."""
    box.faults.run_timing = RunTiming(queued_s=0.0, running_s=0.0)
    runs = create_runs(box, machine, count)
    deadline = time.monotonic() + 10
    while any(machine.get_run(run_id=r.id).status != RunStatus.SUCCEEDED for r in runs):
        assert time.monotonic() < deadline, "runs did not finish"
        time.sleep(0.01)
    box.faults.run_timing = RunTiming(queued_s=1e6)
    return runs


def _watch(deps: Deps, runs: list[GenerationRun]) -> list[Due]:
    """Requests in state ``submitted`` for ``runs``, as the brief flow leaves them, all due."""
    due = []
    for run in runs:
        req = submitted(run.id)
        deps.records.requests.put(req.id, req)
        due.append(Due(req.id, time.time()))
    return due


def _next_polls(deps: Deps) -> dict[str, float]:
    return cast(NotedTimers, deps.timers).next_poll


def test_250_watched_runs_cost_three_listing_pages_and_no_single_reads(
    box: Sandbox, machine: ContentClient, deps: Deps
) -> None:
    due = _watch(deps, create_runs(box, machine, 250))
    box.counters.reset()

    started = time.time()
    handed = run_watcher.sweep(deps, due, hand_over=lambda rid, run: None)
    swept = time.time()

    assert handed == set()
    assert box.counters.get(LIST) == 3
    assert box.counters.get(GET_ONE) == 0
    # every run got its poll: each is watched again, 10 s (scaled) after its page was read
    nexts = _next_polls(deps)
    assert set(nexts) == {item.request_id for item in due}
    assert all(started + 1.0 <= nexts[item.request_id] <= swept + 1.0 for item in due)


def test_finished_and_moved_runs_are_handed_over_and_the_rest_wait(
    box: Sandbox, machine: ContentClient, deps: Deps
) -> None:
    finished = _finished_runs(box, machine, 2)
    waiting = create_runs(box, machine, 3)
    due = _watch(deps, finished + waiting)
    handed_runs: dict[str, GenerationRun] = {}

    handed = run_watcher.sweep(
        deps, due, hand_over=lambda rid, run: handed_runs.__setitem__(rid, run)
    )

    finished_requests = {item.request_id for item in due[:2]}
    assert handed == finished_requests == set(handed_runs)
    assert all(run.status == RunStatus.SUCCEEDED for run in handed_runs.values())
    assert set(_next_polls(deps)) == {item.request_id for item in due[2:]}
    assert box.counters.get(LIST) == 1


def test_a_run_not_met_in_the_pages_read_is_polled_alone(
    box: Sandbox, machine: ContentClient, deps: Deps
) -> None:
    runs = create_runs(box, machine, 150)
    # Two due runs allow one page (never more pages than half the runs): the oldest run is
    # on the second page, so it is read on its own.
    due = _watch(deps, [runs[0], runs[-1]])
    box.counters.reset()

    run_watcher.sweep(deps, due, hand_over=lambda rid, run: None)

    assert box.counters.get(LIST) == 1
    assert box.counters.get(GET_ONE) == 1
    assert set(_next_polls(deps)) == {item.request_id for item in due}


def test_one_due_run_is_polled_alone(box: Sandbox, machine: ContentClient, deps: Deps) -> None:
    due = _watch(deps, create_runs(box, machine, 1))
    box.counters.reset()

    run_watcher.sweep(deps, due, hand_over=lambda rid, run: None)

    assert box.counters.get(LIST) == 0
    assert box.counters.get(GET_ONE) == 1


def test_a_failing_listing_page_is_not_retried_and_its_runs_are_polled_alone(
    box: Sandbox, machine: ContentClient, deps: Deps
) -> None:
    due = _watch(deps, create_runs(box, machine, 5))
    box.counters.reset()
    box.faults.next_5xx = 1
    alone: list[str] = []

    handed = run_watcher.sweep(
        deps,
        due,
        hand_over=lambda rid, run: None,
        poll_alone=lambda rid, at: alone.append(rid),
    )

    # the page failed once and was not asked again (a retry would have succeeded): no backoff
    # holds up the other polls, each run is polled alone
    assert box.counters.get(LIST) == 0
    assert sorted(alone) == sorted(item.request_id for item in due) == sorted(handed)


def test_when_the_service_fails_every_run_is_polled_again_later(
    box: Sandbox, machine: ContentClient, deps: Deps
) -> None:
    due = _watch(deps, create_runs(box, machine, 5))
    box.faults.error_rate_5xx = 1.0

    run_watcher.sweep(deps, due, hand_over=lambda rid, run: None)

    box.faults.error_rate_5xx = 0.0
    assert set(_next_polls(deps)) == {item.request_id for item in due}


def test_a_poll_taken_early_keeps_the_schedule_of_when_it_was_due(
    box: Sandbox, machine: ContentClient, deps: Deps
) -> None:
    due = _watch(deps, create_runs(box, machine, 3))
    early = [Due(item.request_id, time.time() + 0.3) for item in due]

    run_watcher.sweep(deps, early, hand_over=lambda rid, run: None)

    # the 10 s (scaled: 1 s) interval counts from when the poll was due, not from the sweep
    nexts = _next_polls(deps)
    assert all(abs(nexts[item.request_id] - (item.at + 1.0)) < 0.01 for item in early)


@pytest.mark.parametrize("late_s", [0.3, 5.0], ids=["a little late", "very late"])
def test_a_poll_read_late_counts_its_next_one_from_the_read(
    box: Sandbox, machine: ContentClient, deps: Deps, late_s: float
) -> None:
    due = _watch(deps, create_runs(box, machine, 3))
    late = [Due(item.request_id, time.time() - late_s) for item in due]

    started = time.time()
    run_watcher.sweep(deps, late, hand_over=lambda rid, run: None)
    swept = time.time()

    # a whole interval after the run was read: a late read followed by one on time never
    # puts two reads closer than the guidance allows (and no burst of catch-up polls)
    assert all(started + 1.0 <= at <= swept + 1.0 for at in _next_polls(deps).values())


def test_a_run_polled_alone_counts_its_next_poll_from_its_read(
    box: Sandbox, machine: ContentClient, deps: Deps
) -> None:
    (item,) = _watch(deps, create_runs(box, machine, 1))

    started = time.time()
    run_watcher.poll(deps, item.request_id, due_at=started - 0.3)
    polled = time.time()

    assert started + 1.0 <= _next_polls(deps)[item.request_id] <= polled + 1.0


def test_runs_of_requests_no_longer_watched_are_not_polled(
    box: Sandbox, machine: ContentClient, deps: Deps
) -> None:
    due = _watch(deps, create_runs(box, machine, 3))
    for item in due:
        deps.records.requests.update(
            item.request_id, lambda r: r.model_copy(update={"state": "done"})
        )
    box.counters.reset()

    run_watcher.sweep(deps, due, hand_over=lambda rid, run: None)

    assert box.counters.get(LIST) == 0 and box.counters.get(GET_ONE) == 0
    assert _next_polls(deps) == {}


def test_a_finished_run_met_on_a_page_is_handed_over_before_its_poll_is_due(
    box: Sandbox, machine: ContentClient, deps: Deps
) -> None:
    finished = _finished_runs(box, machine, 1)
    not_yet_due = _watch(deps, finished)[0].request_id
    due = _watch(deps, create_runs(box, machine, 3))
    handed_runs: dict[str, GenerationRun] = {}

    handed = run_watcher.sweep(
        deps,
        due,
        hand_over=lambda rid, run: handed_runs.__setitem__(rid, run),
        claim_finished=lambda run_id: not_yet_due if run_id == finished[0].id else None,
    )

    assert handed == {not_yet_due}
    assert handed_runs[not_yet_due].status == RunStatus.SUCCEEDED


def test_runs_not_met_go_to_be_polled_alone_elsewhere_when_a_worker_is_offered(
    box: Sandbox, machine: ContentClient, deps: Deps
) -> None:
    runs = create_runs(box, machine, 150)
    due = _watch(deps, [runs[0], runs[-1]])  # the oldest is on the second page
    box.counters.reset()
    alone: list[tuple[str, float]] = []

    handed = run_watcher.sweep(
        deps,
        due,
        hand_over=lambda rid, run: None,
        poll_alone=lambda rid, at: alone.append((rid, at)),
    )

    assert alone == [(due[0].request_id, due[0].at)]
    assert handed == {due[0].request_id}
    assert box.counters.get(GET_ONE) == 0  # not inside the sweep


def _sweep_with_no_time(deps: Deps, due: list[Due]) -> list[str]:
    """A sweep whose time budget is over from its first page; the requests it polled alone."""
    alone: list[str] = []
    run_watcher.sweep(
        deps,
        due,
        hand_over=lambda rid, run: None,
        poll_alone=lambda rid, at: alone.append(rid),
        time_budget_s=0.0,
    )
    return alone


def test_a_sweep_stops_paging_when_its_time_is_up(
    box: Sandbox, machine: ContentClient, deps: Deps
) -> None:
    runs = create_runs(box, machine, 150)
    due = _watch(deps, [runs[0], runs[1], runs[-2], runs[-1]])  # two pages would find all
    box.counters.reset()

    alone = _sweep_with_no_time(deps, due)

    assert box.counters.get(LIST) == 1
    assert sorted(alone) == sorted(item.request_id for item in due[:2])


def test_polls_that_join_a_rolling_sweep_are_read_from_its_next_pages_or_from_the_top_again(
    box: Sandbox, machine: ContentClient, deps: Deps
) -> None:
    """Under steady load polls fall due while a sweep pages: they join it at the next page
    rather than wait for it to end, and it starts over from the first page for a run whose page
    it had already passed. Nothing is polled alone, and each run is settled as its page
    arrives."""
    runs = create_runs(box, machine, 250)  # three pages, newest first
    first = _watch(deps, runs[:6])  # the oldest: on the last page
    joining = _watch(deps, runs[-2:])  # the newest: on the first page, already passed
    offers = iter([joining])
    box.counters.reset()
    settled: list[str] = []
    alone: list[str] = []

    handed = run_watcher.sweep(
        deps,
        first,
        hand_over=lambda rid, run: None,
        poll_alone=lambda rid, at: alone.append(rid),
        more=lambda: next(offers, []),
        settled=settled.extend,
    )

    assert handed == set() and alone == []
    assert box.counters.get(LIST) == 4  # three pages, then the first one again
    assert box.counters.get(GET_ONE) == 0
    every = [item.request_id for item in first + joining]
    assert sorted(settled) == sorted(every)
    assert set(_next_polls(deps)) == set(every)


def test_a_run_a_whole_pass_did_not_meet_is_polled_alone(
    box: Sandbox, machine: ContentClient, deps: Deps
) -> None:
    runs = create_runs(box, machine, 30)
    due = _watch(deps, runs)
    ghost = Request(
        team_id="T1",
        user_id="U1",
        channel_id="C1",
        body={"type": "steered_generation"},
        state="submitted",
        run_id="run-that-is-not-listed",
        sent_at=time.time(),
    )
    deps.records.requests.put(ghost.id, ghost)
    offers = iter([[Due(ghost.id, time.time())]])
    box.counters.reset()
    alone: list[str] = []

    run_watcher.sweep(
        deps,
        due,
        hand_over=lambda rid, run: None,
        poll_alone=lambda rid, at: alone.append(rid),
        more=lambda: next(offers, []),
    )

    assert alone == [ghost.id]
    assert box.counters.get(LIST) == 2  # the page it joined after, and one whole pass


class PassStarts:
    """The service client, noting when each walk round the listing began (no cursor)."""

    def __init__(self, client: ContentClient) -> None:
        self._client = client
        self.starts: list[float] = []

    def list_runs_page(self, **kwargs: object) -> object:
        if kwargs.get("cursor") is None:
            self.starts.append(time.monotonic())
        return self._client.list_runs_page(**kwargs)

    def __getattr__(self, name: str) -> object:
        return getattr(self._client, name)


def test_a_rolling_sweep_walks_the_listing_at_most_once_per_period(
    box: Sandbox, machine: ContentClient, deps: Deps
) -> None:
    """However fast the service answers, the service sees one walk per period: polls that keep
    joining wait for the next walk instead of starting one each."""
    runs = create_runs(box, machine, 40)
    first = _watch(deps, runs[:4])
    joining = [_watch(deps, [run]) for run in runs[4:10]]  # one more after every page
    offers = iter(joining)
    starts = PassStarts(machine)
    deps.content = cast(ContentClient, starts)

    run_watcher.sweep(
        deps,
        first,
        hand_over=lambda rid, run: None,
        more=lambda: next(offers, []),
        pass_every_s=0.2,
    )

    assert len(starts.starts) >= 3
    gaps = [b - a for a, b in zip(starts.starts, starts.starts[1:], strict=False)]
    assert min(gaps) >= 0.2
    every = {item.request_id for group in [first, *joining] for item in group}
    assert set(_next_polls(deps)) == every


def test_a_rolling_sweep_asked_to_give_way_puts_back_what_it_has_not_read(
    box: Sandbox, machine: ContentClient, deps: Deps
) -> None:
    """Other workspaces wait for a sweeper: after its pass the sweep ends, and the polls that
    joined it too late for that pass are handed back, neither read nor polled alone, with when
    its next pass would have begun."""
    runs = create_runs(box, machine, 30)
    first = _watch(deps, runs[:4])
    late = _watch(deps, runs[4:6])  # join after the first page: that pass has passed them
    offers = iter([late])
    alone: list[str] = []
    back: list[tuple[list[str], float]] = []
    box.counters.reset()
    began = time.time()

    handed = run_watcher.sweep(
        deps,
        first,
        hand_over=lambda rid, run: None,
        poll_alone=lambda rid, at: alone.append(rid),
        more=lambda: next(offers, []),
        pass_every_s=5.0,
        keep_rolling=lambda: False,
        put_back=lambda items, at: back.append(([item.request_id for item in items], at)),
    )

    assert handed == set() and alone == []
    assert [sorted(ids) for ids, _ in back] == [sorted(item.request_id for item in late)]
    assert began + 4.0 < back[0][1] < began + 6.0  # the next pass is not brought forward
    assert time.time() - began < 4.0  # and the sweeper was not held until then
    assert set(_next_polls(deps)) == {item.request_id for item in first}


def test_a_sweep_past_its_time_keeps_paging_while_more_runs_are_left_than_a_page_holds(
    box: Sandbox, machine: ContentClient, deps: Deps
) -> None:
    """A big workspace's walk takes longer than the budget however fast the service is: the
    next page serves a hundred runs with one request, where polling them alone would take a
    hundred (and queue behind the rate limit). Only the last few are polled alone."""
    runs = create_runs(box, machine, 250)  # three pages, newest first
    due = _watch(deps, runs)
    box.counters.reset()

    alone = _sweep_with_no_time(deps, due)

    assert box.counters.get(LIST) == 2  # 150 left after the first page: it read the second
    assert sorted(alone) == sorted(item.request_id for item in due[:50])  # the oldest page's


def test_a_walk_past_its_time_polls_alone_only_the_runs_it_seeks(
    box: Sandbox, machine: ContentClient, deps: Deps
) -> None:
    """A loaded machine's walk runs out of time: the new runs it still seeks are polled alone,
    and the runs whose page is known are read from it when due, not polled alone each (a
    request each: hundreds at once after a start, for good while walks keep overrunning)."""
    runs = create_runs(box, machine, 250)  # three pages, newest first
    oldest = _watch(deps, runs[:6])  # on the last page
    positions = RunPositions()
    run_watcher.sweep(deps, oldest, hand_over=lambda rid, run: None, positions=positions)
    sought = _watch(deps, runs[100:102])  # on the second page, where it was not met yet
    positions.forget(run.id for run in runs[100:102])
    listed = ListedAt(machine)
    deps.content = cast(ContentClient, listed)
    box.counters.reset()
    alone: list[str] = []
    settled: list[str] = []
    placed_due = time.time() + 0.2

    run_watcher.sweep(
        deps,
        sought + [Due(item.request_id, placed_due) for item in oldest],
        hand_over=lambda rid, run: None,
        poll_alone=lambda rid, at: alone.append(rid),
        settled=settled.extend,
        time_budget_s=0.0,
        positions=positions,
    )

    assert sorted(alone) == sorted(item.request_id for item in sought)
    assert sorted(settled) == sorted(item.request_id for item in oldest)
    assert [cursor is None for _, cursor in listed.pages] == [True, False]  # the walk, the page
    assert listed.pages[1][0] >= placed_due
    assert box.counters.get(GET_ONE) == 0


class ListedAt:
    """The service client, noting when each listing page was asked for and with which cursor."""

    def __init__(self, client: ContentClient) -> None:
        self._client = client
        self.pages: list[tuple[float, str | None]] = []

    def list_runs_page(self, **kwargs: object) -> object:
        self.pages.append((time.time(), cast(str | None, kwargs.get("cursor"))))
        return self._client.list_runs_page(**kwargs)

    def __getattr__(self, name: str) -> object:
        return getattr(self._client, name)


def test_a_run_whose_page_is_known_is_read_from_that_page_alone(
    box: Sandbox, machine: ContentClient, deps: Deps
) -> None:
    """The listing is newest first, so the runs most due (the oldest) sit on its last page. Once
    a walk has met them, their next poll reads that page only — also after newer runs pushed
    it further back — instead of every page before it."""
    runs = create_runs(box, machine, 250)  # three pages, newest first
    oldest = _watch(deps, runs[:6])  # on the last page
    positions = RunPositions()
    run_watcher.sweep(deps, oldest, hand_over=lambda rid, run: None, positions=positions)
    create_runs(box, machine, 150)  # now five pages, the oldest on the last
    box.counters.reset()
    settled: list[str] = []

    again = [Due(item.request_id, time.time()) for item in oldest]
    handed = run_watcher.sweep(
        deps,
        again,
        hand_over=lambda rid, run: None,
        settled=settled.extend,
        positions=positions,
    )

    assert handed == set()
    assert box.counters.get(LIST) == 1  # the page they were met on, not five
    assert box.counters.get(GET_ONE) == 0
    assert sorted(settled) == sorted(item.request_id for item in oldest)


def test_a_placed_run_that_joins_early_is_read_once_its_poll_is_due(
    box: Sandbox, machine: ContentClient, deps: Deps
) -> None:
    """A poll taken out early (within the tolerance) whose page is known waits for its due time
    and is then read from its page: not early, and not behind a walk from the first page."""
    runs = create_runs(box, machine, 250)
    oldest = _watch(deps, runs[:6])  # on the last page: a walk of three pages meets them
    positions = RunPositions()
    run_watcher.sweep(deps, oldest, hand_over=lambda rid, run: None, positions=positions)
    listed = ListedAt(machine)
    deps.content = cast(ContentClient, listed)
    due_at = time.time() + 0.3

    run_watcher.sweep(
        deps,
        [Due(item.request_id, due_at) for item in oldest],
        hand_over=lambda rid, run: None,
        more=lambda: [],
        positions=positions,
    )

    assert len(listed.pages) == 1
    read_at, cursor = listed.pages[0]
    assert cursor is not None  # its own page, not the first one
    assert due_at <= read_at < due_at + 0.25


def test_runs_read_together_from_their_page_stay_due_together(
    box: Sandbox, machine: ContentClient, deps: Deps
) -> None:
    """A page's runs fall due over a while (briefs come in over time); the page is read once
    its first is due, and its others, read with it a little early, are due again with it: the
    next interval one read of the page serves them all, not one for each claim that took some."""
    runs = create_runs(box, machine, 250)
    oldest = _watch(deps, runs[:6])  # on the last page
    positions = RunPositions()
    run_watcher.sweep(deps, oldest, hand_over=lambda rid, run: None, positions=positions)
    now = time.time()
    spread = [Due(item.request_id, now + 0.1 * n) for n, item in enumerate(oldest)]

    run_watcher.sweep(deps, spread, hand_over=lambda rid, run: None, positions=positions)

    nexts = [_next_polls(deps)[item.request_id] for item in spread]
    assert max(nexts) - min(nexts) < 0.05, nexts  # one interval (1 s scaled) after the read
    assert min(nexts) >= now + 1.0 - 0.05  # and never sooner than an interval after the first


def test_a_walk_for_new_runs_begins_once_one_is_due_and_they_stay_due_together(
    box: Sandbox, machine: ContentClient, deps: Deps
) -> None:
    """New runs (on the first page, which moves) are found by a walk from the top: it begins
    when the first of them is due, not as soon as they are taken out, and the ones read with it
    a little early are due again with it, so the next interval one walk serves them all."""
    watched = _watch(deps, create_runs(box, machine, 5))
    listed = ListedAt(machine)
    deps.content = cast(ContentClient, listed)
    first_due = time.time() + 0.3
    spread = [Due(item.request_id, first_due + 0.1 * n) for n, item in enumerate(watched)]

    run_watcher.sweep(
        deps, spread, hand_over=lambda rid, run: None, more=lambda: [], positions=RunPositions()
    )

    [(read_at, cursor)] = listed.pages
    assert cursor is None
    assert first_due <= read_at < first_due + 0.25
    nexts = [_next_polls(deps)[item.request_id] for item in spread]
    assert max(nexts) - min(nexts) < 0.05, nexts
