"""The one interface to the app's durable state.

Everything the app must remember across restarts (linked users, watched runs, thread bindings,
processed Slack deliveries, ...) goes through :class:`Store`: named tables of JSON records
keyed by strings. The interface is kept this narrow on purpose so that a PostgreSQL or Redis
backend can replace the SQLite one for a multi-replica deployment; the two atomic operations
(:meth:`Store.put_if_absent`, :meth:`Store.update`) map to ``INSERT ... ON CONFLICT DO NOTHING``
/ ``SELECT ... FOR UPDATE`` there, and to ``SET NX`` / ``WATCH``-``MULTI`` in Redis.
"""

from __future__ import annotations

import re
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import NamedTuple, Self

from suggestbot.store import codec
from suggestbot.store.codec import Record

_TABLE_NAME = re.compile(r"[a-z_]+")

Updater = Callable[[Record | None], Record | None]
"""Read-modify-write step for :meth:`Store.update`: old record (None if absent) -> new or None."""


class UpdatePlan(NamedTuple):
    """What :meth:`Store.update_many` returns, and what it must write and delete."""

    results: dict[str, Record | None]
    puts: dict[str, Record]
    deletes: list[str]


def plan_updates(olds: Mapping[str, Record], updates: Mapping[str, Updater]) -> UpdatePlan:
    """Run each updater on its old record (absent: None) and sort the outcome into writes and
    deletes; a record an updater left as it was is not written again. Every backend's
    ``update_many`` runs this while it holds its lock, so they all agree on what changes."""
    plan = UpdatePlan(results={}, puts={}, deletes=[])
    for key, fn in updates.items():
        old = olds.get(key)
        # Encoded before ``fn`` runs: it may change ``old`` in place and return it.
        old_text = None if old is None else codec.encode(old)
        new = fn(old)
        plan.results[key] = new
        if new is None:
            if old is not None:
                plan.deletes.append(key)
        # Encoding rejects a bad value before anything is written. Compare encodings, not
        # dicts: True == 1 in Python but not in the stored JSON.
        elif codec.encode(new) != old_text:
            plan.puts[key] = new
    return plan


Scalar = str | bool
"""What :meth:`Store.items_matching` compares a record's field with."""


def _typed_value(value: object) -> tuple[type, object]:
    # Equality that tells True from 1, as the stored JSON does.
    return (type(value), value)


def _matches(value: object, allowed: set[tuple[type, object]]) -> bool:
    return isinstance(value, str | bool) and _typed_value(value) in allowed


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _newest_order(pair: tuple[str, Record], field: str) -> tuple[bool, float, str]:
    value = _number(pair[1].get(field))
    return (True, 0.0, pair[0]) if value is None else (False, -value, pair[0])


def _within(value: object, bound: float) -> bool:
    number = _number(value)
    return number is not None and number <= bound


def select_matching(
    pairs: list[tuple[str, Record]],
    *,
    where: Mapping[str, Collection[Scalar]],
    at_most: Mapping[str, float] | None = None,
    newest_by: str | None,
    limit: int | None,
) -> list[tuple[str, Record]]:
    """:meth:`Store.items_matching` over ``pairs`` already read (sorted by key): the one
    definition of what matches, so every backend agrees, whatever it reads first."""
    if limit is not None and limit < 0:
        raise ValueError("limit must not be negative")
    wanted = {field: {_typed_value(v) for v in values} for field, values in where.items()}
    found = [
        (key, record)
        for key, record in pairs
        if all(_matches(record.get(field), allowed) for field, allowed in wanted.items())
        and all(_within(record.get(field), bound) for field, bound in (at_most or {}).items())
    ]
    if newest_by is not None:
        found.sort(key=lambda pair: _newest_order(pair, newest_by))
    return found if limit is None else found[:limit]


def matching_any(
    pairs: list[tuple[str, Record]], wheres: Sequence[Mapping[str, Collection[Scalar]]]
) -> list[tuple[str, Record]]:
    """Of ``pairs`` (sorted by key), those matching at least one of ``wheres``, in one pass."""
    wanted = [
        {field: {_typed_value(v) for v in values} for field, values in where.items()}
        for where in wheres
    ]
    return [
        (key, record)
        for key, record in pairs
        if any(
            all(_matches(record.get(field), allowed) for field, allowed in one.items())
            for one in wanted
        )
    ]


def check_table_name(table: str) -> None:
    """Reject table names other than ``[a-z_]+``; they end up inside SQL identifiers."""
    if not isinstance(table, str) or not _TABLE_NAME.fullmatch(table):
        raise ValueError(f"invalid table name {table!r}: use lowercase letters and '_' only")


