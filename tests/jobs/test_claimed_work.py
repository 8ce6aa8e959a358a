"""Deferred work claimed through the store's leases, with two replicas' timers on one store
(each with its own scheduler, as two processes have): a send runs once and never before it is
due, whichever replica claims it; a replica that stops gives back what it claimed; one that is
dropped without stopping has its polls taken over once its leases run out."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from jobs_helpers import store_only_deps

from suggestbot.flows.common.deps import Deps
from suggestbot.jobs import lease_engine as timers_module
from suggestbot.jobs import recovery, run_watcher
from suggestbot.jobs.lease_engine import SchedulerTimers
from suggestbot.jobs.leases import lease_period
from suggestbot.jobs.scheduler import Scheduler
from suggestbot.jobs.watch_list import Due
from suggestbot.store import SqliteStore, StoreUnavailable
from suggestbot.store.records import Records, Request


class Replica:
    def __init__(self, records: Records) -> None:
        self.scheduler = Scheduler(workers=2)
        self.timers = SchedulerTimers(self.scheduler)
        self.deps = store_only_deps(timers=self.timers, poll_scale=0.01)
        self.deps.records = records
        self.timers.deps = self.deps

    def start(self) -> Replica:
        self.scheduler.start()
        self.timers.start()
        return self

    def stop(self, *, wait: bool = True) -> None:
        self.timers.stop(wait=wait)
        self.scheduler.shutdown(wait=wait)


@pytest.fixture
def records(tmp_path: Path) -> Iterator[Records]:
    store = SqliteStore(tmp_path / "s.sqlite")
    yield Records(store)
    store.close()


@pytest.fixture
def replicas(records: Records) -> Iterator[list[Replica]]:
    started = [Replica(records).start() for _ in range(2)]
    yield started
    for replica in started:
        if replica.timers.running:
            replica.stop()


def _request(records: Records) -> str:
    req = Request(team_id="T1", user_id="U1", channel_id="C1", body={}, state="delayed")
    records.requests.put(req.id, req)
    return req.id


def _wait_until(condition: Any) -> None:
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_a_send_runs_once_and_not_before_it_is_due(
    replicas: list[Replica], records: Records, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[tuple[str, float, int]] = []
    lock = threading.Lock()

    def resume_one(deps: Deps, request_id: str) -> None:
        with lock:
            sent.append((request_id, time.time(), id(deps)))

    monkeypatch.setattr(timers_module, "resume_one", resume_one)
    due = {}
    for n in range(20):
        request_id = _request(records)
        due[request_id] = time.time() + 0.3 + n * 0.01
        replicas[n % 2].timers.send_later(request_id, at=due[request_id])

    _wait_until(lambda: len(sent) == 20)
    time.sleep(0.3)  # anything sent twice would show by now
    assert sorted(rid for rid, _, _ in sent) == sorted(due)
    assert all(at >= due[rid] for rid, at, _ in sent)  # a Retry-After is kept
    # Nothing is left claimed or scheduled: each send was released as done.
    assert (
        records.store.claim_due("run_sends", owner="x", now=1e12, due_by=1e12, lease_s=1, limit=99)
        == []
    )


class CountingSweeps:
    """Notes which replica's timers swept which request; never reschedules (one poll each)."""

    def __init__(self) -> None:
        self.swept: list[tuple[int, str]] = []
        self.lock = threading.Lock()
        self.block = threading.Event()
        self.unblock = threading.Event()

    def __call__(self, deps: Deps, due: Sequence[Due], **callbacks: Any) -> set[str]:
        with self.lock:
            self.swept.extend((id(deps), item.request_id) for item in due)
        if self.block.is_set():
            self.unblock.wait(60)  # a replica stuck (then dropped) mid-sweep
        return set()


