"""The statements of the PostgreSQL store's leases (``work_leases``), and the one rule they
share: every lease time is the database's (see ``DB_NOW``).

Kept apart from :mod:`suggestbot.store.pg_leases`, which sends them, as :mod:`pg_sql` keeps the
records' statements.
"""

from __future__ import annotations

from sqlalchemy import text

# Every lease time is the database's, and no statement takes a time from a replica's clock.
# Replicas' clocks disagree (a host 30 s ahead, an NTP step), and a difference between a
# replica's clock and the database's measured inside a statement carries the statement's wait
# (for a connection, the CPU, a lock) into every time it moves: under load leases came out
# a second or two short, and were taken from live holders. So every comparison is made with
# the database's ``now()`` (the transaction's start: a claim that waited sees leases as
# ending no earlier than they did), and every time written is the database's clock at the
# write (``clock_timestamp()``, read once per statement: ``CLOCK``) plus a duration the
# caller means — a lease's length, how far ahead a claim looks, how long until a unit is due.
# A duration is the same on every clock; a wait before the write only makes it end later.
# A due time handed back is how long until it is due (``_DUE_IN``), which the store adds to
# its own clock after the statement (so it, too, errs late).
#
# ``:at`` is NULL in service. A store made to take the caller's times as given (as the
# single-process stores do: the Store contract's tests drive a timeline of their own, at 0 s,
# 25 s, ...) passes its caller's time there instead, and the same statements reckon with it.
DB_NOW = "CAST(extract(epoch FROM now()) AS double precision)"
_AT = "CAST(:at AS double precision)"
CLOCK = (
    f"(SELECT COALESCE({_AT}, CAST(extract(epoch FROM clock_timestamp()) AS double precision)) "
    "AS at) AS clk"
)
_NOW = f"COALESCE({_AT}, {DB_NOW})"
_DUE_BY = f"({_NOW} + CAST(:ahead AS double precision))"
_UNTIL = "(clk.at + CAST(:lease AS double precision))"
_DUE_IN = f"w.due_at - {_NOW}"

