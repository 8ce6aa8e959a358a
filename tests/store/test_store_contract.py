"""The Store contract, run against every backend so they cannot drift apart."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from suggestbot.store import MemoryStore, SqliteStore, Store
from suggestbot.store.postgres import PostgresStore

THREADS = 20


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    backend: Store
    if request.param == "memory":
        backend = MemoryStore()
    elif request.param == "sqlite":
        backend = SqliteStore(tmp_path / "s.sqlite")
    else:
        # The contract's timeline is the times the tests pass (0 s, 25 s, ...), not a clock.
        backend = PostgresStore(request.getfixturevalue("postgres_url"), caller_times=True)
    yield backend
    backend.close()


def run_concurrently(fn: Callable[[int], Any], *, threads: int = THREADS) -> list[Any]:
    """Start ``threads`` threads at the same moment and return their results in order."""
    barrier = threading.Barrier(threads)
    results: list[Any] = [None] * threads
    errors: list[BaseException] = []

    def worker(index: int) -> None:
        barrier.wait()
        try:
            results[index] = fn(index)
        except BaseException as exc:
            errors.append(exc)

    pool = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    assert not errors, errors
    return results


def test_round_trip_of_nested_unicode_record(store: Store) -> None:
    record = {
        "user": "U1",
        "name": "Zoë 😀",
        "n": 3,
        "ratio": 0.5,
        "ok": True,
        "none": None,
        "tags": ["a", {"deep": [1, 2.5, False]}],
    }
    store.put("users", "U1", record)
    assert store.get("users", "U1") == record
    assert store.get("users", "U2") is None


def test_put_replaces_and_tables_are_separate(store: Store) -> None:
    store.put("users", "k", {"v": 1})
    store.put("users", "k", {"v": 2})
    store.put("runs", "k", {"other": True})
    assert store.get("users", "k") == {"v": 2}
    assert store.get("runs", "k") == {"other": True}


def test_records_read_back_are_copies(store: Store) -> None:
    original = {"list": [1]}
    store.put("runs", "r", original)
    original["list"].append(2)
    read = store.get("runs", "r")
    assert read == {"list": [1]}
    assert read is not None
    read["list"].append(3)
    assert store.get("runs", "r") == {"list": [1]}


def test_delete_reports_whether_key_existed(store: Store) -> None:
    store.put("runs", "r", {"a": 1})
    assert store.delete("runs", "r") is True
    assert store.get("runs", "r") is None
    assert store.delete("runs", "r") is False


def test_items_is_a_sorted_snapshot(store: Store) -> None:
    for key in ["b", "a", "c"]:
        store.put("runs", key, {"k": key})
    snapshot = store.items("runs")
    store.put("runs", "d", {"k": "d"})
    store.delete("runs", "a")
    assert snapshot == [("a", {"k": "a"}), ("b", {"k": "b"}), ("c", {"k": "c"})]
    assert [key for key, _ in store.items("runs")] == ["b", "c", "d"]
    assert store.items("empty_table") == []


def test_put_if_absent_keeps_the_first_value(store: Store) -> None:
    assert store.put_if_absent("intents", "post:r1", {"by": "first"}) is True
    assert store.put_if_absent("intents", "post:r1", {"by": "second"}) is False
    assert store.get("intents", "post:r1") == {"by": "first"}


def test_update_creates_modifies_and_deletes(store: Store) -> None:
    seen: list[Any] = []

    def create(old: dict[str, Any] | None) -> dict[str, Any]:
        seen.append(old)
        return {"n": 1}

    assert store.update("runs", "r", create) == {"n": 1}
    assert seen == [None]
    assert store.update("runs", "r", lambda old: {"n": old["n"] + 1} if old else None) == {"n": 2}
    assert store.get("runs", "r") == {"n": 2}
    assert store.update("runs", "r", lambda old: None) is None
    assert store.get("runs", "r") is None
    assert store.update("runs", "absent", lambda old: None) is None
    assert store.items("runs") == []


def test_update_that_raises_changes_nothing(store: Store) -> None:
    store.put("runs", "r", {"n": 1})

    def broken(old: dict[str, Any] | None) -> dict[str, Any]:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        store.update("runs", "r", broken)
    assert store.get("runs", "r") == {"n": 1}


def test_update_keeps_bool_distinct_from_int(store: Store) -> None:
    store.put("runs", "r", {"flag": 1})
    store.update("runs", "r", lambda old: {"flag": True})
    assert store.get("runs", "r") == {"flag": True}
    assert store.get("runs", "r")["flag"] is True  # type: ignore[index]


@pytest.mark.parametrize(
    "bad",
    [
        {"when": {1, 2}},
        {"raw": b"bytes"},
        {"pair": (1, 2)},
        {"obj": object()},
        {"nan": float("nan")},
        {"inf": [float("inf")]},
        {"nested": {1: "int key"}},
    ],
    ids=["set", "bytes", "tuple", "object", "nan", "inf", "int-key"],
)
def test_non_json_values_are_rejected_and_not_stored(store: Store, bad: dict[str, Any]) -> None:
    with pytest.raises(TypeError, match="store values must be JSON"):
        store.put("runs", "r", bad)
    with pytest.raises(TypeError, match="store values must be JSON"):
        store.put_if_absent("runs", "r", bad)
    with pytest.raises(TypeError, match="store values must be JSON"):
        store.update("runs", "r", lambda old: bad)
    assert store.get("runs", "r") is None


def test_rejection_message_names_the_place_not_the_value(store: Store) -> None:
    with pytest.raises(TypeError) as caught:
        store.put("users", "U1", {"token": b"xoxp-secret-bytes-value"})
    assert "value['token']" in str(caught.value)
    assert "bytes" in str(caught.value)
    assert "xoxp" not in str(caught.value)


@pytest.mark.parametrize("not_a_dict", [["a"], "text", 3, None])
def test_records_must_be_dicts(store: Store, not_a_dict: Any) -> None:
    with pytest.raises(TypeError, match="must be dicts"):
        store.put("runs", "r", not_a_dict)


@pytest.mark.parametrize("table", ["Users", "run-s", "", "x;drop table y", "runs2", 't"q'])
def test_invalid_table_names_are_rejected(store: Store, table: str) -> None:
    with pytest.raises(ValueError, match="invalid table name"):
        store.put(table, "k", {"a": 1})
    with pytest.raises(ValueError, match="invalid table name"):
        store.get(table, "k")


def test_keys_must_be_strings(store: Store) -> None:
    with pytest.raises(TypeError, match="keys must be str"):
        store.put("runs", 5, {"a": 1})  # type: ignore[arg-type]


def test_closed_store_refuses_calls(store: Store) -> None:
    store.put("runs", "r", {"a": 1})
    store.close()
    with pytest.raises(RuntimeError, match="closed"):
        store.get("runs", "r")
    store.close()  # closing twice is harmless


def test_put_if_absent_is_atomic_across_threads(store: Store) -> None:
    results = run_concurrently(lambda i: store.put_if_absent("intents", "same", {"winner": i}))
    assert results.count(True) == 1
    winner = results.index(True)
    assert store.get("intents", "same") == {"winner": winner}


def test_update_is_atomic_across_threads(store: Store) -> None:
    rounds = 10

    def bump(old: dict[str, Any] | None) -> dict[str, Any]:
        return {"count": (old or {"count": 0})["count"] + 1}

    def worker(_: int) -> None:
        for _ in range(rounds):
            store.update("counters", "c", bump)

    run_concurrently(worker)
    assert store.get("counters", "c") == {"count": THREADS * rounds}


# --- batches: many records of one table in one commit ---------------------------------------------


def test_put_many_writes_every_record_replacing_earlier_ones(store: Store) -> None:
    store.put("runs", "a", {"v": 0})
    store.put_many("runs", {"a": {"v": 1}, "b": {"v": 2}})
    store.put_many("runs", {})  # nothing to write is fine
    assert store.items("runs") == [("a", {"v": 1}), ("b", {"v": 2})]


def test_a_batch_with_one_bad_record_writes_none_of_them(store: Store) -> None:
    batch: dict[str, Any] = {"a": {"v": 1}, "b": {"raw": b"bytes"}}
    with pytest.raises(TypeError, match="store values must be JSON"):
        store.put_many("runs", batch)
    with pytest.raises(TypeError, match="store values must be JSON"):
        store.put_many_if_absent("runs", batch)
    with pytest.raises(TypeError, match="store values must be JSON"):
        store.update_many("runs", {key: lambda old, v=value: v for key, value in batch.items()})
    with pytest.raises(TypeError, match="keys must be str"):
        store.put_many("runs", {"a": {"v": 1}, 5: {"v": 2}})  # type: ignore[dict-item]
    assert store.items("runs") == []


def test_put_many_if_absent_claims_only_the_free_keys(store: Store) -> None:
    store.put("intents", "b", {"by": "earlier"})
    claim = {"by": "me"}
    assert store.put_many_if_absent("intents", {"a": claim, "b": claim, "c": claim}) == ["a", "c"]
    assert store.get("intents", "b") == {"by": "earlier"}
    assert store.get("intents", "c") == claim
    assert store.put_many_if_absent("intents", {}) == []


def test_put_many_if_absent_gives_each_key_to_exactly_one_of_many_threads(store: Store) -> None:
    keys = [f"k{n}" for n in range(12)]
    # Overlapping batches: thread i claims keys from i % 4 on.
    won = run_concurrently(
        lambda i: store.put_many_if_absent("intents", {k: {"by": i} for k in keys[i % 4 :]})
    )
    assert sorted(k for keys_won in won for k in keys_won) == sorted(keys)
    for thread, keys_won in enumerate(won):
        for key in keys_won:
            assert store.get("intents", key) == {"by": thread}


def test_update_many_creates_changes_and_deletes(store: Store) -> None:
    store.put("runs", "change", {"n": 1})
    store.put("runs", "drop", {"n": 2})
    result = store.update_many(
        "runs",
        {
            "new": lambda old: old or {"n": 0},
            "change": lambda old: {"n": old["n"] + 1} if old else None,
            "drop": lambda old: None,
            "absent": lambda old: None,
        },
    )
    assert result == {"new": {"n": 0}, "change": {"n": 2}, "drop": None, "absent": None}
    assert store.items("runs") == [("change", {"n": 2}), ("new", {"n": 0})]


def test_update_many_that_raises_changes_nothing(store: Store) -> None:
    store.put("runs", "a", {"n": 1})

    def broken(old: dict[str, Any] | None) -> dict[str, Any]:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        store.update_many(
            "runs", {"a": lambda old: {"n": 5}, "b": lambda old: {"n": 6}, "c": broken}
        )
    assert store.items("runs") == [("a", {"n": 1})]


def test_update_many_is_atomic_across_threads(store: Store) -> None:
    def bump(old: dict[str, Any] | None) -> dict[str, Any]:
        return {"count": (old or {"count": 0})["count"] + 1}

    run_concurrently(lambda _: store.update_many("counters", {"a": bump, "b": bump}))
    assert store.items("counters") == [("a", {"count": THREADS}), ("b", {"count": THREADS})]


def test_batches_larger_than_one_query_see_every_existing_key(store: Store) -> None:
    store.put_many("intents", {f"k{n:04}": {"by": "earlier"} for n in range(0, 1200, 2)})
    claimed = store.put_many_if_absent("intents", {f"k{n:04}": {"by": "me"} for n in range(1200)})
    assert claimed == [f"k{n:04}" for n in range(1, 1200, 2)]
    seen = store.update_many("intents", {f"k{n:04}": lambda old: old for n in range(1200)})
    assert sum(1 for record in seen.values() if record == {"by": "earlier"}) == 600


def test_an_update_that_changes_the_old_record_in_place_is_written(store: Store) -> None:
    store.put("runs", "r", {"n": 1})

    def bump_in_place(old: dict[str, Any] | None) -> dict[str, Any] | None:
        if old is not None:
            old["n"] += 1
        return old

    assert store.update("runs", "r", bump_in_place) == {"n": 2}
    store.update_many("runs", {"r": bump_in_place})
    assert store.get("runs", "r") == {"n": 3}


# --- leases on units of deferred work ---------------------------------------------------------

LEASE_S = 30.0


def test_claims_take_due_units_earliest_first_at_most_limit(store: Store) -> None:
    for key, due in (("late", 50.0), ("b", 20.0), ("a", 10.0), ("future", 500.0)):
        store.schedule("polls", key, due_at=due)
    first = store.claim_due("polls", owner="p1", now=100.0, due_by=100.0, lease_s=LEASE_S, limit=2)
    assert [(c.key, c.due_at) for c in first] == [("a", 10.0), ("b", 20.0)]
    rest = store.claim_due("polls", owner="p2", now=100.0, due_by=100.0, lease_s=LEASE_S, limit=9)
    assert [c.key for c in rest] == ["late"]  # the others are leased; "future" is not due
    early = store.claim_due("polls", owner="p2", now=100.0, due_by=600.0, lease_s=LEASE_S, limit=9)
    assert [c.key for c in early] == ["future"]  # within the early tolerance asked for


def test_a_lease_that_ran_out_is_taken_over_and_a_renewed_one_is_not(store: Store) -> None:
    store.schedule("polls", "dead", due_at=0.0)
    store.schedule("polls", "alive", due_at=0.0)
    claimed = store.claim_due("polls", owner="A", now=1.0, due_by=1.0, lease_s=LEASE_S, limit=9)
    assert {c.key for c in claimed} == {"alive", "dead"}
    assert store.renew("polls", ["alive"], owner="A", now=25.0, lease_s=LEASE_S) == ["alive"]
    # At 32 the first lease (until 31) ran out; the renewed one lasts until 55.
    taken = store.claim_due("polls", owner="B", now=32.0, due_by=32.0, lease_s=LEASE_S, limit=9)
    assert [(c.key, c.due_at, c.taken_over) for c in taken] == [("dead", 0.0, True)]
    assert not any(c.taken_over for c in claimed)  # free units: nobody's work taken over
    # A holder that lost its lease can neither renew nor release it.
    assert store.renew("polls", ["dead", "alive"], owner="A", now=33.0, lease_s=LEASE_S) == [
        "alive"
    ]
    assert not store.release("polls", "dead", owner="A", due_at=None)
    assert store.claim_due("polls", owner="B", now=54.0, due_by=54.0, lease_s=1, limit=9) == []


def test_a_claim_with_a_share_leases_its_part_of_what_is_claimable(store: Store) -> None:
    for n in range(10):
        store.schedule("polls", f"u{n}", due_at=float(n))
    store.schedule("polls", "later", due_at=50.0)
    first = store.claim_due(
        "polls", owner="A", now=20.0, due_by=20.0, lease_s=LEASE_S, limit=99, share=2
    )
    assert [c.key for c in first] == ["u0", "u1", "u2", "u3", "u4"]  # the earliest half
    second = store.claim_due(
        "polls", owner="B", now=20.0, due_by=20.0, lease_s=LEASE_S, limit=99, share=3
    )
    assert [c.key for c in second] == ["u5", "u6"]  # a third of five, rounded up
    last = store.claim_due(
        "polls", owner="B", now=20.0, due_by=20.0, lease_s=LEASE_S, limit=2, share=2
    )
    assert [c.key for c in last] == ["u7"]  # half of the two looked at
    one = store.claim_due(
        "polls", owner="A", now=20.0, due_by=20.0, lease_s=LEASE_S, limit=9, share=4
    )
    assert [c.key for c in one] == ["u8"]  # never nothing while something is claimable


def test_holders_count_the_owners_of_live_leases(store: Store) -> None:
    for key in ("a", "b", "c"):
        store.schedule("replicas", key, due_at=0.0)
    store.schedule("polls", "other queue", due_at=0.0)
    store.claim_keys("replicas", ["a", "b"], owner="A", now=1.0, lease_s=10.0)
    store.claim_keys("replicas", ["c"], owner="B", now=1.0, lease_s=20.0)
    store.claim_keys("polls", ["other queue"], owner="C", now=1.0, lease_s=20.0)
    assert store.holders("replicas", now=5.0) == 2
    assert store.holders("replicas", now=12.0) == 1  # A's leases ran out
    assert store.holders("replicas", now=30.0) == 0
    assert store.holders("empty", now=0.0) == 0


def test_release_sets_the_next_due_time_or_forgets_the_unit(store: Store) -> None:
    store.schedule("polls", "again", due_at=0.0)
    store.schedule("polls", "done", due_at=0.0)
    store.claim_due("polls", owner="A", now=1.0, due_by=1.0, lease_s=LEASE_S, limit=9)
    assert store.release("polls", "again", owner="A", due_at=11.0)
    assert store.release("polls", "done", owner="A", due_at=None)
    assert store.claim_due("polls", owner="B", now=10.0, due_by=10.0, lease_s=1, limit=9) == []
    later = store.claim_due("polls", owner="B", now=11.0, due_by=11.0, lease_s=1, limit=9)
    assert [(c.key, c.due_at, c.taken_over) for c in later] == [("again", 11.0, False)]
    # The owner's own lease that ran out (a stall) is not another's work taken over.
    mine = store.claim_due("polls", owner="B", now=13.0, due_by=13.0, lease_s=1, limit=9)
    assert [(c.key, c.taken_over) for c in mine] == [("again", False)]
    assert not store.schedule("polls", "again", due_at=99.0, if_absent=True)  # exists: kept


def test_schedule_drops_a_lease_and_unschedule_forgets(store: Store) -> None:
    store.schedule("polls", "r", due_at=0.0)
    store.claim_due("polls", owner="A", now=1.0, due_by=1.0, lease_s=LEASE_S, limit=9)
    store.schedule("polls", "r", due_at=5.0)  # the work asked for again, at a new time
    assert not store.release("polls", "r", owner="A", due_at=None)
    again = store.claim_due("polls", owner="B", now=5.0, due_by=5.0, lease_s=LEASE_S, limit=9)
    assert [c.key for c in again] == ["r"]
    assert store.unschedule("polls", "r")
    assert not store.unschedule("polls", "r")
    assert store.claim_due("polls", owner="C", now=99.0, due_by=99.0, lease_s=1, limit=9) == []
    store.schedule("sends", "r", due_at=0.0)  # queues are separate
    assert store.claim_due("polls", owner="C", now=99.0, due_by=99.0, lease_s=1, limit=9) == []


def test_claim_keys_takes_free_units_before_they_are_due(store: Store) -> None:
    store.schedule("polls", "free", due_at=100.0)
    store.schedule("polls", "held", due_at=0.0)
    store.claim_due("polls", owner="A", now=1.0, due_by=1.0, lease_s=LEASE_S, limit=9)
    got = store.claim_keys("polls", ["free", "held", "gone"], owner="B", now=2.0, lease_s=LEASE_S)
    assert got == ["free"]  # "held" is A's until 31, "free" B's until 32
    assert store.claim_due("polls", owner="C", now=30.0, due_by=100.0, lease_s=1, limit=9) == []


def test_concurrent_claimers_get_disjoint_units(store: Store) -> None:
    for n in range(200):
        store.schedule("polls", f"u{n:03}", due_at=float(n))

    def claim(index: int) -> list[str]:
        got: list[str] = []
        while batch := store.claim_due(
            "polls", owner=f"o{index}", now=500.0, due_by=500.0, lease_s=LEASE_S, limit=7
        ):
            got.extend(c.key for c in batch)
        return got

    results = run_concurrently(claim, threads=8)
    every = [key for got in results for key in got]
    assert sorted(every) == [f"u{n:03}" for n in range(200)]  # each exactly once


def test_get_many_reads_the_stored_keys_of_many(store: Store) -> None:
    store.put("requests", "a", {"state": "new"})
    store.put("requests", "b", {"state": "done"})
    store.put("other", "c", {"x": 1})
    assert store.get_many("requests", ["b", "missing", "a", "b", "c"]) == {
        "b": {"state": "done"},
        "a": {"state": "new"},
    }
    assert store.get_many("requests", []) == {}
    many = {f"k{n:04}": {"n": n} for n in range(1500)}  # more than one statement holds
    store.put_many("bulk", many)
    assert store.get_many("bulk", list(many)) == many


# --- claims by whole groups (a workspace's run polls served by one walker) -------------------


def _grouped(store: Store, units: dict[str, tuple[str, float]]) -> None:
    due = {key: at for key, (_, at) in units.items()}
    groups = {key: group for key, (group, _) in units.items()}
    assert store.schedule_grouped("polls", due, groups=groups) == list(units)


def _claim_grouped(store: Store, owner: str, now: float, **kw: Any) -> list[tuple[str, str]]:
    kw.setdefault("limit", 99)
    got = store.claim_due_grouped(
        "polls", owner=owner, now=now, due_by=kw.pop("due_by", now), lease_s=LEASE_S, **kw
    )
    return [(c.group, c.key) for c in got]


def test_a_grouped_claim_takes_whole_groups_that_no_other_owner_holds(store: Store) -> None:
    _grouped(
        store,
        {
            "a1": ("T-a", 5.0),
            "b1": ("T-b", 1.0),
            "a2": ("T-a", 8.0),
            "b2": ("T-b", 9.0),
            "a-later": ("T-a", 50.0),
        },
    )
    # Both groups free: with a share of 2, the most overdue group (T-b) only, all of its due.
    assert _claim_grouped(store, "A", 10.0, share=2) == [("T-b", "b1"), ("T-b", "b2")]
    # T-b is A's while A holds a lease in it: B gets T-a, not what falls due in T-b.
    store.schedule_grouped("polls", {"b3": 10.0}, groups={"b3": "T-b"})
    assert _claim_grouped(store, "B", 10.0, share=2) == [("T-a", "a1"), ("T-a", "a2")]
    assert _claim_grouped(store, "C", 10.0) == []
    # The holder claims its own group's new units whatever its share; not B's group.
    assert _claim_grouped(store, "A", 10.0, share=9, due_by=60.0) == [("T-b", "b3")]
    # A group keeps its units' group through a release and a plain schedule.
    assert store.release("polls", "b1", owner="A", due_at=20.0)
    store.schedule("polls", "b2", due_at=20.0)
    assert store.release("polls", "b3", owner="A", due_at=20.0) is True
    # Nobody holds T-b any more (A released all of it): B may take it now.
    assert _claim_grouped(store, "B", 20.0) == [("T-b", "b1"), ("T-b", "b2"), ("T-b", "b3")]


def test_a_dead_owners_group_is_taken_over_once_its_leases_ran_out(store: Store) -> None:
    _grouped(store, {"x1": ("T-x", 0.0), "x2": ("T-x", 0.0), "x3": ("T-x", 100.0)})
    assert [k for _, k in _claim_grouped(store, "dead", 1.0)] == ["x1", "x2"]
    store.release("polls", "x2", owner="dead", due_at=5.0)  # x1 still held until 31
    assert _claim_grouped(store, "B", 30.0) == []  # the group is still the dead owner's
    got = store.claim_due_grouped(
        "polls", owner="B", now=32.0, due_by=32.0, lease_s=LEASE_S, limit=99
    )
    assert [(c.key, c.taken_over) for c in got] == [("x1", True), ("x2", False)]
    assert got[0].group == "T-x"


def test_schedule_grouped_if_absent_keeps_units_there_and_limit_holds(store: Store) -> None:
    _grouped(store, {f"u{n}": ("T", float(n)) for n in range(5)})
    written = store.schedule_grouped(
        "polls", {"u0": 99.0, "new": 0.5}, groups={"u0": "T-other", "new": "T"}, if_absent=True
    )
    assert written == ["new"]
    got = _claim_grouped(store, "A", 10.0, limit=3)
    assert got == [("T", "u0"), ("T", "new"), ("T", "u1")]  # earliest due first, at most 3
    assert _claim_grouped(store, "A", 10.0) == [("T", "u2"), ("T", "u3"), ("T", "u4")]
    store.schedule("polls", "plain", due_at=0.0)  # no group: the group ""
    assert _claim_grouped(store, "B", 10.0) == [("", "plain")]


def test_grouped_claimers_each_take_their_fair_part_of_the_groups(store: Store) -> None:
    _grouped(store, {f"u{g:02}": (f"T{g:02}", float(g)) for g in range(30)})
    parts = [
        {group for group, _ in _claim_grouped(store, owner, 40.0, share=3)}
        for owner in ("A", "B", "C")
    ]
    assert [len(part) for part in parts] == [10, 10, 10]
    assert parts[0] == {f"T{g:02}" for g in range(10)}  # the most overdue first


def test_concurrent_grouped_claimers_never_split_a_group(store: Store) -> None:
    units = {f"g{g}-{n:02}": (f"T{g}", float(n)) for g in range(6) for n in range(20)}
    _grouped(store, units)

    def claim(index: int) -> list[tuple[str, str]]:
        got: list[tuple[str, str]] = []
        while batch := _claim_grouped(store, f"o{index}", 500.0, limit=7):
            got.extend(batch)
        return got

    results = run_concurrently(claim, threads=6)
    every = sorted(key for got in results for _, key in got)
    assert every == sorted(units)  # each exactly once
    owners_of: dict[str, set[int]] = {}
    for index, got in enumerate(results):
        for group, _ in got:
            owners_of.setdefault(group, set()).add(index)
    assert all(len(owners) == 1 for owners in owners_of.values()), owners_of


def test_items_where_reads_the_records_whose_field_is_one_of_the_values(store: Store) -> None:
    store.put("requests", "b", {"state": "submitted", "n": 1})
    store.put("requests", "a", {"state": "new"})
    store.put("requests", "c", {"state": "done"})
    store.put("requests", "d", {"other": "submitted"})
    store.put("runs", "e", {"state": "new"})  # another table, and one with no typed column
    found = store.items_where("requests", "state", ["new", "submitted"])
    assert found == [("a", {"state": "new"}), ("b", {"state": "submitted", "n": 1})]
    assert store.items_where("runs", "state", {"new"}) == [("e", {"state": "new"})]
    assert store.items_where("requests", "state", []) == []


def _request(team: str, user: str, kind: str, state: str, created_at: float) -> dict[str, Any]:
    return {
        "team_id": team,
        "user_id": user,
        "kind": kind,
        "state": state,
        "created_at": created_at,
    }


def test_items_matching_reads_the_records_that_match_every_field(store: Store) -> None:
    store.put_many(
        "requests",
        {
            "r1": _request("T1", "U1", "brief", "done", 10),
            "r2": _request("T1", "U1", "refinement", "done", 20),
            "r3": _request("T1", "U2", "brief", "failed", 30),
            "r4": _request("T2", "U1", "brief", "done", 40),
            "r5": _request("T1", "U1", "brief", "submitted", 50),
        },
    )
    found = store.items_matching(
        "requests", where={"team_id": ["T1"], "user_id": ["U1"], "state": ["done", "failed"]}
    )
    assert [key for key, _ in found] == ["r1", "r2"]
    assert found[0][1] == _request("T1", "U1", "brief", "done", 10)
    assert [key for key, _ in store.items_matching("requests", where={"team_id": ["T2"]})] == ["r4"]
    assert store.items_matching("requests", where={"team_id": []}) == []
    assert store.items_matching("requests", where={"team_id": ["T3"]}) == []
    assert store.items_matching("empty", where={"team_id": ["T1"]}) == []


def test_items_matching_orders_newest_first_and_stops_at_the_limit(store: Store) -> None:
    store.put_many(
        "requests",
        {
            f"r{n}": _request("T1", "U1", "brief" if n % 2 else "refinement", "done", float(n))
            for n in range(1, 10)
        }
        | {
            "same-b": _request("T1", "U1", "brief", "done", 5.0),
            "same-a": _request("T1", "U1", "brief", "done", 5.0),
            "undated": {"team_id": "T1", "user_id": "U1", "kind": "brief", "state": "done"},
            "other": _request("T1", "U2", "brief", "done", 99.0),
        },
    )
    where = {"team_id": ["T1"], "user_id": ["U1"], "kind": ["brief"]}
    newest = store.items_matching("requests", where=where, newest_by="created_at")
    expected = ["r9", "r7", "r5", "same-a", "same-b", "r3", "r1", "undated"]
    assert [key for key, _ in newest] == expected
    top = store.items_matching("requests", where=where, newest_by="created_at", limit=3)
    assert [key for key, _ in top] == ["r9", "r7", "r5"]
    assert store.items_matching("requests", where=where, limit=0) == []
    with pytest.raises(ValueError, match="negative"):
        store.items_matching("requests", where=where, limit=-1)


def test_items_matching_compares_exactly_and_skips_records_without_the_field(
    store: Store,
) -> None:
    store.put_many(
        "digests",
        {
            "d1": {"team_id": "T1", "paused": False},
            "d2": {"team_id": "T1", "paused": True},
            "d0": {"team_id": "T1"},  # no flag at all: not "not paused"
            "d4": {"team_id": "T1", "paused": 0},  # 0 is not False
            "d5": {"team_id": ["T1"], "paused": False},  # a list is not the string
        },
    )
    assert [key for key, _ in store.items_matching("digests", where={"paused": [False]})] == [
        "d1",
        "d5",
    ]
    both = store.items_matching("digests", where={"team_id": ["T1"], "paused": [False]})
    assert [key for key, _ in both] == ["d1"]
    # d0 comes first by key but does not match: the limit still finds d1.
    limited = store.items_matching("digests", where={"team_id": ["T1"], "paused": [False]}, limit=1)
    assert [key for key, _ in limited] == ["d1"]
    # A table with no typed columns, and a field with none: the same answers.
    store.put_many("runs", {"a": {"team_id": "T1", "x": "1"}, "b": {"team_id": "T1", "x": "2"}})
    assert [key for key, _ in store.items_matching("runs", where={"x": ["2"]})] == ["b"]
    on_json = store.items_matching("requests", where={"labels": ["x"]})
    assert on_json == []


def test_items_matching_bounds_numeric_fields_for_what_is_due(store: Store) -> None:
    store.put_many(
        "inspiration_watches",
        {
            "w1": {"team_id": "T1", "next_poll_at": 10},
            "w2": {"team_id": "T1", "next_poll_at": 20.5},
            "w3": {"team_id": "T2", "next_poll_at": 5},
            "w4": {"team_id": "T1", "next_poll_at": True},  # not a number: never due
            "w5": {"team_id": "T1"},
        },
    )
    due = store.items_matching("inspiration_watches", where={}, at_most={"next_poll_at": 20.5})
    assert [key for key, _ in due] == ["w1", "w2", "w3"]
    theirs = store.items_matching(
        "inspiration_watches", where={"team_id": ["T1"]}, at_most={"next_poll_at": 15}
    )
    assert theirs == [("w1", {"team_id": "T1", "next_poll_at": 10})]
    assert store.items_matching("runs", where={}, at_most={"next_poll_at": 1e9}) == []


def test_items_matching_finds_digests_by_their_local_time(store: Store) -> None:
    """The digest wave asks for the local times that fell due; PostgreSQL answers from the
    digests' local-minute column, and every backend gives exactly the records with those times."""
    store.put_many(
        "digests",
        {
            "d1": {"team_id": "T1", "time": "09:00", "tz": "UTC", "paused": False},
            "d2": {"team_id": "T1", "time": "09:05", "tz": "Europe/Berlin", "paused": False},
            "d3": {"team_id": "T1", "time": "14:00", "tz": "UTC", "paused": False},
            "d4": {"team_id": "T1", "time": "09:00", "tz": "UTC", "paused": True},
            "d5": {"team_id": "T1", "time": "9:00", "tz": "UTC", "paused": False},  # not HH:MM
            "d6": {"team_id": "T1", "tz": "UTC", "paused": False},
        },
    )
    due = store.items_matching("digests", where={"time": ["09:00", "09:05"], "paused": [False]})
    assert [key for key, _ in due] == ["d1", "d2"]
    assert [k for k, _ in store.items_matching("digests", where={"time": ["9:00"]})] == ["d5"]
    assert store.items_matching("digests", where={"time": ["25:00", "banana"]}) == []


