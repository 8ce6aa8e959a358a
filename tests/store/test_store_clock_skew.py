"""Replicas whose clocks disagree with the database's by 30 s share leases on PostgreSQL's
clock: one ahead never takes a lease its live holder keeps renewing, one behind takes a lapsed
lease as soon as it lapsed, and a due time means the same instant whoever wrote it."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from suggestbot.store.postgres import PostgresStore

SKEW_S = 30.0
LEASE_S = 2.0


def _clock(offset: float) -> Callable[[], float]:
    return lambda: time.time() + offset


@pytest.fixture
def replicas(postgres_url: str) -> Iterator[dict[str, PostgresStore]]:
    """One store per replica: on time, 30 s ahead, 30 s behind."""
    stores = {
        name: PostgresStore(postgres_url, clock=_clock(offset))
        for name, offset in (("on_time", 0.0), ("ahead", SKEW_S), ("behind", -SKEW_S))
    }
    yield stores
    for store in stores.values():
        store.close()


def _claim(store: PostgresStore, owner: str, offset: float, queue: str = "polls") -> list[str]:
    now = time.time() + offset
    claims = store.claim_due(queue, owner=owner, now=now, due_by=now, lease_s=LEASE_S, limit=9)
    return [claim.key for claim in claims]


def test_a_replica_ahead_never_takes_a_lease_its_live_holder_renews(
    replicas: dict[str, PostgresStore],
) -> None:
    on_time, ahead = replicas["on_time"], replicas["ahead"]
    on_time.schedule("polls", "held", due_at=time.time())
    assert _claim(on_time, "A", 0.0) == ["held"]
    for _ in range(3):  # 1.5 lease periods, the holder renewing every half period
        assert _claim(ahead, "B", SKEW_S) == []
        assert ahead.holders("polls", now=time.time() + SKEW_S) == 1
        time.sleep(LEASE_S / 2)
        assert on_time.renew("polls", ["held"], owner="A", now=time.time(), lease_s=LEASE_S)
    assert _claim(ahead, "B", SKEW_S) == []


def test_a_replica_behind_takes_a_lapsed_lease_once_it_lapsed_on_the_database(
    replicas: dict[str, PostgresStore],
) -> None:
    on_time, behind = replicas["on_time"], replicas["behind"]
    on_time.schedule("polls", "dead", due_at=time.time())
    assert _claim(on_time, "A", 0.0) == ["dead"]  # A dies holding it
    assert _claim(behind, "C", -SKEW_S) == []  # still A's
    time.sleep(LEASE_S + 0.2)
    claimed = behind.claim_due(
        "polls",
        owner="C",
        now=time.time() - SKEW_S,
        due_by=time.time() - SKEW_S,
        lease_s=LEASE_S,
        limit=9,
    )
    assert [(c.key, c.taken_over) for c in claimed] == [("dead", True)]
    # And the renewal of a replica behind keeps its lease for a whole period on every clock.
    assert behind.renew("polls", ["dead"], owner="C", now=time.time() - SKEW_S, lease_s=LEASE_S)
    assert _claim(on_time, "A", 0.0) == []
    assert replicas["ahead"].holders("polls", now=time.time() + SKEW_S) == 1


def test_a_due_time_means_one_instant_whoever_wrote_it(
    replicas: dict[str, PostgresStore],
) -> None:
    on_time, ahead, behind = replicas["on_time"], replicas["ahead"], replicas["behind"]
    # Written by the replica ahead "due now": due now for the others too, not in 30 s.
    ahead.schedule("sends", "now", due_at=time.time() + SKEW_S)
    # Written by the replica behind "due in 5 s": not due now for the others.
    behind.schedule("sends", "later", due_at=time.time() - SKEW_S + 5.0)
    assert _claim(on_time, "A", 0.0, queue="sends") == ["now"]
    assert _claim(ahead, "B", SKEW_S, queue="sends") == []
    # A due time comes back on the claimer's own clock.
    now = time.time()
    claims = ahead.claim_due(
        "sends", owner="B", now=now + SKEW_S, due_by=now + SKEW_S + 6.0, lease_s=LEASE_S, limit=9
    )
    assert [c.key for c in claims] == ["later"]
    assert claims[0].due_at == pytest.approx(now + SKEW_S + 5.0, abs=1.1)


def test_release_and_held_inserts_move_onto_the_database_clock(
    replicas: dict[str, PostgresStore],
) -> None:
    on_time, ahead, behind = replicas["on_time"], replicas["ahead"], replicas["behind"]
    # A hold written by the replica behind runs for its lease on the database's clock.
    assert behind.put_if_absent_held(
        "deliveries",
        "k",
        {"at": 1.0},
        queue="interactions",
        owner="C",
        now=time.time() - SKEW_S,
        lease_s=LEASE_S,
    )
    assert _claim(ahead, "B", SKEW_S, queue="interactions") == []
    time.sleep(LEASE_S + 0.2)
    assert _claim(on_time, "A", 0.0, queue="interactions") == ["k"]
    # Released by a holder whose clock is ahead, "due in 5 s": nobody takes it before then.
    assert ahead.release("interactions", "k", owner="A", due_at=time.time() + SKEW_S + 5.0)
    assert _claim(on_time, "A", 0.0, queue="interactions") == []
    assert _claim(behind, "C", -SKEW_S, queue="interactions") == []


def test_the_shared_time_is_the_database_clock(replicas: dict[str, PostgresStore]) -> None:
    for store in replicas.values():
        assert store.shared_now() == pytest.approx(time.time(), abs=1.0)


def test_a_renewal_sent_late_holds_for_a_whole_lease_from_when_it_was_written(
    replicas: dict[str, PostgresStore],
) -> None:
    """Under load a replica reads its clock, then waits (for the CPU, a connection) before its
    renewal reaches the database: the lease still runs a whole period from the write, so a
    claimer on time does not take it from its live holder in between."""
    on_time = replicas["on_time"]
    on_time.schedule("polls", "busy", due_at=time.time())
    assert _claim(on_time, "A", 0.0) == ["busy"]
    read_at = time.time()
    time.sleep(1.5)  # the renewal's tick read the clock, then waited
    assert on_time.renew("polls", ["busy"], owner="A", now=read_at, lease_s=LEASE_S)
    time.sleep(LEASE_S - 0.8)  # 1.2 s after the renewal, 2.7 s after the tick's reading
    assert _claim(on_time, "B", 0.0) == []
    assert on_time.holders("polls", now=time.time()) == 1