CLAIM_DUE = text(
    f"""
    WITH claimable AS (
        SELECT key, owner AS was, ready_at FROM work_leases
        WHERE queue = :queue AND ready_at <= {_DUE_BY}
          AND (owner IS NULL OR lease_until <= {_NOW})
        ORDER BY ready_at
        LIMIT :limit
        FOR UPDATE SKIP LOCKED
    ), picked AS (
        SELECT key, was FROM claimable ORDER BY ready_at
        LIMIT (SELECT ceil(count(*) / CAST(:share AS double precision)) FROM claimable)
    )
    UPDATE work_leases AS w SET owner = :owner, lease_until = {_UNTIL}, ready_at = {_UNTIL}
    FROM picked, {CLOCK}
    WHERE w.queue = :queue AND w.key = picked.key
    RETURNING w.key, {_DUE_IN}, picked.was IS NOT NULL AND picked.was <> :owner
    """
)
CLAIM_KEYS = text(
    f"""
    WITH picked AS (
        SELECT key FROM work_leases
        WHERE queue = :queue AND key = ANY(CAST(:keys AS text[]))
          AND (owner IS NULL OR lease_until <= {_NOW})
        FOR UPDATE SKIP LOCKED
    )
    UPDATE work_leases SET owner = :owner, lease_until = {_UNTIL}, ready_at = {_UNTIL}
    FROM {CLOCK}
    WHERE queue = :queue AND key = ANY(ARRAY(SELECT key FROM picked))
    RETURNING key
    """
)
# Many-row writes that may wait for rows another transaction holds (a renewal of every lease
# a replica holds, a sweep's page released while the renewal runs) lock their rows in key
# order first: taken in any other order, two of them can each hold a row the other waits
# for, and PostgreSQL ends one as a deadlock after a second's wait. (Claims never wait: they
# skip locked rows.) Inserts take their rows in the order given, so their keys come sorted.
LOCKED_IN_ORDER = (
    "locked AS MATERIALIZED (SELECT key FROM work_leases "
    "WHERE queue = :queue AND key = ANY(CAST(:keys AS text[])) ORDER BY key FOR UPDATE)"
)
RENEW = text(
    f"WITH {LOCKED_IN_ORDER} "
    f"UPDATE work_leases AS w SET lease_until = {_UNTIL}, ready_at = {_UNTIL} "
    f"FROM locked, {CLOCK} "
    "WHERE w.queue = :queue AND w.key = locked.key AND w.owner = :owner RETURNING w.key"
)
_DUE = "clk.at + CAST(:due_in AS double precision)"
RELEASE = text(
    f"UPDATE work_leases SET due_at = {_DUE}, ready_at = {_DUE}, owner = NULL, "
    f"lease_until = NULL FROM {CLOCK} WHERE queue = :queue AND key = :key AND owner = :owner"
)
# Many units in one statement each (a start's recovery, a sweep's page): the keys and their
# times until they are due travel as two arrays, unnested into rows.
_UNNEST_DUE = (
    f"unnest(CAST(:keys AS text[]), CAST(:dues AS double precision[])) AS u(key, due), {CLOCK}"
)
_U_DUE = "clk.at + u.due"
SCHEDULE_MANY_IF_ABSENT = text(
    "INSERT INTO work_leases (queue, key, due_at, ready_at) "
    f"SELECT :queue, u.key, {_U_DUE}, {_U_DUE} FROM {_UNNEST_DUE} ORDER BY u.key "
    "ON CONFLICT (queue, key) DO NOTHING RETURNING key"
)
SCHEDULE_MANY = text(
    "INSERT INTO work_leases (queue, key, due_at, ready_at) "
    f"SELECT :queue, u.key, {_U_DUE}, {_U_DUE} FROM {_UNNEST_DUE} ORDER BY u.key "
    "ON CONFLICT (queue, key) DO UPDATE SET due_at = excluded.due_at, "
    "ready_at = excluded.ready_at, owner = NULL, lease_until = NULL RETURNING key"
)
RELEASE_MANY = text(
    f"WITH {LOCKED_IN_ORDER} "
    f"UPDATE work_leases AS w SET due_at = {_U_DUE}, ready_at = {_U_DUE}, owner = NULL, "
    f"lease_until = NULL FROM locked, {_UNNEST_DUE} "
    "WHERE w.queue = :queue AND w.key = locked.key AND u.key = locked.key "
    "AND w.owner = :owner RETURNING w.key"
)
_UNNEST_GROUPED = (
    "unnest(CAST(:keys AS text[]), CAST(:dues AS double precision[]), CAST(:groups AS text[])) "
    f"AS u(key, due, grp), {CLOCK}"
)
RELEASE_MANY_GROUPED = text(
    f"WITH {LOCKED_IN_ORDER} "
    f"UPDATE work_leases AS w SET due_at = {_U_DUE}, ready_at = {_U_DUE}, owner = NULL, "
    f"lease_until = NULL, grp = u.grp FROM locked, {_UNNEST_GROUPED} "
    "WHERE w.queue = :queue AND w.key = locked.key AND u.key = locked.key "
    "AND w.owner = :owner RETURNING w.key"
)
SCHEDULE_GROUPED_IF_ABSENT = text(
    "INSERT INTO work_leases (queue, key, due_at, ready_at, grp) "
    f"SELECT :queue, u.key, {_U_DUE}, {_U_DUE}, u.grp FROM {_UNNEST_GROUPED} ORDER BY u.key "
    "ON CONFLICT (queue, key) DO NOTHING RETURNING key"
)
SCHEDULE_GROUPED = text(
    "INSERT INTO work_leases (queue, key, due_at, ready_at, grp) "
    f"SELECT :queue, u.key, {_U_DUE}, {_U_DUE}, u.grp FROM {_UNNEST_GROUPED} ORDER BY u.key "
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
# leased units are visited. Every step reads the same database time (``now()`` is the
# transaction's start).
_OTHER_HOLDS = (
    "EXISTS (SELECT 1 FROM work_leases h WHERE h.queue = :queue AND h.grp = {grp} "
    f"AND h.owner <> :owner AND h.lease_until > {_NOW})"
)
GROUPS_DUE = text(
    f"SELECT grp FROM work_leases WHERE queue = :queue AND ready_at <= {_DUE_BY} "
    f"AND (owner IS NULL OR lease_until <= {_NOW}) GROUP BY grp ORDER BY min(ready_at)"
)
GROUPS_HELD = text(
    "SELECT grp, bool_or(owner = :owner), bool_or(owner <> :owner) FROM work_leases "
    f"WHERE queue = :queue AND owner IS NOT NULL AND lease_until > {_NOW} GROUP BY grp"
)
TRY_LOCK_GROUPS = text(
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
        WHERE queue = :queue AND grp IN (SELECT g FROM free) AND ready_at <= {_DUE_BY}
          AND (owner IS NULL OR lease_until <= {_NOW})
        ORDER BY ready_at
        LIMIT :limit
        FOR UPDATE SKIP LOCKED
    )
    UPDATE work_leases AS w SET owner = :owner, lease_until = {_UNTIL}, ready_at = {_UNTIL}
    FROM claimable AS c, {CLOCK}
    WHERE w.queue = :queue AND w.key = c.key
    RETURNING w.key, {_DUE_IN}, c.was IS NOT NULL AND c.was <> :owner, w.grp
    """
)
# A group's free units due by a time however far ahead (``Store.claim_group_free``), read from
# the partial index of the free units by group, unless another owner holds a live lease in it;
# written by key (a join with the locked rows would scan the whole table for its few rows).
CLAIM_GROUP_FREE = text(
    f"""
    WITH claimable AS (
        SELECT key FROM work_leases
        WHERE queue = :queue AND grp = :group AND owner IS NULL AND due_at <= {_DUE_BY}
          AND NOT {_OTHER_HOLDS.format(grp=":group")}
        ORDER BY due_at
        LIMIT :limit
        FOR UPDATE SKIP LOCKED
    )
    UPDATE work_leases AS w SET owner = :owner, lease_until = {_UNTIL}, ready_at = {_UNTIL}
    FROM {CLOCK}
    WHERE w.queue = :queue AND w.key = ANY(ARRAY(SELECT key FROM claimable))
    RETURNING w.key, {_DUE_IN}, false, w.grp
    """
)
# Keys per statement of the bulk writes: large enough that 20,000 units take 20 round trips,
# small enough that one statement's arrays and locks stay modest.
BULK_KEYS = 1000
HOLDERS = text(
    "SELECT count(DISTINCT owner) FROM work_leases "
    f"WHERE queue = :queue AND ready_at > {_NOW} AND owner IS NOT NULL "
    f"AND lease_until > {_NOW}"
)
RELEASE_DONE = text(
    "DELETE FROM work_leases WHERE queue = :queue AND key = :key AND owner = :owner"
)
DB_CLOCK = text("SELECT CAST(extract(epoch FROM clock_timestamp()) AS double precision)")
