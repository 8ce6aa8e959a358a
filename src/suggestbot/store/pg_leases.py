"""The PostgreSQL store's work leases (``work_leases``): scheduling, claiming, renewing and
releasing units of work every replica shares, reckoned with the times callers pass, and the
statements that do it.

Kept apart from the records (:mod:`pg_records`): another table, other statements.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from sqlalchemy import delete, text
from sqlalchemy.dialects.postgresql import insert as pg_insert

from suggestbot.store.base import Claim, check_key, pick_groups
from suggestbot.store.codec import Record
from suggestbot.store.pg_connections import PgConnections
from suggestbot.store.pg_schema import WORK_LEASES
from suggestbot.store.pg_sql import lock_id, lock_ids

CLAIM_DUE = text(
    """
    WITH claimable AS (
        SELECT key, owner AS was, ready_at FROM work_leases
        WHERE queue = :queue AND ready_at <= :due_by
          AND (owner IS NULL OR lease_until <= :now)
        ORDER BY ready_at
        LIMIT :limit
        FOR UPDATE SKIP LOCKED
    ), picked AS (
        SELECT key, was FROM claimable ORDER BY ready_at
        LIMIT (SELECT ceil(count(*) / CAST(:share AS double precision)) FROM claimable)
    )
    UPDATE work_leases AS w SET owner = :owner, lease_until = :until, ready_at = :until
    FROM picked
    WHERE w.queue = :queue AND w.key = picked.key
    RETURNING w.key, w.due_at, picked.was IS NOT NULL AND picked.was <> :owner
    """
)
_CLAIM_KEYS = text(
    """
    WITH picked AS (
        SELECT key FROM work_leases
        WHERE queue = :queue AND key = ANY(CAST(:keys AS text[]))
          AND (owner IS NULL OR lease_until <= :now)
        FOR UPDATE SKIP LOCKED
    )
    UPDATE work_leases SET owner = :owner, lease_until = :until, ready_at = :until
    WHERE queue = :queue AND key = ANY(ARRAY(SELECT key FROM picked))
    RETURNING key
    """
)
# Many-row writes that may wait for rows another transaction holds (a renewal of every lease
# a replica holds, a sweep's page released while the renewal runs) lock their rows in key
# order first: taken in any other order, two of them can each hold a row the other waits
# for, and PostgreSQL ends one as a deadlock after a second's wait. (Claims never wait: they
# skip locked rows.) Inserts take their rows in the order given, so their keys come sorted.
_LOCKED_IN_ORDER = (
    "locked AS MATERIALIZED (SELECT key FROM work_leases "
    "WHERE queue = :queue AND key = ANY(CAST(:keys AS text[])) ORDER BY key FOR UPDATE)"
)
_RENEW = text(
    f"WITH {_LOCKED_IN_ORDER} "
    "UPDATE work_leases AS w SET lease_until = :until, ready_at = :until FROM locked "
    "WHERE w.queue = :queue AND w.key = locked.key AND w.owner = :owner RETURNING w.key"
)
_RELEASE = text(
    "UPDATE work_leases SET due_at = :due, ready_at = :due, owner = NULL, lease_until = NULL "
    "WHERE queue = :queue AND key = :key AND owner = :owner"
)
# Many units in one statement each (a start's recovery, a sweep's page): the keys and their
# due times travel as two arrays, unnested into rows.
_UNNEST_DUE = "unnest(CAST(:keys AS text[]), CAST(:dues AS double precision[])) AS u(key, due)"
_SCHEDULE_MANY_IF_ABSENT = text(
    "INSERT INTO work_leases (queue, key, due_at, ready_at) "
    f"SELECT :queue, u.key, u.due, u.due FROM {_UNNEST_DUE} ORDER BY u.key "
    "ON CONFLICT (queue, key) DO NOTHING RETURNING key"
)
_SCHEDULE_MANY = text(
    "INSERT INTO work_leases (queue, key, due_at, ready_at) "
    f"SELECT :queue, u.key, u.due, u.due FROM {_UNNEST_DUE} ORDER BY u.key "
    "ON CONFLICT (queue, key) DO UPDATE SET due_at = excluded.due_at, "
    "ready_at = excluded.ready_at, owner = NULL, lease_until = NULL RETURNING key"
)
_RELEASE_MANY = text(
    f"WITH {_LOCKED_IN_ORDER} "
    "UPDATE work_leases AS w SET due_at = u.due, ready_at = u.due, owner = NULL, "
    f"lease_until = NULL FROM locked, {_UNNEST_DUE} "
    "WHERE w.queue = :queue AND w.key = locked.key AND u.key = locked.key "
    "AND w.owner = :owner RETURNING w.key"
)
_UNNEST_GROUPED = (
    "unnest(CAST(:keys AS text[]), CAST(:dues AS double precision[]), CAST(:groups AS text[])) "
    "AS u(key, due, grp)"
)
_SCHEDULE_GROUPED_IF_ABSENT = text(
    "INSERT INTO work_leases (queue, key, due_at, ready_at, grp) "
    f"SELECT :queue, u.key, u.due, u.due, u.grp FROM {_UNNEST_GROUPED} ORDER BY u.key "
    "ON CONFLICT (queue, key) DO NOTHING RETURNING key"
)
_SCHEDULE_GROUPED = text(
    "INSERT INTO work_leases (queue, key, due_at, ready_at, grp) "
    f"SELECT :queue, u.key, u.due, u.due, u.grp FROM {_UNNEST_GROUPED} ORDER BY u.key "
    "ON CONFLICT (queue, key) DO UPDATE SET due_at = excluded.due_at, "
    "ready_at = excluded.ready_at, owner = NULL, lease_until = NULL, grp = excluded.grp "
    "RETURNING key"
)
# Grouped claims (``claim_due_grouped``) in steps of one transaction: the groups with claimable
# due units (most overdue first) and the groups held (with whether this owner and whether
# another holds a lease in each), from which ``pick_groups`` chooses; a try-lock on each group
# picked (a group another claimer is taking right now is skipped this time); then — with a
# snapshot taken once the locks are held, so a claim committed just before is seen — the claim
# itself, which checks again that no other owner holds a lease in the group. Who holds leases
# is read from the partial ``(queue, grp, lease_until) WHERE owner IS NOT NULL`` index: only
# leased units are visited.
_OTHER_HOLDS = (
    "EXISTS (SELECT 1 FROM work_leases h WHERE h.queue = :queue AND h.grp = {grp} "
    "AND h.owner <> :owner AND h.lease_until > :now)"
)
GROUPS_DUE = text(
    "SELECT grp FROM work_leases WHERE queue = :queue AND ready_at <= :due_by "
    "AND (owner IS NULL OR lease_until <= :now) GROUP BY grp ORDER BY min(ready_at)"
)
GROUPS_HELD = text(
    "SELECT grp, bool_or(owner = :owner), bool_or(owner <> :owner) FROM work_leases "
    "WHERE queue = :queue AND owner IS NOT NULL AND lease_until > :now GROUP BY grp"
)
_TRY_LOCK_GROUPS = text(
    "SELECT t.grp FROM unnest(CAST(:groups AS text[]), CAST(:ids AS bigint[])) AS t(grp, id) "
    "WHERE pg_try_advisory_xact_lock(t.id)"
)
CLAIM_GROUPS = text(
    f"""
    WITH free AS (
        SELECT g FROM unnest(CAST(:groups AS text[])) AS g
        WHERE NOT {_OTHER_HOLDS.format(grp="g")}
    ), claimable AS (
        SELECT key, owner AS was, ready_at FROM work_leases
        WHERE queue = :queue AND grp IN (SELECT g FROM free) AND ready_at <= :due_by
          AND (owner IS NULL OR lease_until <= :now)
        ORDER BY ready_at
        LIMIT :limit
        FOR UPDATE SKIP LOCKED
    )
    UPDATE work_leases AS w SET owner = :owner, lease_until = :until, ready_at = :until
    FROM claimable AS c
    WHERE w.queue = :queue AND w.key = c.key
    RETURNING w.key, w.due_at, c.was IS NOT NULL AND c.was <> :owner, w.grp
    """
)
# Keys per statement of the bulk writes: large enough that 20,000 units take 20 round trips,
# small enough that one statement's arrays and locks stay modest.
BULK_KEYS = 1000
_HOLDERS = text(
    "SELECT count(DISTINCT owner) FROM work_leases "
    "WHERE queue = :queue AND ready_at > :now AND owner IS NOT NULL AND lease_until > :now"
)
_RELEASE_DONE = text(
    "DELETE FROM work_leases WHERE queue = :queue AND key = :key AND owner = :owner"
)


class PgLeases(PgConnections):
    """The lease calls of :class:`~suggestbot.store.base.Store` on PostgreSQL."""

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
        """Here rather than with the records: it takes a lease."""
        target = self._check(table, (key,))
        self._check_queue(queue, (key,))
        encoded = self._encoded({key: value})
        until = now + lease_s
        params = (
            lock_ids(table, [key]),
            *target.rows_params(encoded),
            queue,
            until,
            until,
            owner,
            until,
        )
        return bool(self._single(target.locked_insert_absent_held, params))

    def schedule(self, queue: str, key: str, *, due_at: float, if_absent: bool = False) -> bool:
        self._check_queue(queue, (key,))
        row = {"queue": queue, "key": key, "due_at": due_at, "ready_at": due_at}
        statement = pg_insert(WORK_LEASES).values(row)
        pk = ["queue", "key"]
        if if_absent:
            statement = statement.on_conflict_do_nothing(index_elements=pk)
        else:
            statement = statement.on_conflict_do_update(
                index_elements=pk,
                set_={"due_at": due_at, "ready_at": due_at, "owner": None, "lease_until": None},
            )
        with self._transaction() as connection:
            return bool(connection.execute(statement.returning(WORK_LEASES.c.key)).first())

    def schedule_many(
        self, queue: str, due: Mapping[str, float], *, if_absent: bool = False
    ) -> list[str]:
        statement = _SCHEDULE_MANY_IF_ABSENT if if_absent else _SCHEDULE_MANY
        return self._write_many(queue, due, statement, {})

    def release_many(self, queue: str, due: Mapping[str, float], *, owner: str) -> list[str]:
        return self._write_many(queue, due, _RELEASE_MANY, {"owner": owner})

    def _write_many(
        self, queue: str, due: Mapping[str, float], statement: Any, extra: dict[str, Any]
    ) -> list[str]:
        """One statement (and commit) per ``BULK_KEYS`` keys, taken in key order (see
        ``_LOCKED_IN_ORDER``); the keys it wrote, in the order given."""
        self._check_queue(queue, due)
        keys = list(due)
        written: set[str] = set()
        in_order = sorted(keys)
        for start in range(0, len(in_order), BULK_KEYS):
            batch = in_order[start : start + BULK_KEYS]
            params = {"queue": queue, "keys": batch, "dues": [due[k] for k in batch], **extra}
            with self._transaction() as connection:
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
        params = {
            "queue": queue,
            "owner": owner,
            "now": now,
            "due_by": due_by,
            "until": now + lease_s,
            "limit": limit,
            "share": max(share, 1),
        }
        with self._transaction() as connection:
            rows = connection.execute(CLAIM_DUE, params).all()
        claims = (Claim(key, due_at, bool(over)) for key, due_at, over in rows)
        return sorted(claims, key=lambda c: c.due_at)

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
            "now": now,
            "until": now + lease_s,
        }
        with self._transaction() as connection:
            claimed = set(connection.execute(_CLAIM_KEYS, params).scalars())
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
                "until": now + lease_s,
            }
            with self._transaction() as connection:
                held.update(connection.execute(_RENEW, params).scalars())
        return [key for key in dict.fromkeys(keys) if key in held]

    def release(self, queue: str, key: str, *, owner: str, due_at: float | None) -> bool:
        self._check_queue(queue, (key,))
        params: dict[str, Any] = {"queue": queue, "key": key, "owner": owner}
        with self._transaction() as connection:
            if due_at is None:
                result = connection.execute(_RELEASE_DONE, params)
            else:
                result = connection.execute(_RELEASE, {**params, "due": due_at})
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
        statement = _SCHEDULE_GROUPED_IF_ABSENT if if_absent else _SCHEDULE_GROUPED
        keys = list(due)
        written: set[str] = set()
        in_order = sorted(keys)  # batches in key order, as in ``_write_many``
        for start in range(0, len(in_order), BULK_KEYS):
            batch = in_order[start : start + BULK_KEYS]
            params = {
                "queue": queue,
                "keys": batch,
                "dues": [due[k] for k in batch],
                "groups": [groups.get(k, "") for k in batch],
            }
            with self._transaction() as connection:
                written.update(connection.execute(statement, params).scalars())
        return [key for key in keys if key in written]

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
        params: dict[str, Any] = {
            "queue": queue,
            "owner": owner,
            "now": now,
            "due_by": due_by,
            "until": now + lease_s,
            "limit": limit,
        }
        with self._transaction() as connection:
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
            locked = connection.execute(_TRY_LOCK_GROUPS, {"groups": taking, "ids": ids})
            params["groups"] = list(locked.scalars())
            if not params["groups"]:
                return []
            rows = connection.execute(CLAIM_GROUPS, params).all()
        claims = (Claim(key, due_at, bool(over), grp) for key, due_at, over, grp in rows)
        return sorted(claims, key=lambda c: c.due_at)

    def holders(self, queue: str, *, now: float) -> int:
        self._check_queue(queue)
        with self._transaction() as connection:
            return int(connection.execute(_HOLDERS, {"queue": queue, "now": now}).scalar_one())
