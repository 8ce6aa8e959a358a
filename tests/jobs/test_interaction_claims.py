"""The job that keeps recorded interactions held while their work runs, and carries out those
whose replica let its hold lapse."""

from __future__ import annotations

import pytest

from no_whole_tables import NoWholeTables
from suggestbot import metrics
from suggestbot.jobs.interaction_claims import InteractionClaims
from suggestbot.store import DeliveryLog, MemoryStore

LEASE_S = 10.0


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def _replicas(store: MemoryStore | None = None) -> tuple[FakeClock, DeliveryLog, DeliveryLog]:
    store, clock = store or MemoryStore(), FakeClock()
    return (
        clock,
        DeliveryLog(store, clock=clock, owner="a", lease_s=LEASE_S),
        DeliveryLog(store, clock=clock, owner="b", lease_s=LEASE_S),
    )


def _taken_over() -> float:
    return metrics.CLAIMS_TAKEN_OVER._value.get()


def test_holds_are_renewed_by_their_replica_and_carried_out_elsewhere_once_they_lapse() -> None:
    clock, a, b = _replicas()
    done_by_a: list[str] = []
    done_by_b: list[str] = []
    job_a = InteractionClaims(a, carry_out=done_by_a.append)
    job_b = InteractionClaims(b, carry_out=done_by_b.append)
    assert a.first_time("event:Ev1", pending="sealed") and a.first_time("action:T2", pending="s")
    for _ in range(6):  # a lives: renewed every third of a lease, never taken from it
        clock.now += LEASE_S / 3
        assert job_a.look() == 0 and job_b.look() == 0
    assert done_by_b == []

    before = _taken_over()
    clock.now += LEASE_S  # a died: nothing renews its holds any more
    assert job_b.look() == 2
    assert sorted(done_by_b) == ["action:T2", "event:Ev1"] and done_by_a == []
    assert _taken_over() == before + 2
    assert b.held() == {"action:T2", "event:Ev1"}
    clock.now += LEASE_S / 3
    assert job_b.look() == 0  # held by b now, and renewed by it
    b.finish("event:Ev1")
    b.finish("action:T2")
    clock.now += 3 * LEASE_S
    assert job_a.look() == job_b.look() == 0 and len(done_by_b) == 2


def test_a_draining_replica_claims_nothing_but_keeps_renewing_its_own_holds() -> None:
    store = MemoryStore()
    clock, a, b = _replicas(store)
    job_a = InteractionClaims(a, carry_out=lambda key: pytest.fail(f"claimed {key}"))
    a.first_time("event:Ev1", pending="sealed")  # a's work, still running during its drain
    b.first_time("event:Ev2", pending="sealed")  # b died
    job_a.stop_claiming()
    clock.now += LEASE_S / 2
    job_a.look()
    clock.now += LEASE_S / 2 + 1
    assert job_a.look() == 0  # Ev2 lapsed, but a drains
    assert a.held() == {"event:Ev1"}
    third = DeliveryLog(store, clock=clock, owner="c", lease_s=LEASE_S)
    assert [claim.key for claim in third.claim_abandoned(limit=9)] == ["event:Ev2"]


def test_work_that_cannot_start_here_is_let_go_and_claimed_again_later() -> None:
    clock, a, b = _replicas()
    calls: list[str] = []

    def broken(key: str) -> None:
        calls.append(key)
        raise RuntimeError("the store went away")

    job_b = InteractionClaims(b, carry_out=broken)
    a.first_time("event:Ev1", pending="sealed")
    clock.now += LEASE_S + 1
    assert job_b.look() == 1 and b.held() == set()  # not renewed: it lapses again
    clock.now += LEASE_S / 3
    assert job_b.look() == 0
    clock.now += LEASE_S
    assert job_b.look() == 1 and calls == ["event:Ev1", "event:Ev1"]


def test_looking_for_lapsed_holds_never_reads_the_deliveries_whole() -> None:
    store, clock = NoWholeTables(), FakeClock()
    a = DeliveryLog(store, clock=clock, owner="a", lease_s=LEASE_S)
    b = DeliveryLog(store, clock=clock, owner="b", lease_s=LEASE_S)
    for n in range(50):
        a.first_time(f"event:Ev{n}", pending="sealed")
        a.first_time(f"command:T{n}")  # nothing kept
    clock.now += 3 * 3600  # every entry expired, and a's holds lapsed long ago
    store.guarding = True
    carried: list[str] = []
    assert InteractionClaims(b, carry_out=carried.append).look() == 50
    assert b.prune() == 50  # the finished ones; the unfinished are carried out first
    for key in carried:
        b.finish(key)
    assert b.prune() == 50
