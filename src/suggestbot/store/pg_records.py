"""The PostgreSQL store's records: the reads and writes of the store's tables (a typed table,
or rows of ``kv_records``), each call one transaction, filtered by the typed, indexed columns
where they can answer.

Kept apart from the leases (:mod:`pg_leases`) and the connections (:mod:`pg_connections`);
the statements themselves are in :mod:`pg_sql`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from sqlalchemy import Boolean, Float, Table, Text, and_, or_, select
from sqlalchemy.sql.elements import ColumnElement

from suggestbot.store.base import Scalar, Updater, matching_any, plan_updates, select_matching
from suggestbot.store.codec import Record
from suggestbot.store.pg_connections import PgConnections, _result_rows
from suggestbot.store.pg_lease_sql import BULK_KEYS
from suggestbot.store.pg_schema import KV_RECORDS, TYPED
from suggestbot.store.pg_sql import COMMIT, lock_ids


class _Target:
    """Where one store table's records live: a typed table, or its rows of ``kv_records``."""

    def __init__(self, name: str) -> None:
        self.name = name
        typed = TYPED.get(name)
        self.typed = typed
        self.table: Table = typed.table if typed is not None else KV_RECORDS


def _column_takes(target: _Target, field: str, values: Collection[Scalar] | None) -> bool:
    """Whether ``field`` has a typed column that can answer for ``values`` exactly or as a
    superset (``None``: can order or bound it): text columns hold only strings, flag columns
    only ``True``/``False``, number columns the numbers."""
    if target.typed is None or field not in target.typed.extract:
        return False
    kind = target.table.c[field].type
    if values is None:
        return isinstance(kind, Float)
    if isinstance(kind, Boolean):
        return all(isinstance(v, bool) for v in values)
    return isinstance(kind, Text) and all(isinstance(v, str) for v in values)


def _where_conditions(
    target: _Target, where: Mapping[str, Collection[Scalar]]
) -> list[ColumnElement[bool]]:
    """What the typed columns can say of ``where`` (a superset of the matches): a column's
    values, and a column computed from a field."""
    t = target.table
    conditions: list[ColumnElement[bool]] = [
        t.c[field].in_(sorted(set(values), key=str))
        for field, values in where.items()
        if _column_takes(target, field, values)
    ]
    return conditions + _derived_conditions(target, where)


def _derived_conditions(
    target: _Target, where: Mapping[str, Collection[Scalar]]
) -> list[ColumnElement[bool]]:
    """Conditions on columns computed from a field (a digest's ``time`` as its local minute):
    a superset of the matches, narrowed by the check against the records themselves."""
    if target.typed is None:
        return []
    conditions: list[ColumnElement[bool]] = []
    for name, values in where.items():
        derived = target.typed.derived.get(name)
        if derived is None or not all(isinstance(v, str) for v in values):
            continue
        converted = {derived.convert(v) for v in values} - {None}
        column = target.table.c[derived.column]
        conditions.append(column.in_(sorted(converted)) if converted else column.is_(None))
    return conditions