def test_a_dropped_replicas_polls_are_taken_over_after_its_lease(
    records: Records, monkeypatch: pytest.MonkeyPatch
) -> None:
    sweeps = CountingSweeps()
    monkeypatch.setattr(run_watcher, "sweep", sweeps)
    dying = Replica(records)
    sweeps.block.set()
    dying.start()
    request_ids = [_request(records) for _ in range(3)]
    for request_id in request_ids:
        dying.timers.watch_run(request_id, delay_s=0)
    _wait_until(lambda: len(sweeps.swept) == 3)
    dying.stop(wait=False)  # as if killed mid-sweep: its leases are not given back
    dropped_at = time.time()
    sweeps.block.clear()

    survivor = Replica(records).start()
    try:
        _wait_until(lambda: len(sweeps.swept) == 6)
        taken_at = time.time()
        by_survivor = sorted(rid for who, rid in sweeps.swept if who == id(survivor.deps))
        assert by_survivor == sorted(request_ids)
        assert taken_at - dropped_at >= lease_period(survivor.deps) * 0.9  # not before
        # The dropped one, coming back to life, cannot undo the survivor's claims.
        sweeps.unblock.set()
        assert (
            records.run_polls.claim_keys(request_ids, owner="x", now=time.time(), lease_s=1) == []
        )
    finally:
        sweeps.unblock.set()
        survivor.stop()


def test_a_replica_that_stops_mid_sweep_gives_back_the_polls_held_for_it(
    records: Records, monkeypatch: pytest.MonkeyPatch
) -> None:
    sweeps = CountingSweeps()
    monkeypatch.setattr(run_watcher, "sweep", sweeps)
    replica = Replica(records)
    sweeps.block.set()
    replica.start()
    first = _request(records)
    replica.timers.watch_run(first, delay_s=0)
    _wait_until(lambda: len(sweeps.swept) == 1)
    # Due while the workspace's sweep is stuck: claimed and held for it.
    later = [_request(records) for _ in range(3)]
    for request_id in later:
        replica.timers.watch_run(request_id, delay_s=0)
    _wait_until(
        lambda: not records.run_polls.claim_keys(later, owner="x", now=time.time(), lease_s=0)
    )
    stopping = threading.Thread(target=replica.stop, daemon=True)
    stopping.start()
    # The sweep ends once the replica claims no more (else its watch loop could hand the held
    # polls to the next sweep of the workspace before it sees the stop).
    _wait_until(lambda: not replica.timers.running)
    sweeps.unblock.set()
    stopping.join(timeout=30)
    assert not stopping.is_alive(), "stopping hung"
    # Handed back, due as they were: another replica claims them at once, not a lease later.
    back = records.run_polls.claim_due(
        owner="x", now=time.time(), due_by=time.time(), lease_s=1, limit=9
    )
    assert sorted(claim.key for claim in back) == sorted(later)


