"""The watch thread: due polls go out in sweeps per workspace, one sweep per workspace at a
time; polls that fall due during a sweep join it as it pages, or (a sweep that takes no more)
go together into the next one."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from jobs_helpers import store_only_deps

from suggestbot.flows.common.deps import Deps
from suggestbot.jobs import lease_engine as timers_module
from suggestbot.jobs import run_watcher
from suggestbot.jobs.lease_engine import SchedulerTimers
from suggestbot.jobs.scheduler import Scheduler
from suggestbot.jobs.watch_list import Due
from suggestbot.store.records import Request


class FakeSweeps:
    """Records each sweep's requests; the first sweep of team T1 waits for ``release``."""

    def __init__(self) -> None:
        self.sweeps: list[tuple[str, list[str]]] = []
        self.first_started = threading.Event()
        self.release = threading.Event()
        self.lock = threading.Lock()

    def __call__(self, deps: Deps, due: Sequence[Due], **callbacks: Any) -> set[str]:
        req = deps.records.requests.get(due[0].request_id)
        team = req.team_id if req else "?"
        with self.lock:
            self.sweeps.append((team, [item.request_id for item in due]))
            first = len([s for s in self.sweeps if s[0] == "T1"]) == 1 and team == "T1"
        if first:
            self.first_started.set()
            assert self.release.wait(10)
        return set()

    def of(self, team: str) -> list[list[str]]:
        with self.lock:
            return [ids for t, ids in self.sweeps if t == team]


@pytest.fixture
def running() -> Iterator[tuple[SchedulerTimers, Deps]]:
    scheduler = Scheduler(workers=2)
    timers = SchedulerTimers(scheduler)
    deps = store_only_deps(timers=timers, poll_scale=0.001)
    deps.listing_of = lambda team_id: team_id  # each workspace a tenant with its own listing
    timers.deps = deps
    scheduler.start()
    timers.start()
    yield timers, deps
    timers.stop()
    scheduler.shutdown()


def _request(deps: Deps, team: str) -> str:
    req = Request(team_id=team, user_id="U1", channel_id="C1", body={}, state="submitted")
    deps.records.requests.put(req.id, req)
    return req.id


def _wait_until(condition: Any) -> None:
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


@pytest.fixture
def sweeps(monkeypatch: pytest.MonkeyPatch) -> FakeSweeps:
    fake = FakeSweeps()
    monkeypatch.setattr(run_watcher, "sweep", fake)
    return fake


def test_polls_due_during_a_sweep_go_together_into_the_next_one(
    running: tuple[SchedulerTimers, Deps], sweeps: FakeSweeps
) -> None:
    timers, deps = running

    first = _request(deps, "T1")
    timers.watch_run(first, delay_s=0)
    assert sweeps.first_started.wait(10)
    later = [_request(deps, "T1") for _ in range(5)]
    for request_id in later:
        timers.watch_run(request_id, delay_s=0)
    other_team = _request(deps, "T2")
    timers.watch_run(other_team, delay_s=0)

    # another workspace is not held up by T1's sweep
    _wait_until(lambda: sweeps.of("T2") == [[other_team]])
    assert sweeps.of("T1") == [[first]]
    sweeps.release.set()
    _wait_until(lambda: len(sweeps.of("T1")) == 2)
    assert sorted(sweeps.of("T1")[1]) == sorted(later)


def test_workspaces_on_the_apps_own_client_are_swept_together(
    running: tuple[SchedulerTimers, Deps], sweeps: FakeSweeps
) -> None:
    """They are one tenant of the service, so one run listing: a page of it serves runs of
    both, and one sweep reads it for both instead of each walking the same pages."""
    timers, deps = running
    deps.listing_of = lambda team_id: None  # no credentials of their own
    first = _request(deps, "T1")
    timers.watch_run(first, delay_s=0)
    assert sweeps.first_started.wait(10)
    later = [_request(deps, team) for team in ("T1", "T2", "T2")]
    for request_id in later:
        timers.watch_run(request_id, delay_s=0)
    time.sleep(0.1)
    assert sweeps.of("T2") == []  # not a sweep of its own: they wait for the listing's
    sweeps.release.set()
    _wait_until(lambda: len(sweeps.sweeps) == 2)
    assert sorted(sweeps.sweeps[1][1]) == sorted(later)


def test_a_request_is_swept_again_only_once_it_asks_for_its_next_poll(
    running: tuple[SchedulerTimers, Deps], sweeps: FakeSweeps
) -> None:
    timers, deps = running
    sweeps.release.set()
    request_id = _request(deps, "T1")

    timers.watch_run(request_id, delay_s=0)
    _wait_until(lambda: len(sweeps.of("T1")) == 1)
    time.sleep(0.05)
    assert len(sweeps.of("T1")) == 1  # the fake sweep asked for no next poll

    timers.watch_run(request_id, delay_s=0)
    _wait_until(lambda: len(sweeps.of("T1")) == 2)


