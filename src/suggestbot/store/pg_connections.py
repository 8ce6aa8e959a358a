"""How the PostgreSQL store talks to the server: the connection pool and its ping after idle,
the three ways a call runs (one statement in autocommit, several statements in one round trip,
a SQLAlchemy transaction), and the driver's errors turned into the store's, free of secrets.

Kept apart from the store's calls (:mod:`pg_records`, :mod:`pg_leases`), which only say what
to send; :mod:`suggestbot.store.postgres` says why each of these choices was made.
"""

from __future__ import annotations

import re
import time
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.pq import TransactionStatus
from sqlalchemy import Connection, Engine, make_url
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import URL
from sqlalchemy.pool import ConnectionPoolEntry

from suggestbot.store import codec
from suggestbot.store.base import Store, check_key, check_table_name
from suggestbot.store.codec import Record
from suggestbot.store.errors import StoreError, StoreUnavailable
from suggestbot.store.pg_sql import TableSql

# Connections per process: the app's work pool (16 threads) plus Slack's listener threads.
# All of them are kept once opened: a connection opened for a peak and closed after its one
# transaction (an "overflow" one) costs PostgreSQL a process start and its prepared statements,
# and at 3 replicas' full intake that was nearly one new connection per brief. 30 at most per
# process, as before: 3 replicas stay inside PostgreSQL's default of 100.
POOL_SIZE = 30
MAX_OVERFLOW = 0
POOL_TIMEOUT_S = 10.0
CONNECT_TIMEOUT_S = 5
# A connection back in the pool for less than this is handed out again without a ping (see
# :mod:`suggestbot.store.postgres`'s docstring).
PING_AFTER_IDLE_S = 1.0
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


class PgConnections(Store):
    """The connections and checks every call of the PostgreSQL store goes through; its state
    is set up by :class:`~suggestbot.store.postgres.PostgresStore`."""

    _engine: Engine
    _closed: bool
    _targets: dict[str, TableSql]
    _stale_before: float  # a connection returned to the pool before this is pinged first

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

    def _check_queue(self, queue: str, keys: Collection[str] = ()) -> None:
        if self._closed:
            raise RuntimeError("PostgresStore is closed")
        check_table_name(queue)
        for key in keys:
            check_key(key)

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

    @staticmethod
    def _encoded(items: Mapping[str, Record]) -> dict[str, tuple[str, Record]]:
        """Each record with its JSON text; a bad value raises before anything is sent."""
        return {key: (codec.encode(value), value) for key, value in items.items()}
