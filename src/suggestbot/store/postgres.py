"""PostgreSQL backend: the same :class:`~suggestbot.store.base.Store` contract, shared by
several processes (SQLAlchemy Core over psycopg 3, with a connection pool).

How each guarantee is kept, and why:

- **Atomic.** ``put_if_absent`` is ``INSERT … ON CONFLICT DO NOTHING``; ``update`` reads with
  ``SELECT … FOR UPDATE`` and writes in the same transaction; every ``*_many`` is one
  transaction. ``FOR UPDATE`` cannot lock a row that does not exist yet, so every write first
  takes a transaction-scoped advisory lock per key (in one fixed order, so two batches cannot
  deadlock): two ``update`` calls on an absent key, or an ``update`` racing a ``put``, then
  take turns instead of one silently overwriting the other's write.
- **Few round trips.** ``get``, ``put`` and ``put_if_absent`` are one statement each (see
  :mod:`suggestbot.store.pg_sql`), sent in autocommit mode: one round trip, no ``BEGIN`` or
  ``COMMIT``. ``update`` sends ``BEGIN``, the lock and the locked read as one message of
  several statements, runs the updater, then sends the writes and ``COMMIT`` as another: two
  round trips; ``delete`` one. Statements sent together still run one after another, each
  with its own snapshot, which lock-then-read needs.
- **Durable on return.** A call returns after ``COMMIT``, with PostgreSQL's default
  ``synchronous_commit=on`` (the commit is flushed to the server's WAL).
- **Thread-safe.** Each call checks a connection out of the pool for its own transaction.
- **Survives a database restart.** The pool pings a connection before handing it out when it
  has been back in the pool for ``PING_AFTER_IDLE_S`` or more, and replaces a dead one, so the
  first call after the server is back works by itself; a call while it is down raises
  :class:`StoreUnavailable`. A connection used within that second goes out unpinged (a ping
  per call would cost a round trip on every call of a busy app): if the server went away in
  that second, that one call fails with :class:`StoreUnavailable`, and every connection pooled
  before then is pinged at its next use.
- **Secrets stay out of errors.** Errors are re-raised as :class:`StoreUnavailable` /
  :class:`StoreError` whose message holds neither the URL, the password nor a statement's
  parameters (records hold sealed tokens).
- **Leases** (``claim_due``): one statement picks the due units in ready-time order from the
  ``(queue, ready_at)`` index with ``FOR UPDATE SKIP LOCKED`` and leases them: two replicas
  claiming at once never wait for each other and never get the same unit; a leased unit's ready
  time is when its lease runs out, so a dead replica's units come up again by themselves.
- Encryption at rest is unchanged: secrets are sealed by the callers (``TokenVault``) before a
  record reaches any backend, exactly as with SQLite.

See :mod:`suggestbot.store.pg_schema` for the tables.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.pq import TransactionStatus
from sqlalchemy import (
    Boolean,
    Connection,
    Engine,
    Float,
    Table,
    Text,
    and_,
    create_engine,
    delete,
    event,
    make_url,
    or_,
    select,
    text,
)
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import URL
from sqlalchemy.pool import ConnectionPoolEntry
from sqlalchemy.sql.elements import ColumnElement

from suggestbot.store import codec, pg_migrations
from suggestbot.store.base import (
    Claim,
    Scalar,
    Store,
    Updater,
    check_key,
    check_table_name,
    matching_any,
    pick_groups,
    plan_updates,
    select_matching,
)
from suggestbot.store.codec import Record
from suggestbot.store.errors import StoreError, StoreUnavailable
from suggestbot.store.pg_lease_sql import (
    BULK_KEYS,
    CLAIM_DUE,
    CLAIM_GROUPS,
    CLAIM_KEYS,
    DB_CLOCK,
    GROUPS_DUE,
    GROUPS_HELD,
    HOLDERS,
    RELEASE,
    RELEASE_DONE,
    RELEASE_MANY,
    RENEW,
    SCHEDULE_GROUPED,
    SCHEDULE_GROUPED_IF_ABSENT,
    SCHEDULE_MANY,
    SCHEDULE_MANY_IF_ABSENT,
    TRY_LOCK_GROUPS,
)
from suggestbot.store.pg_schema import KV_RECORDS, TYPED, WORK_LEASES
from suggestbot.store.pg_sql import COMMIT, TableSql, lock_id, lock_ids

# Connections per process: the app's work pool (16 threads) plus Slack's listener threads.
POOL_SIZE = 10
MAX_OVERFLOW = 20
POOL_TIMEOUT_S = 10.0
CONNECT_TIMEOUT_S = 5
# A connection back in the pool for less than this is handed out again without a ping (see
# the module's docstring).
PING_AFTER_IDLE_S = 1.0
# How often ``shared_now`` measures the database's clock against this process's.
CLOCK_CHECK_EVERY_S = 10.0
CLOCK_SAMPLES = 3
_RETURNED_AT = "suggestbot_returned_at"
_SCHEMES = ("postgresql", "postgres")


def database_url(url: str) -> URL:
    """Parse ``SUGGESTBOT_DATABASE_URL`` (``postgresql://user:password@host:port/db``) for the
    psycopg 3 driver. The ValueError for a wrong one names the scheme only."""
    try:
        parsed = make_url(url)
    except sa_exc.ArgumentError:
        raise ValueError(
            "SUGGESTBOT_DATABASE_URL is not a database URL: use postgresql://user:password@host"
            ":port/database"
        ) from None
    scheme = parsed.drivername.split("+", 1)[0]
    if scheme not in _SCHEMES:
        raise ValueError(f"SUGGESTBOT_DATABASE_URL must start with postgresql://, not {scheme}://")
    return parsed.set(drivername="postgresql+psycopg")


_URLISH = re.compile(r"\S+://\S+|password\s*=\s*\S+", re.IGNORECASE)


def _reason(exc: BaseException) -> str:
    """A short, secret-free reason from a driver error: its last clause, URL-like parts cut."""
    first_line = (str(exc).strip().splitlines() or [""])[0]
    reason = first_line.rsplit(": ", 1)[-1].strip() or type(exc).__name__
    return _URLISH.sub("…", reason)[:200]


def _conflict(exc: BaseException | None) -> bool:
    """A transaction ended by PostgreSQL for a conflict with another (a deadlock, a
    serialization failure): the connection is fine and the next call can simply try again."""
    state = getattr(exc, "sqlstate", None) if isinstance(exc, psycopg.Error) else None
    return bool(state) and str(state).startswith("40")  # class 40: transaction rollback


def _conflict_error(exc: BaseException) -> StoreError:
    return StoreError(
        f"PostgreSQL ended the operation in a conflict with another ({type(exc).__name__}, "
        f"SQLSTATE {getattr(exc, 'sqlstate', None)}); the next call tries again"
    )


def _translated(exc: sa_exc.SQLAlchemyError) -> StoreError:
    if isinstance(exc, sa_exc.DBAPIError) and exc.orig is not None and _conflict(exc.orig):
        return _conflict_error(exc.orig)
    if isinstance(exc, sa_exc.TimeoutError):
        return StoreUnavailable(
            f"no PostgreSQL connection became free within {POOL_TIMEOUT_S:.0f} s"
        )
    if isinstance(exc, sa_exc.DBAPIError):
        orig = exc.orig
        if exc.connection_invalidated or isinstance(
            exc, sa_exc.OperationalError | sa_exc.InterfaceError
        ):
            return StoreUnavailable(
                "PostgreSQL cannot be reached or refused the connection "
                f"({_reason(orig or exc)}); the next call tries again"
            )
        state = getattr(orig, "sqlstate", None)
        kind = f"{type(orig).__name__}, SQLSTATE {state}" if state else type(orig).__name__
        return StoreError(f"PostgreSQL refused the operation ({kind})")
    return StoreError(f"PostgreSQL operation failed ({type(exc).__name__})")


def _result_rows(cursor: psycopg.ClientCursor[Any], index: int) -> list[Any]:
    """The rows of the ``index``-th statement of the several ``cursor`` just sent."""
    for _ in range(index):
        if not cursor.nextset():
            raise StoreError(f"PostgreSQL sent fewer results than expected ({index + 1})")
    return cursor.fetchall()


_LOCK_KEYS = text(
    "SELECT pg_advisory_xact_lock(id) FROM unnest(CAST(:ids AS bigint[])) "
    "WITH ORDINALITY AS t(id, n) ORDER BY n"
)


class _Target:
    """Where one store table's records live: a typed table, or its rows of ``kv_records``."""

    def __init__(self, name: str) -> None:
        self.name = name
        typed = TYPED.get(name)
        self.typed = typed
        self.table: Table = typed.table if typed is not None else KV_RECORDS

    def scope(self) -> list[ColumnElement[bool]]:
        return [] if self.typed is not None else [KV_RECORDS.c.tbl == self.name]

    def row(self, key: str, value: Record) -> dict[str, Any]:
        row: dict[str, Any] = {"key": key, "value": value}
        if self.typed is not None:
            row.update(self.typed.columns_of(value))
        else:
            row["tbl"] = self.name
        return row

    def pk(self) -> list[str]:
        return ["key"] if self.typed is not None else ["tbl", "key"]


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


def _means_lost(exc: psycopg.Error) -> bool:
    """Whether an error on a connection that still looks open means it is lost: an
    operational error does, but not a transaction's conflict with another (PostgreSQL counts
    deadlocks among operational errors)."""
    return isinstance(exc, psycopg.OperationalError) and not _conflict(exc)


def _driver_error(exc: psycopg.Error, *, lost: bool) -> StoreError:
    """:func:`_translated` for an error psycopg raised itself (the store's own statements)."""
    if _conflict(exc) and not lost:
        return _conflict_error(exc)
    if lost:
        return StoreUnavailable(
            "PostgreSQL cannot be reached or refused the connection "
            f"({_reason(exc)}); the next call tries again"
        )
    state = exc.sqlstate
    kind = f"{type(exc).__name__}, SQLSTATE {state}" if state else type(exc).__name__
    return StoreError(f"PostgreSQL refused the operation ({kind})")


class PostgresStore(Store):
    """A :class:`Store` in the PostgreSQL database at ``url``.

    Args:
        url: ``postgresql://user:password@host:port/database``.
        clock: this process's wall clock, against which the times callers pass are read (see
            ``suggestbot.store.pg_lease_sql``); the leases themselves run on the database's clock.
        check_schema: refuse (:class:`~suggestbot.store.pg_migrations.SchemaNotCurrent`) a
            database whose schema is not this version's; only ``db upgrade`` opens without.
        caller_times: reckon leases with the times callers pass, as given, instead of the
            database's clock — what the single-process stores do — for tests that drive a
            timeline of their own; never for replicas (see ``pg_lease_sql``).

    Raises:
        StoreUnavailable: the database cannot be reached.
    """

    # Every replica on the database sees the leases; they outlive the process that took them.
    shares_leases = True

    def __init__(
        self,
        url: str,
        *,
        check_schema: bool = True,
        clock: Callable[[], float] = time.time,
        caller_times: bool = False,
    ) -> None:
        self._engine: Engine = create_engine(
            database_url(url),
            pool_size=POOL_SIZE,
            max_overflow=MAX_OVERFLOW,
            pool_timeout=POOL_TIMEOUT_S,
            hide_parameters=True,
            json_serializer=codec.encode,
            json_deserializer=codec.decode,
            connect_args={"connect_timeout": CONNECT_TIMEOUT_S, "application_name": "suggestbot"},
        )
        self._closed = False
        self._clock = clock
        self._caller_times = caller_times
        self._offset_lock = threading.Lock()
        self._offset = 0.0  # the database's clock minus this process's, last measured
        self._offset_checked_at: float | None = None
        self._targets: dict[str, TableSql] = {}
        self._stale_before = time.monotonic()
        event.listen(self._engine, "checkout", self._ping_if_idle)
        event.listen(self._engine, "checkin", self._note_returned)
        if check_schema:
            try:
                pg_migrations.check_current(self._engine)
            except sa_exc.SQLAlchemyError as exc:
                self._engine.dispose()
                raise _translated(exc) from None
            except BaseException:
                self._engine.dispose()
                raise

    @property
    def engine(self) -> Engine:
        return self._engine

    def upgrade_schema(self) -> tuple[str | None, str]:
        """Apply the shipped migrations (``suggestbot db upgrade``); ``(before, after)``."""
        try:
            return pg_migrations.upgrade(self._engine)
        except sa_exc.SQLAlchemyError as exc:
            raise _translated(exc) from None

    def check_ready(self) -> None:
        """Reachable, and the schema is this version's (a replica started before a migration
        it does not know is not ready)."""
        try:
            pg_migrations.check_current(self._engine)
        except sa_exc.SQLAlchemyError as exc:
            raise _translated(exc) from None

    def __repr__(self) -> str:
        url = self._engine.url
        return f"PostgresStore(host={url.host!r}, database={url.database!r})"

    # ------------------------------------------------------------------ plumbing

    def _target(self, table: str) -> TableSql:
        target = self._targets.get(table)
        if target is None:
            check_table_name(table)
            target = self._targets[table] = TableSql(table)
        return target

    def _check(self, table: str, keys: Collection[str] = ()) -> TableSql:
        if self._closed:
            raise RuntimeError("PostgresStore is closed")
        target = self._target(table)
        for key in keys:
            check_key(key)
        return target

    def _ping_if_idle(self, dbapi_connection: Any, entry: ConnectionPoolEntry, _proxy: Any) -> None:
        """Pool ``checkout`` hook: ping a connection that sat in the pool for a while, or was
        there when another one was found dead; a dead one is replaced (``DisconnectionError``
        makes the pool connect anew)."""
        returned = entry.info.get(_RETURNED_AT)
        if (
            isinstance(returned, float)
            and returned > self._stale_before
            and time.monotonic() - returned < PING_AFTER_IDLE_S
        ):
            return
        try:
            dbapi_connection.autocommit = True  # the ping opens no transaction
            try:
                dbapi_connection.execute("SELECT 1")
            finally:
                dbapi_connection.autocommit = False
        except psycopg.Error:
            raise sa_exc.DisconnectionError() from None

    @staticmethod
    def _note_returned(_dbapi_connection: Any, entry: ConnectionPoolEntry) -> None:
        entry.info[_RETURNED_AT] = time.monotonic()

    @contextmanager
    def _transaction(self) -> Iterator[Connection]:
        """One transaction through SQLAlchemy: committed when the block ends, rolled back if
        it raises."""
        try:
            with self._engine.begin() as connection:
                yield connection
        except sa_exc.SQLAlchemyError as exc:
            raise _translated(exc) from None

    @contextmanager
    def _driver(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection's psycopg connection, for one transaction the caller ends with
        ``COMMIT``; whatever it leaves open is rolled back when the connection goes back."""
        try:
            with self._engine.connect() as connection:
                raw = connection.connection.driver_connection
                assert isinstance(raw, psycopg.Connection)
                try:
                    yield raw
                except psycopg.Error as exc:
                    lost = raw.closed or raw.broken or _means_lost(exc)
                    if lost:
                        # Every connection pooled before now is pinged at its next checkout.
                        self._stale_before = time.monotonic()
                        connection.invalidate()
                    raise _driver_error(exc, lost=lost) from None
        except sa_exc.SQLAlchemyError as exc:
            raise _translated(exc) from None

    def _single(self, statement: str, params: tuple[Any, ...]) -> list[Any]:
        """Run one statement as a transaction of its own (autocommit: no ``BEGIN`` or
        ``COMMIT`` to send, one round trip); its rows, if it returns any."""
        with self._driver() as raw:
            raw.autocommit = True
            try:
                with raw.cursor() as cursor:
                    cursor.execute(statement, params)
                    return cursor.fetchall() if cursor.description is not None else []
            finally:
                if not raw.closed:
                    raw.autocommit = False

    @contextmanager
    def _explicit(self) -> Iterator[psycopg.ClientCursor[Any]]:
        """A cursor that sends several statements in one round trip (parameters bound on the
        client, simple query protocol), on a connection in autocommit mode, for a transaction
        its statements open with ``BEGIN`` and end with ``COMMIT``; one left open (the updater
        raised, a statement failed) is rolled back before the connection goes back."""
        with self._driver() as raw:
            raw.autocommit = True
            try:
                with psycopg.ClientCursor(raw) as cursor:
                    yield cursor
            finally:
                if not raw.closed and not raw.broken:
                    if raw.info.transaction_status != TransactionStatus.IDLE:
                        raw.execute("ROLLBACK")
                    raw.autocommit = False

    @staticmethod
    def _decoded(rows: Sequence[tuple[str, str]]) -> dict[str, Record]:
        return {key: codec.decode(text) for key, text in rows}

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
        target = self._check(table, (key,))
        self._check_queue(queue, (key,))
        encoded = self._encoded({key: value})
        # Held for ``lease_s`` from the database's clock at the write (see ``pg_lease_sql``).
        at = now if self._caller_times else None
        params = (lock_ids(table, [key]), *target.rows_params(encoded), queue, at, lease_s, owner)
        return bool(self._single(target.locked_insert_absent_held, params))

    @staticmethod
    def _encoded(items: Mapping[str, Record]) -> dict[str, tuple[str, Record]]:
        """Each record with its JSON text; a bad value raises before anything is sent."""
        return {key: (codec.encode(value), value) for key, value in items.items()}

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

    # ------------------------------------------------------------------ leases

    def _check_queue(self, queue: str, keys: Collection[str] = ()) -> None:
        if self._closed:
            raise RuntimeError("PostgresStore is closed")
        check_table_name(queue)
        for key in keys:
            check_key(key)

    def schedule(self, queue: str, key: str, *, due_at: float, if_absent: bool = False) -> bool:
        return bool(self.schedule_many(queue, {key: due_at}, if_absent=if_absent))

    def schedule_many(
        self, queue: str, due: Mapping[str, float], *, if_absent: bool = False
    ) -> list[str]:
        statement = SCHEDULE_MANY_IF_ABSENT if if_absent else SCHEDULE_MANY
        return self._write_many(queue, due, statement, {})

    def release_many(self, queue: str, due: Mapping[str, float], *, owner: str) -> list[str]:
        return self._write_many(queue, due, RELEASE_MANY, {"owner": owner})

    def _write_many(
        self, queue: str, due: Mapping[str, float], statement: Any, extra: dict[str, Any]
    ) -> list[str]:
        """One statement (and commit) per ``BULK_KEYS`` keys, taken in key order (see
        ``pg_lease_sql.LOCKED_IN_ORDER``); the keys it wrote, in the order given."""
        self._check_queue(queue, due)
        keys = list(due)
        written: set[str] = set()
        in_order = sorted(keys)
        for start in range(0, len(in_order), BULK_KEYS):
            batch = in_order[start : start + BULK_KEYS]
            params: dict[str, Any] = {"queue": queue, "keys": batch, **extra, **self._at(0.0)}
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
        params = {
            "queue": queue,
            "owner": owner,
            "ahead": due_by - now,
            "lease": lease_s,
            "limit": limit,
            "share": max(share, 1),
            **self._at(now),
        }
        with self._transaction() as connection:
            rows = connection.execute(CLAIM_DUE, params).all()
        local = now if self._caller_times else self._clock()
        claims = (Claim(key, local + due_in, bool(over)) for key, due_in, over in rows)
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
        keys = list(due)
        written: set[str] = set()
        in_order = sorted(keys)  # batches in key order, as in ``_write_many``
        for start in range(0, len(in_order), BULK_KEYS):
            batch = in_order[start : start + BULK_KEYS]
            params: dict[str, Any] = {
                "queue": queue,
                "keys": batch,
                "groups": [groups.get(k, "") for k in batch],
                **self._at(0.0),
            }
            with self._transaction() as connection:
                params["dues"] = self._due_in([due[k] for k in batch])
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
            "ahead": due_by - now,
            "lease": lease_s,
            "limit": limit,
            **self._at(now),
        }
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
        local = now if self._caller_times else self._clock()
        claims = (Claim(key, local + due_in, bool(over), grp) for key, due_in, over, grp in rows)
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

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._engine.dispose()