def test_a_request_sent_later_is_no_longer_polled(
    running: tuple[SchedulerTimers, Deps], sweeps: FakeSweeps, monkeypatch: pytest.MonkeyPatch
) -> None:
    timers, deps = running
    sweeps.release.set()
    monkeypatch.setattr(timers_module, "resume_one", lambda deps, rid: None)
    request_id = _request(deps, "T1")

    timers.watch_run(request_id, delay_s=0.2)
    timers.send_later(request_id, at=time.time() + 60)
    time.sleep(0.4)

    assert sweeps.of("T1") == []
    assert timers.watching.due_at(request_id) is None


class RollingSweeps(FakeSweeps):
    """The first sweep of T1 asks for the polls that join it until it has ``want`` of them."""

    want = 5

    def __call__(self, deps: Deps, due: Sequence[Due], **callbacks: Any) -> set[str]:
        handed = super().__call__(deps, due, **callbacks)
        if len(self.of("T1")) == 1:
            joined: list[str] = []
            deadline = time.monotonic() + 10
            while len(joined) < self.want and time.monotonic() < deadline:
                joined += [item.request_id for item in callbacks["more"]()]
                time.sleep(0.005)
            with self.lock:
                self.sweeps[0][1].extend(joined)
        return handed


def test_polls_due_while_a_sweep_pages_join_it_instead_of_waiting_for_it_to_end(
    running: tuple[SchedulerTimers, Deps], monkeypatch: pytest.MonkeyPatch
) -> None:
    timers, deps = running
    rolling = RollingSweeps()
    monkeypatch.setattr(run_watcher, "sweep", rolling)
    rolling.release.set()

    first = _request(deps, "T1")
    timers.watch_run(first, delay_s=0)
    assert rolling.first_started.wait(10)
    later = [_request(deps, "T1") for _ in range(rolling.want)]
    for request_id in later:
        timers.watch_run(request_id, delay_s=0)

    _wait_until(lambda: len(rolling.of("T1")[0]) == 1 + len(later))
    assert sorted(rolling.of("T1")[0]) == sorted([first, *later])
    time.sleep(0.1)
    assert len(rolling.of("T1")) == 1  # no second sweep: they were served by the first


class EndlessSweeps(FakeSweeps):
    """Each sweep serves its polls and asks for the next one at once, as a busy workspace's
    polls keep falling due, and rolls on until it is asked to give its sweeper up."""

    def __init__(self) -> None:
        super().__init__()
        self.release.set()
        self.done = threading.Event()
        self.gave_up: list[str] = []

    def __call__(self, deps: Deps, due: Sequence[Due], **callbacks: Any) -> set[str]:
        super().__call__(deps, due, **callbacks)
        team = self.sweeps[-1][0] if self.sweeps else "?"
        pending = list(due)
        keep_rolling = callbacks.get("keep_rolling", lambda: True)
        while not self.done.is_set():
            if pending:
                deps.timers.watch_runs({item.request_id: 0.0 for item in pending})
                callbacks["settled"]([item.request_id for item in pending])
            self.done.wait(0.01)
            pending = list(callbacks["more"]())
            if not keep_rolling():
                callbacks["put_back"](pending, time.time())
                with self.lock:
                    self.gave_up.append(team)
                return set()
        return set()


def test_more_busy_workspaces_than_sweepers_each_get_their_turn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sweeps = EndlessSweeps()
    monkeypatch.setattr(run_watcher, "sweep", sweeps)
    scheduler = Scheduler(workers=2)
    timers = SchedulerTimers(scheduler, sweepers=2)
    deps = store_only_deps(timers=timers, poll_scale=0.001)
    deps.listing_of = lambda team_id: team_id  # each workspace a tenant with its own listing
    timers.deps = deps
    scheduler.start()
    timers.start()
    try:
        teams = ["T1", "T2", "T3"]
        requests = [_request(deps, team) for team in teams for _ in range(3)]
        for request_id in requests:
            timers.watch_run(request_id, delay_s=0)

        def turns(request_id: str) -> int:
            with sweeps.lock:
                return sum(request_id in ids for _, ids in sweeps.sweeps)

        # Two sweepers, three workspaces whose polls never stop falling due: each one is
        # swept again and again, in turn, none waiting for another to run out of polls, and
        # no poll is dropped when its sweep gives its sweeper up.
        _wait_until(lambda: all(turns(request_id) >= 3 for request_id in requests))
        assert set(sweeps.gave_up) == set(teams)
    finally:
        sweeps.done.set()
        timers.stop()
        scheduler.shutdown()