def test_items_matching_any_reads_what_matches_one_of_several_lookups(store: Store) -> None:
    store.put_many(
        "digests",
        {
            "d1": {"time": "09:00", "tz": "UTC", "paused": False},
            "d2": {"time": "10:00", "tz": "Europe/Berlin", "paused": False},
            "d3": {"time": "10:00", "tz": "UTC", "paused": False},  # UTC's 10:00 is not asked
            "d4": {"time": "09:00", "tz": "UTC", "paused": True},
            "d5": {"time": "09:00", "tz": "Europe/Berlin", "paused": False},
        },
    )
    wheres = [
        {"tz": ["UTC"], "time": ["09:00"], "paused": [False]},
        {"tz": ["Europe/Berlin"], "time": ["10:00", "11:00"], "paused": [False]},
        {"tz": [], "time": ["09:00"]},  # an empty set of values matches nothing
    ]
    found = store.items_matching_any("digests", wheres)
    assert found == [
        ("d1", {"time": "09:00", "tz": "UTC", "paused": False}),
        ("d2", {"time": "10:00", "tz": "Europe/Berlin", "paused": False}),
    ]
    assert store.items_matching_any("digests", []) == []
    assert [k for k, _ in store.items_matching_any("digests", [{"tz": ["UTC"]}])] == [
        "d1",
        "d3",
        "d4",
    ]


