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

The class is put together from one module per idea: :mod:`pg_connections` (the pool, the ways
a call runs, errors), :mod:`pg_records` (the tables' records), :mod:`pg_leases` (the work
leases and the database's clock). See :mod:`suggestbot.store.pg_schema` for the tables.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from sqlalchemy import Engine, create_engine, event
from sqlalchemy import exc as sa_exc

from suggestbot.store import codec, pg_migrations
from suggestbot.store.pg_connections import (
    CONNECT_TIMEOUT_S,
    MAX_OVERFLOW,
    POOL_SIZE,
    POOL_TIMEOUT_S,
    _translated,
    database_url,
)
from suggestbot.store.pg_leases import PgLeases
from suggestbot.store.pg_records import PgRecords
from suggestbot.store.pg_sql import TableSql

# Imported from here by the rest of the product and its tests.
__all__ = ["MAX_OVERFLOW", "POOL_SIZE", "PostgresStore", "database_url"]


class PostgresStore(PgRecords, PgLeases):
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

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._engine.dispose()
