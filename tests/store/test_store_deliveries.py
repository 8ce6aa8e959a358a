"""DeliveryLog: Slack retries and duplicate deliveries are handled once."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from suggestbot.store import DeliveryLog, MemoryStore, SqliteStore, Store, deliveries
from suggestbot.store.codec import Record
from suggestbot.store.postgres import PostgresStore

HOUR = 3600.0


class FakeClock:
    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_first_call_true_repeats_false() -> None:
    log = DeliveryLog(MemoryStore(), clock=FakeClock())
    assert log.first_time("event:Ev1") is True
    assert log.first_time("event:Ev1") is False
    assert log.first_time("event:Ev2") is True


def test_key_counts_again_once_the_ttl_has_passed() -> None:
    clock = FakeClock()
    log = DeliveryLog(MemoryStore(), ttl_s=2 * HOUR, clock=clock)
    assert log.first_time("k") is True
    clock.now += 2 * HOUR - 1
    assert log.first_time("k") is False
    clock.now += 1
    assert log.first_time("k") is True
    clock.now += 1
    assert log.first_time("k") is False


def test_ttl_shorter_than_an_hour_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 3600"):
        DeliveryLog(MemoryStore(), ttl_s=60)


def test_remembered_across_reopen(tmp_path: Path) -> None:
    clock = FakeClock()
    db = tmp_path / "s.sqlite"
    with SqliteStore(db) as store:
        assert DeliveryLog(store, clock=clock).first_time("trigger:123.456") is True
    clock.now += HOUR
    with SqliteStore(db) as store:
        assert DeliveryLog(store, clock=clock).first_time("trigger:123.456") is False


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
def test_exactly_one_of_twenty_concurrent_callers_wins(backend: str, tmp_path: Path) -> None:
    store = MemoryStore() if backend == "memory" else SqliteStore(tmp_path / "s.sqlite")
    log = DeliveryLog(store, clock=FakeClock())
    barrier = threading.Barrier(20)
    results: list[bool] = []
    lock = threading.Lock()

    def deliver() -> None:
        barrier.wait()
        outcome = log.first_time("event:same")
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=deliver) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    store.close()
    assert sorted(results) == [False] * 19 + [True]


# Twenty threads claim forty deliveries at once, every delivery by two threads (a Slack retry
# racing the first try); each thread reports a claim it won only after ``first_time`` returned,
# as the middleware acks only then. Then the process dies by SIGKILL, closing nothing.
_CLAIM_THEN_DIE = textwrap.dedent(
    """
    import json, os, signal, sys, threading
    from pathlib import Path
    from suggestbot.store import DeliveryLog, SqliteStore

    log = DeliveryLog(SqliteStore(Path(sys.argv[1])))
    barrier = threading.Barrier(20)
    out = threading.Lock()

    def claim(n):
        barrier.wait()
        for k in range(4):
            key = f"command:{(n % 10) * 4 + k}"
            if log.first_time(key, pending=f"sealed {key}"):
                with out:
                    sys.stdout.write(json.dumps(key) + "\\n")
                    sys.stdout.flush()

    threads = [threading.Thread(target=claim, args=(n,)) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


def test_concurrent_claims_are_durable_when_they_return_and_refuse_a_retry(
    tmp_path: Path,
) -> None:
    db = tmp_path / "suggestbot.sqlite"
    child = subprocess.run(
        [sys.executable, "-c", _CLAIM_THEN_DIE, str(db)], capture_output=True, timeout=120
    )
    assert child.returncode == -signal.SIGKILL, child.stderr.decode()
    won = [json.loads(line) for line in child.stdout.decode().splitlines()]
    # Exactly one winner for each delivery, though two threads raced for every one.
    assert sorted(won) == sorted(f"command:{n}" for n in range(40))
    with SqliteStore(db) as store:  # a new process's view: what reached the file
        log = DeliveryLog(store)
        assert sorted(log.unfinished()) == sorted((key, f"sealed {key}") for key in won)
        assert not any(log.first_time(key) for key in won)  # the retry after a restart


def test_prune_deletes_only_expired_entries() -> None:
    clock = FakeClock()
    store = MemoryStore()
    log = DeliveryLog(store, ttl_s=HOUR, clock=clock)
    log.first_time("old")
    clock.now += HOUR / 2
    log.first_time("recent")
    store.put("deliveries", "malformed", {"at": "yesterday"})
    clock.now += HOUR / 2
    assert log.prune() == 1
    # Found by its time only: an entry whose time is no number stays, and its key counts as new.
    assert [key for key, _ in store.items("deliveries")] == ["malformed", "recent"]
    assert log.first_time("recent") is False
    assert log.first_time("malformed") is True
    assert log.prune() == 0


def test_a_kept_delivery_is_unfinished_until_finished(tmp_path: Path) -> None:
    clock = FakeClock()
    db = tmp_path / "s.sqlite"
    with SqliteStore(db) as store:
        log = DeliveryLog(store, clock=clock)
        assert log.first_time("event:Ev1", pending="sealed-1") is True
        assert log.first_time("event:Ev2") is True  # nothing kept: never unfinished
        # A repeat neither replaces what was kept nor counts as a first time.
        assert log.first_time("event:Ev1", pending="sealed-other") is False
    with SqliteStore(db) as store:  # what a restart finds
        log = DeliveryLog(store, clock=clock)
        assert log.unfinished() == [("event:Ev1", "sealed-1")]
        log.finish("event:Ev1")
        assert log.unfinished() == []
        assert log.first_time("event:Ev1") is False  # still a repeat after its work


def test_attempts_are_counted_until_finished() -> None:
    log = DeliveryLog(MemoryStore(), clock=FakeClock())
    log.first_time("k", pending="sealed")
    assert [log.next_attempt("k") for _ in range(3)] == [1, 2, 3]
    log.finish("k")
    assert log.next_attempt("k") == 0  # nothing unfinished to count


def test_prune_keeps_unfinished_work() -> None:
    clock = FakeClock()
    log = DeliveryLog(MemoryStore(), clock=clock)
    log.first_time("done")
    log.first_time("open", pending="sealed")
    clock.now += 3 * HOUR
    assert log.prune() == 1
    assert log.unfinished() == [("open", "sealed")]


@pytest.fixture(params=["memory", "postgresql"])
def shared(request: pytest.FixtureRequest) -> Iterator[Store]:
    """One store two replicas share (in one process for the memory store)."""
    store: Store = (
        MemoryStore()
        if request.param == "memory"
        else PostgresStore(request.getfixturevalue("postgres_url"), caller_times=True)
    )
    yield store
    store.close()


def test_a_kept_delivery_is_held_until_finished_and_claimed_once_its_hold_lapses(
    shared: Store,
) -> None:
    clock = FakeClock()
    dying = DeliveryLog(shared, clock=clock, owner="dying", lease_s=10.0)
    living = DeliveryLog(shared, clock=clock, owner="living", lease_s=10.0)
    assert dying.first_time("event:Ev1", pending="sealed-1") is True
    assert dying.held() == {"event:Ev1"}
    assert living.first_time("event:Ev1", pending="sealed-1") is False  # Slack's retry
    assert living.held() == set()

    clock.now += 9.0
    assert living.claim_abandoned(limit=10) == []  # held, and renewed while the work runs
    assert dying.renew_held() == []
    clock.now += 9.0
    assert living.claim_abandoned(limit=10) == []

    clock.now += 10.0  # the holder died: no renewal for a lease period
    [claim] = living.claim_abandoned(limit=10)
    assert (claim.key, claim.taken_over) == ("event:Ev1", True)
    assert living.pending("event:Ev1") == "sealed-1"
    assert dying.renew_held() == ["event:Ev1"]  # a stalled holder learns it lost it
    living.finish("event:Ev1")
    assert living.pending("event:Ev1") is None and living.held() == set()
    clock.now += 60.0
    assert dying.claim_abandoned(limit=10) == living.claim_abandoned(limit=10) == []


def test_a_claimed_unit_whose_work_already_ended_is_just_ended(shared: Store) -> None:
    """A holder that died between finishing the entry and ending its hold."""
    clock = FakeClock()
    dying = DeliveryLog(shared, clock=clock, owner="dying", lease_s=10.0)
    living = DeliveryLog(shared, clock=clock, owner="living", lease_s=10.0)
    dying.first_time("event:Ev1", pending="sealed-1")
    shared.update("deliveries", "event:Ev1", lambda e: {"at": (e or {}).get("at")})
    clock.now += 11.0
    [claim] = living.claim_abandoned(limit=10)
    assert living.pending(claim.key) is None
    living.finish(claim.key)
    clock.now += 60.0
    assert living.claim_abandoned(limit=10) == []


def test_a_units_own_late_renewal_does_not_hand_it_back_as_abandoned() -> None:
    clock = FakeClock()
    log = DeliveryLog(MemoryStore(), clock=clock, owner="me", lease_s=10.0)
    log.first_time("event:Ev1", pending="sealed-1")
    clock.now += 11.0  # the renewal came late: the work still runs here
    assert log.claim_abandoned(limit=10) == []
    assert log.held() == {"event:Ev1"} and log.renew_held() == []


def test_prune_reads_only_expired_entries_page_by_page(
    shared: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = FakeClock()
    log = DeliveryLog(shared, ttl_s=HOUR, clock=clock)
    monkeypatch.setattr(deliveries, "PRUNE_PAGE", 3)
    for n in range(7):
        log.first_time(f"old{n}")
    log.first_time("open", pending="sealed")
    clock.now += HOUR
    log.first_time("recent")
    seen: list[int] = []
    matching = shared.items_matching

    def counted(*args: Any, **kwargs: Any) -> list[tuple[str, Record]]:
        found = matching(*args, **kwargs)
        seen.append(len(found))
        return found

    monkeypatch.setattr(shared, "items_matching", counted)
    if isinstance(shared, PostgresStore):  # the single-process stores read their table
        monkeypatch.setattr(shared, "items", lambda table: pytest.fail("read the whole table"))
    assert log.prune() == 7
    assert max(seen) <= 3
    monkeypatch.undo()
    assert sorted(key for key, _ in shared.items("deliveries")) == ["open", "recent"]
