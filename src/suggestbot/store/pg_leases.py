"""The PostgreSQL store's work leases (``work_leases``): scheduling, claiming, renewing and
releasing units of work every replica shares, reckoned on the database's clock, and that
clock as this process reads it (``shared_now``).

Kept apart from the records (:mod:`pg_records`): another table, another rule of time; the
statements are in :mod:`pg_lease_sql`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from sqlalchemy import delete

from suggestbot.store.base import Claim, check_key, pick_groups
from suggestbot.store.codec import Record
from suggestbot.store.errors import StoreError
from suggestbot.store.pg_connections import PgConnections
from suggestbot.store.pg_lease_sql import (
    BULK_KEYS,
    CLAIM_DUE,
    CLAIM_GROUP_FREE,
    CLAIM_GROUPS,
    CLAIM_KEYS,
    DB_CLOCK,
    GROUPS_DUE,
    GROUPS_HELD,
    HOLDERS,
    RELEASE,
    RELEASE_DONE,
    RELEASE_MANY,
    RELEASE_MANY_GROUPED,
    RENEW,
    SCHEDULE_GROUPED,
    SCHEDULE_GROUPED_IF_ABSENT,
    SCHEDULE_MANY,
    SCHEDULE_MANY_IF_ABSENT,
    TRY_LOCK_GROUPS,
)
from suggestbot.store.pg_schema import WORK_LEASES
from suggestbot.store.pg_sql import lock_id, lock_ids

# How often ``shared_now`` measures the database's clock against this process's.
CLOCK_CHECK_EVERY_S = 10.0
CLOCK_SAMPLES = 3


class PgLeases(PgConnections):
    """The lease calls of :class:`~suggestbot.store.base.Store` on PostgreSQL, and its clock;
    its state is set up by :class:`~suggestbot.store.postgres.PostgresStore`."""

    _clock: Callable[[], float]
    _caller_times: bool
    _offset_lock: threading.Lock
    _offset: float  # the database's clock minus this process's, last measured
    _offset_checked_at: float | None

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
        """Here rather than with the records: the lease it takes runs on the leases' clock."""
        target = self._check(table, (key,))
        self._check_queue(queue, (key,))
        encoded = self._encoded({key: value})
        # Held for ``lease_s`` from the database's clock at the write (see ``pg_lease_sql``).
        at = now if self._caller_times else None
        params = (lock_ids(table, [key]), *target.rows_params(encoded), queue, at, lease_s, owner)
        return bool(self._single(target.locked_insert_absent_held, params))

    def schedule(self, queue: str, key: str, *, due_at: float, if_absent: bool = False) -> bool:
        return bool(self.schedule_many(queue, {key: due_at}, if_absent=if_absent))

    def schedule_many(
        self, queue: str, due: Mapping[str, float], *, if_absent: bool = False
    ) -> list[str]:
        statement = SCHEDULE_MANY_IF_ABSENT if if_absent else SCHEDULE_MANY
        return self._write_many(queue, due, statement, {})

    def release_many(
        self,
        queue: str,
        due: Mapping[str, float],
        *,
        owner: str,
        groups: Mapping[str, str] | None = None,
    ) -> list[str]:
        if not groups:
            return self._write_many(queue, due, RELEASE_MANY, {"owner": owner})
        for group in groups.values():
            check_key(group)
        regrouped = {key: at for key, at in due.items() if key in groups}
        kept = {key: at for key, at in due.items() if key not in groups}
        written = set(self._write_many(queue, kept, RELEASE_MANY, {"owner": owner}))
        written.update(
            self._write_many(
                queue, regrouped, RELEASE_MANY_GROUPED, {"owner": owner}, groups=groups
            )
        )
        return [key for key in due if key in written]

    def _write_many(
        self,
        queue: str,
        due: Mapping[str, float],
        statement: Any,
        extra: dict[str, Any],
        *,
        groups: Mapping[str, str] | None = None,
    ) -> list[str]:
        """One statement (and commit) per ``BULK_KEYS`` keys, taken in key order (see
        ``pg_lease_sql.LOCKED_IN_ORDER``); the keys it wrote, in the order given. With
        ``groups``, each batch also carries its keys' groups (``:groups``)."""
        self._check_queue(queue, due)
        keys = list(due)
        written: set[str] = set()
        in_order = sorted(keys)
        for start in range(0, len(in_order), BULK_KEYS):
            batch = in_order[start : start + BULK_KEYS]
            params: dict[str, Any] = {"queue": queue, "keys": batch, **extra, **self._at(0.0)}
            if groups is not None:
                params["groups"] = [groups[k] for k in batch]
            with self._transaction() as connection:
                params["dues"] = self._due_in([due[k] for k in batch])
                written.update(connection.execute(statement, params).scalars())
        return [key for key in keys if key in written]

    def unschedule(self, queue: str, key: str) -> bool:
        self._check_queue(queue, (key,))
        t = WORK_LEASES
        statement = delete(t).where(t.c.queue == queue, t.c.key == key).returning(t.c.key)
        with self._transaction() as connection:
            return bool(connection.execute(statement).first())

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
        self._check_queue(queue)
        if limit <= 0:
            return []
        params = self._claim_params(queue, owner, now, due_by, lease_s, limit)
        params["share"] = max(share, 1)
        with self._transaction() as connection:
            rows = connection.execute(CLAIM_DUE, params).all()
        return self._claims(now, rows)

    def claim_keys(
        self, queue: str, keys: Collection[str], *, owner: str, now: float, lease_s: float
    ) -> list[str]:
        self._check_queue(queue, keys)
        if not keys:
            return []
        params = {
            "queue": queue,
            "keys": list(keys),
            "owner": owner,
            "lease": lease_s,
            **self._at(now),
        }
        with self._transaction() as connection:
            claimed = set(connection.execute(CLAIM_KEYS, params).scalars())
        return [key for key in dict.fromkeys(keys) if key in claimed]

    def renew(
        self, queue: str, keys: Collection[str], *, owner: str, now: float, lease_s: float
    ) -> list[str]:
        self._check_queue(queue, keys)
        if not keys:
            return []
        # A statement (and commit) per ``BULK_KEYS`` keys, in key order: a replica renewing
        # 20,000 leases at once would hold every one of their rows until the last was
        # written, and each page its sweepers release would wait for all of them.
        in_order = sorted(set(keys))
        held: set[str] = set()
        for start in range(0, len(in_order), BULK_KEYS):
            params = {
                "queue": queue,
                "keys": in_order[start : start + BULK_KEYS],
                "owner": owner,
                "lease": lease_s,
                **self._at(now),
            }
            with self._transaction() as connection:
                held.update(connection.execute(RENEW, params).scalars())
        return [key for key in dict.fromkeys(keys) if key in held]

    def release(self, queue: str, key: str, *, owner: str, due_at: float | None) -> bool:
        self._check_queue(queue, (key,))
        params: dict[str, Any] = {"queue": queue, "key": key, "owner": owner, **self._at(0.0)}
        with self._transaction() as connection:
            if due_at is None:
                result = connection.execute(RELEASE_DONE, params)
            else:
                params["due_in"] = self._due_in([due_at])[0]
                result = connection.execute(RELEASE, params)
            return bool(result.rowcount)

    def schedule_grouped(
        self,
        queue: str,
        due: Mapping[str, float],
        *,
        groups: Mapping[str, str],
        if_absent: bool = False,
    ) -> list[str]:
        self._check_queue(queue, due)
        for group in groups.values():
            check_key(group)
        statement = SCHEDULE_GROUPED_IF_ABSENT if if_absent else SCHEDULE_GROUPED
        filed = {key: groups.get(key, "") for key in due}
        return self._write_many(queue, due, statement, {}, groups=filed)

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
        self._check_queue(queue)
        if limit <= 0:
            return []
        params = self._claim_params(queue, owner, now, due_by, lease_s, limit)
        with self._transaction() as connection:
            # Every step reckons with the same database time: the transaction's ``now()``.
            due = list(connection.execute(GROUPS_DUE, params).scalars())
            if not due:
                return []
            held = {
                grp: (mine, other) for grp, mine, other in connection.execute(GROUPS_HELD, params)
            }
            taking = pick_groups(due, held=held, share=share)
            if not taking:
                return []
            ids = [lock_id(f"work_leases.{queue}", group) for group in taking]
            locked = connection.execute(TRY_LOCK_GROUPS, {"groups": taking, "ids": ids})
            params["groups"] = list(locked.scalars())
            if not params["groups"]:
                return []
            rows = connection.execute(CLAIM_GROUPS, params).all()
        return self._claims(now, rows)

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
        self._check_queue(queue)
        check_key(group)
        if limit <= 0:
            return []
        params = self._claim_params(queue, owner, now, due_by, lease_s, limit)
        params["group"] = group
        with self._transaction() as connection:
            rows = connection.execute(CLAIM_GROUP_FREE, params).all()
        return self._claims(now, rows)

    def _claim_params(
        self, queue: str, owner: str, now: float, due_by: float, lease_s: float, limit: int
    ) -> dict[str, Any]:
        """What every claim statement reads: how far ahead it looks, not when (``pg_lease_sql``)."""
        return {
            "queue": queue,
            "owner": owner,
            "ahead": due_by - now,
            "lease": lease_s,
            "limit": limit,
            **self._at(now),
        }

    def _claims(self, now: float, rows: Sequence[Any]) -> list[Claim]:
        """Claims from the rows a claim returned (key, seconds until due, taken over[, group]),
        their due times on this process's clock read after the statement, soonest first."""
        local = now if self._caller_times else self._clock()
        claims = (Claim(row[0], local + row[1], bool(row[2]), *row[3:]) for row in rows)
        return sorted(claims, key=lambda c: c.due_at)

    def holders(self, queue: str, *, now: float) -> int:
        self._check_queue(queue)
        with self._transaction() as connection:
            params = {"queue": queue, **self._at(now)}
            return int(connection.execute(HOLDERS, params).scalar_one())

    def _at(self, now: float) -> dict[str, float | None]:
        """The ``:at`` of a lease statement: none in service (the database's clock), the
        caller's time when this store takes the caller's times (see ``pg_lease_sql``)."""
        return {"at": now if self._caller_times else None}

    def _due_in(self, due: Sequence[float]) -> list[float]:
        """How long until each due time (on this process's clock) from now on it: the only
        way a time the caller passes reaches the database (see ``pg_lease_sql``). Read once
        a connection is held, so a wait for one does not make units due early. (Taking the
        caller's times: the due times themselves, from ``:at`` 0.)"""
        local = 0.0 if self._caller_times else self._clock()
        return [at - local for at in due]

    def shared_now(self) -> float:
        """The database's clock, read as this process's clock plus the difference between the
        two, measured every ``CLOCK_CHECK_EVERY_S`` (a few round trips then, none in between),
        so that it costs what the process clock costs. While the database cannot be reached
        the last difference measured serves (none yet: the process's own clock)."""
        local = self._clock()
        with self._offset_lock:
            offset, checked_at = self._offset, self._offset_checked_at
        if checked_at is None or time.monotonic() - checked_at >= CLOCK_CHECK_EVERY_S:
            offset = self._measure_offset(offset)
        return local + offset

    def _measure_offset(self, last: float) -> float:
        """The database's clock minus this process's, as NTP takes it: the database's clock
        read between two of ours, on ``CLOCK_SAMPLES`` round trips, trusting the quickest
        (a round trip slowed by load, on either side, is off by up to half its length)."""
        samples: list[tuple[float, float]] = []  # (round trip, offset)
        try:
            with self._transaction() as connection:
                for _ in range(CLOCK_SAMPLES):
                    before = self._clock()
                    database = float(connection.execute(DB_CLOCK).scalar_one())
                    after = self._clock()
                    samples.append((after - before, database - (before + after) / 2))
        except StoreError:
            return last
        _, offset = min(samples)
        with self._offset_lock:
            self._offset, self._offset_checked_at = offset, time.monotonic()
        return offset