def test_schedule_many_writes_every_unit_and_if_absent_keeps_those_there(store: Store) -> None:
    store.schedule("polls", "held", due_at=0.0)
    store.claim_due("polls", owner="A", now=1.0, due_by=1.0, lease_s=LEASE_S, limit=9)
    store.schedule("polls", "waiting", due_at=50.0)
    due = {"held": 2.0, "waiting": 2.0, **{f"new{n}": 2.0 + n for n in range(3)}}
    # A starting replica adds what is missing and resets nothing another one holds or waits for.
    assert store.schedule_many("polls", due, if_absent=True) == ["new0", "new1", "new2"]
    got = store.claim_due("polls", owner="B", now=5.0, due_by=5.0, lease_s=LEASE_S, limit=9)
    assert [(c.key, c.due_at) for c in got] == [("new0", 2.0), ("new1", 3.0), ("new2", 4.0)]
    assert not store.release("polls", "held", owner="B", due_at=None)  # still A's
    # Without if_absent every unit is written, its lease dropped.
    assert store.schedule_many("polls", {"held": 6.0, "waiting": 7.0}) == ["held", "waiting"]
    got = store.claim_due("polls", owner="C", now=8.0, due_by=8.0, lease_s=LEASE_S, limit=9)
    assert [c.key for c in got] == ["held", "waiting"]
    assert store.schedule_many("polls", {}) == []