def check_key(key: str) -> None:
    """Reject non-string keys early, with a message that names the type only."""
    if not isinstance(key, str):
        raise TypeError(f"store keys must be str, not {type(key).__name__}")


@dataclass(frozen=True)
class Claim:
    """A unit of deferred work taken out by :meth:`Store.claim_due`, and when it was due.

    ``taken_over``: another owner held it and let its lease run out (it died or stalled), so
    the work it had begun may have been done in part. ``group``: the group it was scheduled in
    (:meth:`Store.schedule_grouped`; ``""`` when none).
    """

    key: str
    due_at: float
    taken_over: bool = False
    group: str = ""


def pick_groups(
    due: Sequence[str],
    *,
    held: Mapping[str, tuple[bool, bool]],
    share: int,
) -> list[str]:
    """Which groups a grouped claim takes. ``due``: the groups with claimable due units, most
    overdue first; ``held``: the groups anyone holds a live lease in, each with whether the
    claimer does and whether another owner does. Every backend's
    :meth:`Store.claim_due_grouped` decides with this.

    Its own groups always (its walker serves them); none that another owner holds; of the free
    ones the most overdue, as many as bring it to its fair part of the groups with work
    (``ceil(n / share)``, counting those it holds), and never fewer than ``ceil(free / share)``
    — so a free group is never left waiting because every claimer already has its part.
    """
    parts = max(share, 1)
    ours = {group for group, (mine, other) in held.items() if mine and not other}
    free = [group for group in due if group not in held]
    fair = -(-len(set(due) | set(held)) // parts) - len(ours)
    taking = max(-(-len(free) // parts), fair)
    return [group for group in due if group in ours] + free[:taking]


class Store(ABC):
    """Named tables of JSON records.

    Every write is durable when the call returns (it survives the process being killed right
    after), every method is safe to call from several threads at once, and records read back
    are fresh copies that callers may mutate freely.
    """

    @abstractmethod
    def get(self, table: str, key: str) -> Record | None:
        """Return the record stored under ``key``, or None."""

    def get_many(self, table: str, keys: Collection[str]) -> dict[str, Record]:
        """:meth:`get` of many keys: ``{key: record}`` of those stored. A database reads them
        in one round trip (the run watcher reads the requests of a batch of polls); the
        single-process backends read each."""
        found: dict[str, Record] = {}
        for key in dict.fromkeys(keys):
            record = self.get(table, key)
            if record is not None:
                found[key] = record
        return found

    @abstractmethod
    def put(self, table: str, key: str, value: Record) -> None:
        """Store ``value`` under ``key``, replacing any previous record.

        Raises:
            TypeError: ``value`` is not a JSON object (see :mod:`suggestbot.store.codec`).
        """

    @abstractmethod
    def delete(self, table: str, key: str) -> bool:
        """Remove ``key``; return whether it was there."""

    @abstractmethod
    def items(self, table: str) -> list[tuple[str, Record]]:
        """Return a snapshot of the table as ``(key, record)`` pairs sorted by key."""

    def items_where(
        self, table: str, field: str, values: Collection[str]
    ) -> list[tuple[str, Record]]:
        """The ``(key, record)`` pairs whose ``field`` is one of ``values``, sorted by key.

        A backend with an index on the field reads only those (PostgreSQL's typed columns, such
        as a request's ``state``); the single-process backends read the table.
        """
        wanted = set(values)
        return [(key, rec) for key, rec in self.items(table) if rec.get(field) in wanted]

    def items_matching(
        self,
        table: str,
        *,
        where: Mapping[str, Collection[Scalar]],
        at_most: Mapping[str, float] | None = None,
        newest_by: str | None = None,
        limit: int | None = None,
    ) -> list[tuple[str, Record]]:
        """The ``(key, record)`` pairs whose every field in ``where`` equals one of its values
        and every (numeric) field in ``at_most`` is at most its bound (what is due by now).

        Sorted by key; with ``newest_by``, by that numeric field, largest first (records without
        it last, ties by key); at most ``limit`` of them. A field a record lacks matches nothing,
        and ``True`` never equals ``1``. A backend with indexed columns for the fields reads only
        the matching records (PostgreSQL); the single-process backends read the table.
        """
        return select_matching(
            self.items(table), where=where, at_most=at_most, newest_by=newest_by, limit=limit
        )

    def items_matching_any(
        self, table: str, wheres: Sequence[Mapping[str, Collection[Scalar]]]
    ) -> list[tuple[str, Record]]:
        """The ``(key, record)`` pairs that match at least one of ``wheres`` (each as in
        :meth:`items_matching`), sorted by key: several indexed lookups in one read (the digest
        wave's local times, one group of time zones each). The single-process backends read
        the table once."""
        pairs = self.items(table) if wheres else []
        return matching_any(pairs, wheres)

    @abstractmethod
    def put_if_absent(self, table: str, key: str, value: Record) -> bool:
        """Store ``value`` only if ``key`` is free; return whether it was stored.

        Atomic: of many concurrent callers with the same key exactly one gets True. This is the
        basis for exactly-once work ("record the intent before acting", delivery de-duplication).
        """

    @abstractmethod
    def update(self, table: str, key: str, fn: Updater) -> Record | None:
        """Atomically replace the record under ``key`` with ``fn(old)``; return the new record.

        ``fn`` gets the current record (None if absent) and returns the new one, or None to
        delete it. It runs while the store is locked, so keep it quick and free of I/O; if it
        raises, nothing changes.
        """

    @abstractmethod
    def put_many(self, table: str, items: Mapping[str, Record]) -> None:
        """Store every ``key -> value`` of ``items``, replacing earlier records, in one commit.

        All or nothing: a bad value (TypeError, as for :meth:`put`) stores none of them.
        """

    @abstractmethod
    def put_many_if_absent(self, table: str, items: Mapping[str, Record]) -> list[str]:
        """:meth:`put_if_absent` for many keys in one commit; return the keys stored, in order.

        Atomic as a whole: of concurrent callers claiming the same key exactly one stores it.
        """

    @abstractmethod
    def update_many(self, table: str, updates: Mapping[str, Updater]) -> dict[str, Record | None]:
        """:meth:`update` for many keys in one commit; return each key's new record (or None).

        The functions run while the store is locked; if one raises, nothing changes.
        """

    def check_ready(self) -> None:
        """Raise (:class:`~suggestbot.store.errors.StoreError`) unless the store can serve now.

        What a readiness probe asks: a cheap read here; a database also checks that its schema
        is this version's.
        """
        self.get("health", "ready")

    # --- leases on units of deferred work -------------------------------------------------
    #
    # A unit is a ``key`` in a named ``queue`` with a due time (epoch seconds). A process claims
    # the units that are due for a lease period, as their ``owner``: no other owner can claim
    # them until it releases them or the lease runs out (its process died), so several
    # processes split the work and none does a unit twice at once. Times are passed in on the
    # caller's clock. The single-process backends reckon with them as given, so tests need not
    # sleep; PostgreSQL, shared by replicas whose clocks may disagree, reckons every lease on
    # its own clock — a lease runs ``lease_s`` from when it is written there — and reads a
    # passed due time only as how far it is from the caller's clock, handing due times back on
    # the caller's clock (see ``pg_lease_sql``).

    @abstractmethod
    def schedule(self, queue: str, key: str, *, due_at: float, if_absent: bool = False) -> bool:
        """Make ``key`` due at ``due_at``, dropping any lease on it; return whether it was written.

        With ``if_absent`` a unit that already exists (leased or not) is left alone: what a
        starting process knows must not reset work that others are doing.
        """

    @abstractmethod
    def schedule_many(
        self, queue: str, due: Mapping[str, float], *, if_absent: bool = False
    ) -> list[str]:
        """:meth:`schedule` for many keys at once (``{key: due_at}``), in few writes; the keys
        written. A start rebuilding thousands of units must not pay a commit for each.
        """

    @abstractmethod
    def unschedule(self, queue: str, key: str) -> bool:
        """Forget ``key`` (the work is no longer wanted), whoever holds it; whether it was there."""

    @abstractmethod
    def claim_due(
        self,
        queue: str,
        *,
        owner: str,
        now: float,
        due_by: float,
        lease_s: float,
        limit: int,
        share: int = 1,
    ) -> list[Claim]:
        """Lease to ``owner`` until ``now + lease_s`` at most ``limit`` units due by ``due_by``
        that are free or whose lease ran out by ``now``; earliest due first. A unit whose
        lease ran out under another owner comes back with ``taken_over``.

        ``share``: how many claimers split the work; of the (at most ``limit``) claimable
        units only the earliest ``ceil(n / share)`` are leased, the rest left to the others.

        Atomic: of concurrent claimers each unit goes to one.
        """

    @abstractmethod
    def claim_keys(
        self, queue: str, keys: Collection[str], *, owner: str, now: float, lease_s: float
    ) -> list[str]:
        """Lease those of ``keys`` that exist and are free (or expired), due or not; the keys
        leased. For work found ready before its time (a run seen finished early)."""

    @abstractmethod
    def renew(
        self, queue: str, keys: Collection[str], *, owner: str, now: float, lease_s: float
    ) -> list[str]:
        """Extend ``owner``'s leases on ``keys`` to ``now + lease_s``; the keys still held."""

    @abstractmethod
    def release(self, queue: str, key: str, *, owner: str, due_at: float | None) -> bool:
        """End ``owner``'s lease on ``key``: due again at ``due_at``, or forgotten with None
        (done). False, and nothing changes, when ``owner`` no longer holds it."""

    @abstractmethod
    def release_many(
        self,
        queue: str,
        due: Mapping[str, float],
        *,
        owner: str,
        groups: Mapping[str, str] | None = None,
    ) -> list[str]:
        """:meth:`release` of many keys at once, each due again at its time (``{key: due_at}``),
        in few writes; the keys ``owner`` still held (the others are left as they are). A sweep
        rescheduling a page of runs must not pay a commit for each. With ``groups``, each key
        named there is filed under its new group as it is released (the others keep theirs).
        """

    def shared_now(self) -> float:
        """What time it is for everything shared through this store (a brief's age, a digest
        wave's minute and local dates): the database's clock on PostgreSQL, which every
        replica reads alike whatever its own clock says; this process's clock on the
        single-process backends."""
        return time.time()

    # Whether leases are seen by other processes and outlive this one (a shared database).
    # When they are not (SQLite, memory), every lease is gone with the process that held it.
    shares_leases = False

    def put_if_absent_held(
        self,
        table: str,
        key: str,
        value: Record,
        *,
        queue: str,
        owner: str,
        now: float,
        lease_s: float,
    ) -> bool:
        """:meth:`put_if_absent`, and, only when it stored ``value``, the unit ``key`` of
        ``queue`` written as held by ``owner`` until ``now + lease_s`` (due then); whether it
        stored. Work recorded before an ack needs both, and the ack waits for them: a database
        does them in one round trip. Here, for the single-process stores, one after the other
        (their leases die with the process anyway)."""
        if not self.put_if_absent(table, key, value):
            return False
        self.schedule(queue, key, due_at=now + lease_s)
        self.claim_keys(queue, [key], owner=owner, now=now, lease_s=lease_s)
        return True

    @abstractmethod
    def schedule_grouped(
        self,
        queue: str,
        due: Mapping[str, float],
        *,
        groups: Mapping[str, str],
        if_absent: bool = False,
    ) -> list[str]:
        """:meth:`schedule_many` that also files each key under its group (``groups``; a key
        missing there goes in the group ``""``); the keys written. A unit keeps its group through
        :meth:`schedule`, :meth:`release` and the other writes that do not name one.
        """

    @abstractmethod
    def claim_due_grouped(
        self,
        queue: str,
        *,
        owner: str,
        now: float,
        due_by: float,
        lease_s: float,
        limit: int,
        share: int = 1,
    ) -> list[Claim]:
        """:meth:`claim_due` by whole groups: the claimable units due by ``due_by`` of the groups
        in which no *other* owner holds a live lease, at most ``limit``, earliest due first.

        A group stays with the owner that holds a lease in it: every group where ``owner`` holds
        one is claimed from, and of the groups nobody holds the most overdue, as
        :func:`pick_groups` says (``share``: how many claimers split the groups). So one owner
        at a time serves a group (the runs of one tenant, whose listing serves them together)
        until it holds nothing there, and a dead owner's groups come free when its leases run
        out. Atomic: of concurrent claimers one gets a free group.
        """

    @abstractmethod
    def claim_group_free(
        self,
        queue: str,
        group: str,
        *,
        owner: str,
        now: float,
        due_by: float,
        lease_s: float,
        limit: int,
    ) -> list[Claim]:
        """Lease to ``owner`` the *free* units of ``group`` (nobody's, not merely run out) due
        by ``due_by``, however far ahead that is, unless another owner holds a live lease in
        the group; at most ``limit``, earliest due first. For work done anyway before its
        time: a run listing page read for some of its runs shows every run on it, and the
        others' polls are served by that read too. Atomic as :meth:`claim_due_grouped`."""

    @abstractmethod
    def holders(self, queue: str, *, now: float) -> int:
        """How many distinct owners hold a lease in ``queue`` that has not run out by ``now``.
        Meant for small queues (one unit per process, as a heartbeat)."""

    @abstractmethod
    def close(self) -> None:
        """Release the backend; later calls raise RuntimeError."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
