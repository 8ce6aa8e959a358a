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
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
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


def check_table_name(table: str) -> None:
    """Reject table names other than ``[a-z_]+``; they end up inside SQL identifiers."""
    if not isinstance(table, str) or not _TABLE_NAME.fullmatch(table):
        raise ValueError(f"invalid table name {table!r}: use lowercase letters and '_' only")


def check_key(key: str) -> None:
    """Reject non-string keys early, with a message that names the type only."""
    if not isinstance(key, str):
        raise TypeError(f"store keys must be str, not {type(key).__name__}")


class Store(ABC):
    """Named tables of JSON records.

    Every write is durable when the call returns (it survives the process being killed right
    after), every method is safe to call from several threads at once, and records read back
    are fresh copies that callers may mutate freely.
    """

    @abstractmethod
    def get(self, table: str, key: str) -> Record | None:
        """Return the record stored under ``key``, or None."""

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