def test_schedule_many_takes_more_units_than_one_statement_holds(store: Store) -> None:
    due = {f"r{n:05d}": float(n) for n in range(2500)}
    assert len(store.schedule_many("polls", due, if_absent=True)) == 2500
    got = store.claim_due("polls", owner="A", now=1e6, due_by=1e6, lease_s=LEASE_S, limit=3000)
    assert [c.key for c in got] == sorted(due)


def test_release_many_sets_due_times_only_of_units_the_owner_still_holds(store: Store) -> None:
    for key in ("mine", "also mine", "theirs", "rescheduled"):
        store.schedule("polls", key, due_at=0.0)
    store.claim_keys("polls", ["mine", "also mine", "rescheduled"], owner="A", now=1.0, lease_s=5)
    store.claim_keys("polls", ["theirs"], owner="B", now=1.0, lease_s=LEASE_S)
    store.schedule("polls", "rescheduled", due_at=40.0)  # asked for anew: A's lease is gone
    due = {"mine": 20.0, "also mine": 21.0, "theirs": 22.0, "rescheduled": 23.0, "gone": 1.0}
    assert store.release_many("polls", due, owner="A") == ["mine", "also mine"]
    # Free again at their new times; B's unit and the unit asked for anew are as they were.
    assert store.claim_due("polls", owner="C", now=19.0, due_by=19.0, lease_s=1, limit=9) == []
    got = store.claim_due("polls", owner="C", now=21.0, due_by=21.0, lease_s=LEASE_S, limit=9)
    assert [(c.key, c.due_at, c.taken_over) for c in got] == [
        ("mine", 20.0, False),
        ("also mine", 21.0, False),
    ]
    assert store.release("polls", "theirs", owner="B", due_at=None)
    later = store.claim_due("polls", owner="C", now=40.0, due_by=40.0, lease_s=1, limit=9)
    assert [(c.key, c.due_at) for c in later] == [("rescheduled", 40.0)]
    assert store.release_many("polls", {}, owner="A") == []