class PgRecords(PgConnections):
    """The record calls of :class:`~suggestbot.store.base.Store` on PostgreSQL."""

    # ------------------------------------------------------------------ the contract
    #
    # Each call is one transaction: a single statement in autocommit, or several statements
    # sent together between BEGIN and COMMIT. Where a read (or a delete, which reads) follows the
    # advisory lock, the lock stays a statement of its own: under READ COMMITTED each
    # statement reads from a snapshot taken when it starts, so only a read that starts after
    # the lock is granted sees a record the previous holder inserted.

    def get(self, table: str, key: str) -> Record | None:
        target = self._check(table, (key,))
        rows = self._single(target.read, target.keys_params([key]))
        return self._decoded(rows).get(key)

    def get_many(self, table: str, keys: Collection[str]) -> dict[str, Record]:
        wanted = list(dict.fromkeys(keys))
        target = self._check(table, wanted)
        found: dict[str, Record] = {}
        for start in range(0, len(wanted), BULK_KEYS):
            batch = wanted[start : start + BULK_KEYS]
            found.update(self._decoded(self._single(target.read, target.keys_params(batch))))
        return found

    def put(self, table: str, key: str, value: Record) -> None:
        self.put_many(table, {key: value})

    def delete(self, table: str, key: str) -> bool:
        target = self._check(table, (key,))
        ids = lock_ids(table, [key])
        with self._explicit() as cursor:
            cursor.execute(target.locked_delete, (ids, *target.keys_params([key])))
            return bool(_result_rows(cursor, 2))

    def items(self, table: str) -> list[tuple[str, Record]]:
        self._check(table)
        typed = TYPED.get(table)
        t = typed.table if typed is not None else KV_RECORDS
        scope = [] if typed is not None else [KV_RECORDS.c.tbl == table]
        with self._transaction() as connection:
            rows = connection.execute(select(t.c.key, t.c.value).where(*scope).order_by(t.c.key))
            return [(key, value) for key, value in rows]

    def items_where(
        self, table: str, field: str, values: Collection[str]
    ) -> list[tuple[str, Record]]:
        self._check(table)
        target = _Target(table)
        if target.typed is None or field not in target.typed.extract:
            return super().items_where(table, field, values)
        t = target.table
        query = (
            select(t.c.key, t.c.value).where(t.c[field].in_(sorted(set(values)))).order_by(t.c.key)
        )
        with self._transaction() as connection:
            return [(key, value) for key, value in connection.execute(query)]

    def items_matching(
        self,
        table: str,
        *,
        where: Mapping[str, Collection[Scalar]],
        at_most: Mapping[str, float] | None = None,
        newest_by: str | None = None,
        limit: int | None = None,
    ) -> list[tuple[str, Record]]:
        """Filtered (and ordered) by the typed, indexed columns in SQL; the rows it returns are
        checked again against the records themselves (a flag column reads an absent field as
        False), so the answer is exactly the other backends'."""
        self._check(table)
        target = _Target(table)
        if limit is not None and limit < 0:
            raise ValueError("limit must not be negative")
        if any(not values for values in where.values()):
            return []
        t = target.table
        conditions = _where_conditions(target, where)
        conditions += [
            t.c[field] <= bound
            for field, bound in (at_most or {}).items()
            if _column_takes(target, field, None)
        ]
        order_ok = newest_by is None or _column_takes(target, newest_by, None)
        if not conditions or not order_ok:
            return super().items_matching(
                table, where=where, at_most=at_most, newest_by=newest_by, limit=limit
            )
        query = select(t.c.key, t.c.value).where(*conditions)
        if newest_by is None:
            query = query.order_by(t.c.key)
        else:
            query = query.order_by(t.c[newest_by].desc().nulls_last(), t.c.key)

        def read(most: int | None) -> tuple[int, list[tuple[str, Record]]]:
            with self._transaction() as connection:
                rows = [(key, value) for key, value in connection.execute(query.limit(most))]
            kept = select_matching(
                rows, where=where, at_most=at_most, newest_by=newest_by, limit=limit
            )
            return len(rows), kept

        read_count, found = read(limit)
        if limit is not None and read_count == limit and len(found) < limit:
            # A row the columns matched but its record did not: read them all, then cut.
            _, found = read(None)
        return found

    def items_matching_any(
        self, table: str, wheres: Sequence[Mapping[str, Collection[Scalar]]]
    ) -> list[tuple[str, Record]]:
        """One statement: the typed columns' conditions of each ``where`` joined by OR (each
        an index lookup), checked again against the records as :meth:`items_matching` is."""
        self._check(table)
        target = _Target(table)
        # A where with an empty set of values matches nothing.
        live = [where for where in wheres if all(values for values in where.values())]
        if not live:
            return []
        each = [_where_conditions(target, where) for where in live]
        if not all(each):
            return super().items_matching_any(table, live)
        t = target.table
        query = select(t.c.key, t.c.value).where(or_(*(and_(*c) for c in each))).order_by(t.c.key)
        with self._transaction() as connection:
            rows = [(key, value) for key, value in connection.execute(query)]
        return matching_any(rows, live)

    def put_if_absent(self, table: str, key: str, value: Record) -> bool:
        return bool(self.put_many_if_absent(table, {key: value}))

    def update(self, table: str, key: str, fn: Updater) -> Record | None:
        return self.update_many(table, {key: fn})[key]

    def put_many(self, table: str, items: Mapping[str, Record]) -> None:
        target = self._check(table, items)
        encoded = self._encoded(items)
        if not encoded:
            return
        ids = lock_ids(table, list(encoded))
        self._single(target.locked_upsert, (ids, *target.rows_params(encoded)))

    def put_many_if_absent(self, table: str, items: Mapping[str, Record]) -> list[str]:
        target = self._check(table, items)
        encoded = self._encoded(items)
        if not encoded:
            return []
        ids = lock_ids(table, list(encoded))
        rows = self._single(target.locked_insert_absent, (ids, *target.rows_params(encoded)))
        stored = {key for (key,) in rows}
        return [key for key in items if key in stored]

    def update_many(self, table: str, updates: Mapping[str, Updater]) -> dict[str, Record | None]:
        target = self._check(table, updates)
        keys = sorted(updates)
        with self._explicit() as cursor:
            # One round trip: BEGIN, the locks, the locked read.
            cursor.execute(
                target.begin_lock_read, (lock_ids(table, keys), *target.keys_params(keys))
            )
            plan = plan_updates(self._decoded(_result_rows(cursor, 2)), updates)
            # A second: the writes and COMMIT.
            statements: list[str] = []
            params: list[Any] = []
            encoded = self._encoded(plan.puts)
            if encoded:
                statements.append(target.upsert)
                params += target.rows_params(encoded)
            if plan.deletes:
                statements.append(target.delete)
                params += target.keys_params(plan.deletes)
            cursor.execute("; ".join([*statements, COMMIT]), params)
        return plan.results