def test_two_replicas_take_a_fair_share_of_polls_falling_due(
    records: Records, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One replica's sweep rolls on (a slow workspace), which makes it look at its list every
    few tens of milliseconds; it still claims no faster than the other, and both take a real
    share of what falls due, so a second replica adds throughput."""
    swept: dict[str, int] = {}
    lock = threading.Lock()
    release = threading.Event()
    blocker: list[str] = []

    def sweep(deps: Deps, due: Sequence[Due], **callbacks: Any) -> set[str]:
        with lock:
            for item in due:
                swept[item.request_id] = id(deps)
        if any(item.request_id in blocker for item in due):
            release.wait(60)  # this workspace's sweep keeps rolling
        return set()

    monkeypatch.setattr(run_watcher, "sweep", sweep)
    started = []
    for _ in range(2):
        replica = Replica(records)
        replica.deps.poll_scale = 1.0  # the contract's pace: claims every quarter second
        # Each workspace a tenant of its own, so each its own listing (and sweep).
        replica.deps.listing_of = lambda team_id: team_id
        started.append(replica.start())
    try:
        slow = Request(team_id="T-slow", user_id="U1", channel_id="C1", body={}, state="delayed")
        records.requests.put(slow.id, slow)
        blocker.append(slow.id)
        records.run_polls.schedule_grouped({slow.id: time.time()}, groups={slow.id: "T-slow"})
        _wait_until(lambda: slow.id in swept)
        _wait_until(lambda: all(r.timers.live_replicas == 2 for r in started))
        start = time.time() + 0.2
        wanted = []
        for n in range(300):
            req = Request(team_id=f"T{n % 30}", user_id="U1", channel_id="C1", body={})
            records.requests.put(req.id, req)
            # Over three seconds, in 30 workspaces (claimed by workspace, as the timers file them).
            records.run_polls.schedule_grouped(
                {req.id: start + n * 0.01}, groups={req.id: req.team_id}
            )
            wanted.append(req.id)
        _wait_until(lambda: all(rid in swept for rid in wanted))
    finally:
        release.set()
        for replica in started:
            replica.stop()
    shares = [sum(1 for rid in wanted if swept[rid] == id(r.deps)) for r in started]
    assert sum(shares) == 300
    assert min(shares) >= 300 * 0.3, shares  # each took a real share
    assert [r.timers.live_replicas for r in started] == [2, 2]


def test_a_starting_replica_resumes_in_bulk_and_resets_no_others_work(records: Records) -> None:
    def put(state: str, **fields: Any) -> str:
        req = Request(team_id="T1", user_id="U1", channel_id="C1", body={}, state=state, **fields)
        records.requests.put(req.id, req)
        return req.id

    held, waiting, lost = put("submitted"), put("submitted"), put("posting")
    delayed, fresh = put("delayed", send_after=time.time() + 600), put("new")
    put("done")
    now = time.time()
    records.run_polls.schedule(held, due_at=now - 1)
    records.run_polls.claim_keys([held], owner="other", now=now, lease_s=1e4)
    records.run_polls.schedule(waiting, due_at=now + 500)

    replica = Replica(records)  # not started: only its start-up recovery runs
    assert recovery.resume_all(replica.deps) == 5

    # The poll another replica holds and the one waiting keep their owner and time; the one
    # nobody wrote down is due at once.
    polls = records.run_polls.claim_due(
        owner="x", now=now + 400, due_by=now + 400, lease_s=1, limit=9
    )
    assert [claim.key for claim in polls] == [lost]
    assert records.run_polls.release(held, owner="other", due_at=None)
    sends = records.run_sends.claim_due(
        owner="x", now=now + 1e4, due_by=now + 1e4, lease_s=1, limit=9
    )
    assert [claim.key for claim in sends] == [fresh, delayed]
    assert sends[1].due_at == records.requests.get(delayed).send_after  # type: ignore[union-attr]


def test_a_sweep_page_writes_its_next_polls_only_where_the_replica_still_holds_them(
    records: Records, monkeypatch: pytest.MonkeyPatch
) -> None:
    cancelled, never_held = _request(records), _request(records)
    kept = [_request(records) for _ in range(2)]
    swept: list[str] = []

    def sweep(deps: Deps, due: Sequence[Due], **callbacks: Any) -> set[str]:
        swept.extend(item.request_id for item in due)
        records.run_polls.unschedule(cancelled)  # the request was cancelled meanwhile
        deps.timers.watch_runs({rid: 5.0 for rid in [*kept, cancelled, never_held]})
        return set()

    monkeypatch.setattr(run_watcher, "sweep", sweep)
    replica = Replica(records)
    for request_id in [*kept, cancelled]:
        records.run_polls.schedule(request_id, due_at=time.time())
    replica.start()
    try:
        _wait_until(lambda: len(swept) == 3)
        written_at = time.time()
    finally:
        replica.stop()
    assert sorted(swept) == sorted([*kept, cancelled])
    # Free again (the lease ended with the write), due one interval on; the cancelled poll is
    # not brought back, and a poll this replica never held is written as asked.
    later = written_at + 10
    polls = records.run_polls.claim_due(owner="x", now=later, due_by=later, lease_s=1, limit=9)
    assert sorted(claim.key for claim in polls) == sorted([*kept, never_held])
    assert all(claim.due_at >= written_at + 4 and not claim.taken_over for claim in polls)


def test_a_single_poll_does_not_write_back_a_poll_another_replica_took_over(
    records: Records, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A replica that stalled past its lease and then finishes a single poll (its next poll
    written through ``watch_run``) leaves the poll to the replica that took it over."""
    request_id = _request(records)
    stalled = Replica(records)  # never started: only its timers' writes are used
    now = time.time()
    records.run_polls.schedule_grouped({request_id: now - 30}, groups={request_id: "T1"})
    [claim] = records.run_polls.claim_due_grouped(
        owner=stalled.timers.owner, now=now - 20, due_by=now - 20, lease_s=5, limit=9
    )
    stalled.timers._leased[claim.key] = now - 20  # as its claim loop notes what it holds
    [taken] = records.run_polls.claim_due_grouped(
        owner="survivor", now=now, due_by=now, lease_s=600, limit=9
    )
    assert taken.taken_over
    stalled.timers.watch_run(request_id, delay_s=0)  # its late poll ends: the next one written
    assert records.run_polls.claim_keys([request_id], owner="x", now=now, lease_s=1) == []
    assert records.run_polls.release(request_id, owner="survivor", due_at=None)  # still its own
    stalled.scheduler.shutdown(wait=False)


def test_each_workspaces_polls_are_served_by_one_replica_while_its_sweep_rolls(
    records: Records, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two replicas, four workspaces whose sweeps keep rolling (each holds its polls while it
    pages): a workspace's polls all go to the replica that serves it, and the replicas split
    the workspaces, so each workspace's listing is walked by one replica only."""
    swept: dict[str, set[int]] = {}
    lock = threading.Lock()
    release = threading.Event()

    def sweep(deps: Deps, due: Sequence[Due], **callbacks: Any) -> set[str]:
        more = callbacks["more"]
        items = list(due)
        while not release.is_set():  # a rolling sweep: polls join it as they fall due
            with lock:
                for item in items:
                    req = deps.records.requests.get(item.request_id)
                    assert req is not None
                    swept.setdefault(req.team_id, set()).add(id(deps))
            time.sleep(0.02)
            items = list(more())
        return set()

    monkeypatch.setattr(run_watcher, "sweep", sweep)
    started = []
    for _ in range(2):
        replica = Replica(records)
        replica.deps.poll_scale = 1.0  # the contract's pace
        started.append(replica.start())
    try:
        _wait_until(lambda: all(r.timers.live_replicas == 2 for r in started))
        start = time.time()
        for n in range(200):
            req = Request(team_id=f"T{n % 4}", user_id="U1", channel_id="C1", body={})
            records.requests.put(req.id, req)
            records.run_polls.schedule_grouped(
                {req.id: start + n * 0.01}, groups={req.id: req.team_id}
            )
        _wait_until(lambda: len(swept) == 4 and time.time() > start + 2.5)
    finally:
        release.set()
        for replica in started:
            replica.stop()
    assert all(len(replicas) == 1 for replicas in swept.values()), swept
    served_by = [next(iter(replicas)) for replicas in swept.values()]
    assert sorted(served_by.count(id(r.deps)) for r in started) == [2, 2]


def test_a_renewal_leaves_fresh_leases_alone_and_never_lets_one_run_out(
    records: Records, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Most polls are read within a second or two of their claim: renewing every lease a busy
    replica holds, each time, held thousands of rows its own sweepers waited for. A renewal
    now takes only leases old enough to need it, and a poll held for several lease periods
    still never becomes another replica's."""
    scheduler = Scheduler(workers=1)
    timers = SchedulerTimers(scheduler)
    deps = store_only_deps(timers=timers, poll_scale=1.0)  # the contract's 10 s: lease 10 s
    deps.records = records
    timers.deps = deps
    lease_s = lease_period(deps)
    renewed: list[set[str]] = []
    renew = records.run_polls.renew

    def noting(keys: Any, **kwargs: Any) -> list[str]:
        renewed.append(set(keys))
        return renew(keys, **kwargs)

    monkeypatch.setattr(records.run_polls, "renew", noting)
    t0 = time.time()
    older = [_request(records), _request(records)]
    younger = _request(records)
    records.run_polls.schedule_grouped(
        {older[0]: t0, older[1]: t0, younger: t0 + 5.5},
        groups=dict.fromkeys([*older, younger], "T1"),
    )

    timers._claim_and_renew(deps, t0)  # claims the two older polls
    timers._claim_and_renew(deps, t0 + lease_s * 0.34)  # renews them
    timers._claim_and_renew(deps, t0 + lease_s * 0.6)  # no renewal due: claims the younger
    renewed.clear()
    timers._claim_and_renew(deps, t0 + lease_s * 0.68)  # the younger is 0.08 of a lease old

    assert renewed == [set(older)]
    for step in range(1, 7):  # two more lease periods, renewing every third
        timers._claim_and_renew(deps, t0 + lease_s * (0.68 + step / 3 + 0.01))
        now = t0 + lease_s * (0.68 + step / 3 + 0.02)
        assert (
            records.run_polls.claim_keys(
                [*older, younger], owner="another", now=now, lease_s=lease_s
            )
            == []
        )


def test_a_poll_released_and_taken_again_while_a_renewal_runs_is_still_held(
    records: Records, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A renewal lists the leases old enough to renew, then writes. Meanwhile a sweeper may
    release one (its page was read) and a later page read take it again ahead of its time:
    the renewal's answer then leaves it out, but the poll is this replica's, and forgetting it
    would leave its lease to run out with nobody renewing it."""
    scheduler = Scheduler(workers=1)
    timers = SchedulerTimers(scheduler)
    deps = store_only_deps(timers=timers, poll_scale=1.0)
    deps.records = records
    timers.deps = deps
    lease_s = lease_period(deps)
    t0 = time.time()
    taken_again, lost = _request(records), _request(records)
    records.run_polls.schedule_grouped(
        {taken_again: t0, lost: t0}, groups=dict.fromkeys([taken_again, lost], "T1")
    )
    timers._claim_and_renew(deps, t0)  # claims both
    renew = records.run_polls.renew

    def meanwhile(keys: Any, **kwargs: Any) -> list[str]:
        # While the renewal waits for its rows: one poll is released and taken again (as a
        # page read does), the other is taken over by another replica.
        assert records.run_polls.release(taken_again, owner=timers.owner, due_at=t0 + 20)
        claims = records.run_polls.claim_group_free(
            "T1", owner=timers.owner, now=t0 + 4, due_by=t0 + 30, lease_s=lease_s, limit=9
        )
        assert [claim.key for claim in claims] == [taken_again]
        with timers._lock:
            timers._leased[taken_again] = t0 + 4
        assert records.run_polls.release(lost, owner=timers.owner, due_at=t0)
        assert records.run_polls.claim_keys([lost], owner="other", now=t0 + 4, lease_s=lease_s)
        return [key for key in renew(keys, **kwargs) if key not in (taken_again, lost)]

    monkeypatch.setattr(records.run_polls, "renew", meanwhile)
    timers._claim_and_renew(deps, t0 + lease_s * 0.34)
    with timers._lock:
        leased = set(timers._leased)
    assert taken_again in leased
    assert lost not in leased


def test_a_poll_whose_next_time_could_not_be_written_is_not_ended_as_done(
    records: Records, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store goes away as a poll writes its next time, and is back when the poller ends
    the polls it still holds as done: that poll must stay in the store, to be claimed again
    once its lease runs out, not be deleted (its run would never be polled again)."""
    replica = Replica(records)  # never started: only its timers' writes are used
    request_id = _request(records)
    now = time.time()
    records.run_polls.schedule_grouped({request_id: now}, groups={request_id: "T1"})
    [claim] = records.run_polls.claim_due_grouped(
        owner=replica.timers.owner, now=now, due_by=now, lease_s=5, limit=9
    )
    replica.timers._leased[claim.key] = now

    def store_gone(*args: Any, **kwargs: Any) -> bool:
        raise StoreUnavailable("PostgreSQL cannot be reached")

    with monkeypatch.context() as away:
        away.setattr(records.run_polls, "release", store_gone)
        with pytest.raises(StoreUnavailable):
            replica.timers.watch_run(request_id, delay_s=1)
    replica.timers._forget_ended([request_id])  # the store is back

    assert records.run_polls.claim_keys([request_id], owner="x", now=now + 6, lease_s=1) == [
        request_id
    ]
    replica.scheduler.shutdown(wait=False)