def test_release_many_files_units_under_the_group_it_names_and_keeps_the_others(
    store: Store,
) -> None:
    # A sweep reschedules the runs of one listing page under that page's group, so that
    # another replica can serve that page while this one serves another.
    store.schedule_grouped(
        "polls", {"a": 0.0, "b": 0.0, "c": 0.0}, groups=dict.fromkeys("abc", "T")
    )
    store.claim_keys("polls", ["a", "b", "c"], owner="A", now=1.0, lease_s=LEASE_S)
    released = store.release_many(
        "polls", {"a": 5.0, "b": 5.0, "c": 5.0}, owner="A", groups={"a": "T p2", "b": "T p2"}
    )
    assert released == ["a", "b", "c"]
    store.claim_keys("polls", ["c"], owner="B", now=6.0, lease_s=LEASE_S)
    # B holds the group "T" (through c): A still gets the page group, which B does not hold.
    got = store.claim_due_grouped(
        "polls", owner="A", now=6.0, due_by=6.0, lease_s=LEASE_S, limit=9, share=2
    )
    assert sorted((c.key, c.group) for c in got) == [("a", "T p2"), ("b", "T p2")]


def test_a_groups_free_units_are_claimed_ahead_of_time_unless_another_owner_holds_it(
    store: Store,
) -> None:
    # A listing page read for some of its runs shows the others too: the reader takes their
    # free polls ahead of their time, so the page's runs fall due together again.
    _grouped(
        store,
        {
            "p1": ("T p", 1.0),
            "p2": ("T p", 6.0),
            "p3": ("T p", 9.5),
            "p-next": ("T p", 30.0),
            "other": ("T q", 2.0),
        },
    )
    got = store.claim_group_free(
        "polls", "T p", owner="A", now=1.0, due_by=10.0, lease_s=LEASE_S, limit=9
    )
    assert [(c.key, c.due_at, c.group) for c in got] == [
        ("p1", 1.0, "T p"),
        ("p2", 6.0, "T p"),
        ("p3", 9.5, "T p"),
    ]
    # Held: nobody claims them again, by group or ahead of time.
    assert _claim_grouped(store, "B", 10.0, share=1) == [("T q", "other")]
    assert store.release_many("polls", {"p1": 12.0, "p2": 11.0}, owner="A") == ["p1", "p2"]
    # A still holds p3 in the group: B may not take the group's free units ahead of time.
    assert (
        store.claim_group_free(
            "polls", "T p", owner="B", now=2.0, due_by=40.0, lease_s=LEASE_S, limit=9
        )
        == []
    )
    # Its holder may, and at most ``limit`` of them, earliest due first.
    got = store.claim_group_free(
        "polls", "T p", owner="A", now=2.0, due_by=40.0, lease_s=LEASE_S, limit=2
    )
    assert [(c.key, c.due_at) for c in got] == [("p2", 11.0), ("p1", 12.0)]
    # A lease run out is not free: it is taken over by a claim of due work, not ahead of time
    # (A's leases ran out at 32; of the group only p-next was never held).
    got = store.claim_group_free(
        "polls", "T p", owner="B", now=60.0, due_by=60.0, lease_s=LEASE_S, limit=9
    )
    assert [c.key for c in got] == ["p-next"]
    assert (
        store.claim_group_free(
            "polls", "T q", owner="A", now=60.0, due_by=60.0, lease_s=LEASE_S, limit=9
        )
        == []
    )  # B holds it (its lease ran out, but it is not free)
    assert (
        store.claim_group_free(
            "polls", "T none", owner="A", now=60.0, due_by=60.0, lease_s=LEASE_S, limit=9
        )
        == []
    )


