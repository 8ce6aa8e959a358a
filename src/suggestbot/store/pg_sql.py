"""The statements the PostgreSQL store sends, written once per store table.

Each statement takes whole arrays as parameters (``key = ANY(%s)``, ``INSERT … SELECT FROM
unnest(…)``), so one text serves any number of keys and the store builds no SQL per call (a
single statement is also prepared on the server by psycopg after a few uses). They go out
through psycopg directly, alone or several in one message (see
:mod:`suggestbot.store.pg_connections`), which is why they are plain text with ``%s``
placeholders rather than SQLAlchemy constructs. Records travel as the codec's JSON text
(``::json`` keeps it exactly, as the ``json`` column does) and come back as that text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Boolean, Column, Float, Integer, Text

from suggestbot.store.pg_schema import KV_RECORDS, TYPED

LOCK_KEYS = (
    "SELECT pg_advisory_xact_lock(id) FROM unnest(%s::bigint[]) WITH ORDINALITY AS t(id, n) "
    "ORDER BY n"
)
COMMIT = "COMMIT"


def lock_id(table: str, key: str) -> int:
    """A 64-bit advisory lock id for one record (a collision only makes two keys take turns)."""
    digest = hashlib.blake2b(f"{table}:{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def lock_ids(table: str, keys: Sequence[str]) -> list[int]:
    """The lock ids of ``keys``, sorted: every writer takes them in one order, so two batches
    cannot deadlock."""
    return sorted({lock_id(table, key) for key in keys})


def _array_type(column: Column[Any]) -> str:
    kind = column.type
    if isinstance(kind, Boolean):
        return "boolean[]"
    if isinstance(kind, Integer):
        return "integer[]"
    if isinstance(kind, Float):
        return "double precision[]"
    if isinstance(kind, Text):
        return "text[]"
    raise TypeError(f"no array type for column {column.name} ({kind})")


class TableSql:
    """The statements of one store table: a typed table of its own, or its rows of
    ``kv_records`` (every statement then also names the store table, its first parameter)."""

    def __init__(self, name: str) -> None:
        self.name = name
        typed = TYPED.get(name)
        self._typed = typed
        table = typed.table if typed is not None else KV_RECORDS
        extra = [c for c in table.columns if c.name not in ("tbl", "key", "value")]
        self._extra = [c.name for c in extra]
        where = "key = ANY(%s::text[])"
        if typed is None:
            where = f"tbl = %s AND {where}"
        pk = "key" if typed is not None else "tbl, key"
        self.read = f"SELECT key, value::text FROM {table.name} WHERE {where}"
        self.read_for_update = f"{self.read} FOR UPDATE"
        self.delete = f"DELETE FROM {table.name} WHERE {where} RETURNING key"
        # Several statements in one round trip (see ``PostgresStore.update_many``): the lock
        # stays a statement of its own, so the read or delete after it takes its snapshot
        # once the lock is granted.
        self.begin_lock_read = f"BEGIN; {LOCK_KEYS}; {self.read_for_update}"
        self.locked_delete = f"BEGIN; {LOCK_KEYS}; {self.delete}; {COMMIT}"
        if typed is not None:
            names = ["key", "value", *self._extra]
            types = ["text[]", "json[]", *(_array_type(c) for c in extra)]
            arrays = ", ".join(f"%s::{t}" for t in types)
            rows = f"SELECT * FROM unnest({arrays})"
        else:
            names = ["tbl", "key", "value"]
            rows = "SELECT %s, k, v FROM unnest(%s::text[], %s::json[]) AS t(k, v)"
        insert = f"INSERT INTO {table.name} ({', '.join(names)}) {rows} ON CONFLICT ({pk})"
        changed = ", ".join(f"{n} = EXCLUDED.{n}" for n in names if n not in ("tbl", "key"))
        self.upsert = f"{insert} DO UPDATE SET {changed}"
        # The same, as one statement that first takes the keys' advisory locks: the one-time
        # filter runs its sub-select (every lock, in order) before the first row is inserted.
        # Safe in one statement, unlike a read after the lock: ON CONFLICT checks against the
        # newest committed rows, not the statement's snapshot.
        locked = (
            f"WITH locks AS MATERIALIZED ({LOCK_KEYS}) INSERT INTO {table.name} "
            f"({', '.join(names)}) {rows} WHERE (SELECT count(*) FROM locks) >= 0 "
            f"ON CONFLICT ({pk})"
        )
        self.locked_upsert = f"{locked} DO UPDATE SET {changed}"
        self.locked_insert_absent = f"{locked} DO NOTHING RETURNING key"
        # The insert that claims a record and, for what it stored, a held lease unit (see
        # ``Store.put_if_absent_held``): one statement, so one round trip and one commit.
        # Parameters after the rows: queue, the caller's time (NULL in service), the lease's
        # length (its end, and due time, is the database's clock at the write plus it, as every
        # lease time is: see ``suggestbot.store.pg_lease_sql``), owner.
        self.locked_insert_absent_held = (
            f"WITH locks AS MATERIALIZED ({LOCK_KEYS}), stored AS ("
            f"INSERT INTO {table.name} ({', '.join(names)}) {rows} "
            f"WHERE (SELECT count(*) FROM locks) >= 0 ON CONFLICT ({pk}) DO NOTHING "
            "RETURNING key), held AS ("
            "INSERT INTO work_leases (queue, key, due_at, ready_at, owner, lease_until) "
            "SELECT q.queue, key, q.until, q.until, q.owner, q.until FROM stored, "
            "(SELECT %s::text AS queue, COALESCE(%s::double precision, CAST(extract(epoch FROM "
            "clock_timestamp()) AS double precision)) + %s::double precision AS until, "
            "%s::text AS owner) AS q "
            "ON CONFLICT (queue, key) DO UPDATE SET due_at = EXCLUDED.due_at, "
            "ready_at = EXCLUDED.ready_at, owner = EXCLUDED.owner, "
            "lease_until = EXCLUDED.lease_until RETURNING key) "
            "SELECT key FROM stored"
        )

    def keys_params(self, keys: Sequence[str]) -> tuple[Any, ...]:
        """Parameters of :attr:`read`, :attr:`read_for_update` and :attr:`delete`."""
        return (list(keys),) if self._typed is not None else (self.name, list(keys))

    def rows_params(self, encoded: Mapping[str, tuple[str, dict[str, Any]]]) -> tuple[Any, ...]:
        """Parameters of :attr:`upsert` and :attr:`insert_absent`: ``encoded`` maps each key to
        its record's JSON text and the record itself (the typed columns are read from it)."""
        keys = list(encoded)
        texts = [text for text, _ in encoded.values()]
        if self._typed is None:
            return (self.name, keys, texts)
        columns = [self._typed.columns_of(record) for _, record in encoded.values()]
        return (keys, texts, *([row[name] for row in columns] for name in self._extra))
