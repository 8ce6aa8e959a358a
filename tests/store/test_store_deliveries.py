"""DeliveryLog: Slack retries and duplicate deliveries are handled once."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from suggestbot.store import DeliveryLog, MemoryStore, SqliteStore

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