def test_put_if_absent_held_holds_a_unit_only_for_the_record_it_stored(store: Store) -> None:
    kept = {"at": 1.0, "pending_enc": "sealed"}
    lease = {"queue": "interactions", "lease_s": 10.0}
    assert store.put_if_absent_held("deliveries", "k", kept, owner="a", now=100.0, **lease)
    assert not store.put_if_absent_held(
        "deliveries", "k", {"at": 2.0}, owner="b", now=101.0, **lease
    )
    assert store.get("deliveries", "k") == kept
    # Held by "a" until 110, whoever asks; "b"'s attempt changed nothing.
    assert (
        store.claim_due("interactions", owner="b", now=109.0, due_by=109.0, lease_s=10, limit=9)
        == []
    )
    assert store.renew("interactions", ["k"], owner="b", now=105.0, lease_s=10.0) == []
    assert store.renew("interactions", ["k"], owner="a", now=105.0, lease_s=10.0) == ["k"]
    assert (
        store.claim_due("interactions", owner="b", now=114.0, due_by=114.0, lease_s=10, limit=9)
        == []
    )
    [claim] = store.claim_due(
        "interactions", owner="b", now=115.0, due_by=115.0, lease_s=10.0, limit=9
    )
    assert (claim.key, claim.taken_over) == ("k", True)
    assert store.release("interactions", "k", owner="b", due_at=None)
    assert (
        store.claim_due("interactions", owner="a", now=999.0, due_by=999.0, lease_s=10, limit=9)
        == []
    )


def test_put_if_absent_held_by_many_at_once_holds_for_the_one_that_stored(store: Store) -> None:
    won = run_concurrently(
        lambda n: store.put_if_absent_held(
            "deliveries",
            "event:Ev1",
            {"at": float(n), "pending_enc": f"sealed {n}"},
            queue="interactions",
            owner=f"o{n}",
            now=100.0,
            lease_s=10.0,
        )
    )
    assert sum(won) == 1
    winner = won.index(True)
    assert store.get("deliveries", "event:Ev1") == {
        "at": float(winner),
        "pending_enc": f"sealed {winner}",
    }
    owners = [f"o{n}" for n in range(THREADS)]
    held_by = [
        o
        for o in owners
        if store.renew("interactions", ["event:Ev1"], owner=o, now=101.0, lease_s=10.0)
    ]
    assert held_by == [f"o{winner}"]


def test_a_unit_written_and_held_to_end_at_one_time_is_claimed_once(store: Store) -> None:
    """As a held send is written: due when its hold ends, then held until that same time."""
    store.schedule("run_sends", "r1", due_at=110.0)
    assert store.claim_keys("run_sends", ["r1"], owner="a", now=100.0, lease_s=10.0) == ["r1"]
    claims = store.claim_due("run_sends", owner="b", now=111.0, due_by=111.0, lease_s=10, limit=9)
    assert [(c.key, c.taken_over) for c in claims] == [("r1", True)]


def test_a_grouped_unit_written_and_held_to_end_at_one_time_is_claimed_once(store: Store) -> None:
    """The same for a claim by groups: the unit comes back once, not once per write."""
    store.schedule_grouped("run_polls", {"r1": 110.0}, groups={"r1": "T1"})
    assert store.claim_keys("run_polls", ["r1"], owner="a", now=100.0, lease_s=10.0) == ["r1"]
    claims = store.claim_due_grouped(
        "run_polls", owner="b", now=111.0, due_by=111.0, lease_s=10, limit=9
    )
    assert [(c.key, c.taken_over) for c in claims] == [("r1", True)]
