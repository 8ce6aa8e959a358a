"""Shared logic of the single-process backends (SQLite and in-memory).

Both make every operation atomic with one re-entrant lock held across the read and the write,
which is all a single process needs and keeps the two backends behaving identically; the
backends only provide the raw table operations. Re-entrant so that an ``update`` function
that happens to read the store does not deadlock.
"""

from __future__ import annotations

import threading
from abc import abstractmethod
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager

from suggestbot.store import codec
from suggestbot.store.base import Claim, Store, Updater, check_key, check_table_name, plan_updates
from suggestbot.store.codec import Record
from suggestbot.store.lease_book import LeaseBook


class LocalStore(Store):
    """A :class:`Store` for one process; subclasses implement the ``_raw_*`` operations.

    The ``_raw_*`` methods are only called with the lock held, a valid table name and a str
    key; ``_raw_put``, ``_raw_delete`` and ``_raw_write_many`` must be durable when they return.
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._closed = False
        self._leases: dict[str, LeaseBook] = {}

    @abstractmethod
    def _raw_get(self, table: str, key: str) -> Record | None: ...

    @abstractmethod
    def _raw_put(self, table: str, key: str, value: Record) -> None: ...

    @abstractmethod
    def _raw_delete(self, table: str, key: str) -> bool: ...

    @abstractmethod
    def _raw_items(self, table: str) -> list[tuple[str, Record]]: ...

    def _raw_get_many(self, table: str, keys: Collection[str]) -> dict[str, Record]:
        """The records of those ``keys`` that exist (a backend may read them in one query)."""
        found: dict[str, Record] = {}
        for key in keys:
            record = self._raw_get(table, key)
            if record is not None:
                found[key] = record
        return found

    @abstractmethod
    def _raw_write_many(
        self, table: str, puts: Mapping[str, Record], deletes: Collection[str]
    ) -> None:
        """Store ``puts`` and remove ``deletes`` (keys known to exist) in one commit."""

    @abstractmethod
    def _raw_close(self) -> None: ...

    @contextmanager
    def _read_then_write(self, table: str) -> Iterator[None]:
        """Around a read followed by a write of ``table``: the lock already makes it atomic in
        this process; a backend another process can write to also locks out that process."""
        yield

    def _check(self, table: str, key: str | None = None) -> None:
        if self._closed:
            raise RuntimeError(f"{type(self).__name__} is closed")
        check_table_name(table)
        if key is not None:
            check_key(key)

    def get(self, table: str, key: str) -> Record | None:
        with self._lock:
            self._check(table, key)
            return self._raw_get(table, key)

    def put(self, table: str, key: str, value: Record) -> None:
        codec.encode(value)  # reject bad values before taking the lock
        with self._lock:
            self._check(table, key)
            self._raw_put(table, key, value)

    def delete(self, table: str, key: str) -> bool:
        with self._lock:
            self._check(table, key)
            return self._raw_delete(table, key)

    def items(self, table: str) -> list[tuple[str, Record]]:
        with self._lock:
            self._check(table)
            return sorted(self._raw_items(table), key=lambda pair: pair[0])

    def put_if_absent(self, table: str, key: str, value: Record) -> bool:
        codec.encode(value)
        with self._lock:
            self._check(table, key)
            with self._read_then_write(table):
                if self._raw_get(table, key) is not None:
                    return False
                self._raw_put(table, key, value)
                return True

    def update(self, table: str, key: str, fn: Updater) -> Record | None:
        return self.update_many(table, {key: fn})[key]

    def put_many(self, table: str, items: Mapping[str, Record]) -> None:
        self._check_items(table, items)
        with self._lock:
            self._check(table)
            if items:
                self._raw_write_many(table, items, ())

    def put_many_if_absent(self, table: str, items: Mapping[str, Record]) -> list[str]:
        self._check_items(table, items)
        with self._lock:
            self._check(table)
            with self._read_then_write(table):
                taken = self._raw_get_many(table, items)
                free = {k: v for k, v in items.items() if k not in taken}
                if free:
                    self._raw_write_many(table, free, ())
                return list(free)

    def update_many(self, table: str, updates: Mapping[str, Updater]) -> dict[str, Record | None]:
        self._check_keys(table, updates)
        with self._lock:
            self._check(table)
            with self._read_then_write(table):
                return self._update_many_locked(table, updates)

    def _update_many_locked(
        self, table: str, updates: Mapping[str, Updater]
    ) -> dict[str, Record | None]:
        plan = plan_updates(self._raw_get_many(table, updates), updates)
        if plan.puts or plan.deletes:
            self._raw_write_many(table, plan.puts, plan.deletes)
        return plan.results

    def _check_keys(self, table: str, keys: Collection[str]) -> None:
        check_table_name(table)
        for key in keys:
            check_key(key)

    def _check_items(self, table: str, items: Mapping[str, Record]) -> None:
        """Reject a bad key or value of a batch before taking the lock: all or nothing."""
        self._check_keys(table, items)
        for value in items.values():
            codec.encode(value)

    # --- leases (kept in the process: see ``lease_book``) -----------------------------------

    def _book(self, queue: str, keys: Collection[str] = ()) -> LeaseBook:
        """The queue's lease book; the caller holds the lock."""
        self._check(queue)
        for key in keys:
            check_key(key)
        return self._leases.setdefault(queue, LeaseBook())

    def schedule(self, queue: str, key: str, *, due_at: float, if_absent: bool = False) -> bool:
        with self._lock:
            return self._book(queue, (key,)).schedule(key, due_at=due_at, if_absent=if_absent)

    def schedule_many(
        self, queue: str, due: Mapping[str, float], *, if_absent: bool = False
    ) -> list[str]:
        with self._lock:
            return self._book(queue, due).schedule_many(due, if_absent=if_absent)

    def unschedule(self, queue: str, key: str) -> bool:
        with self._lock:
            return self._book(queue, (key,)).unschedule(key)

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
        with self._lock:
            return self._book(queue).claim_due(
                owner=owner, now=now, due_by=due_by, lease_s=lease_s, limit=limit, share=share
            )

    def claim_keys(
        self, queue: str, keys: Collection[str], *, owner: str, now: float, lease_s: float
    ) -> list[str]:
        with self._lock:
            book = self._book(queue, keys)
            return book.claim_keys(keys, owner=owner, now=now, lease_s=lease_s)

    def renew(
        self, queue: str, keys: Collection[str], *, owner: str, now: float, lease_s: float
    ) -> list[str]:
        with self._lock:
            return self._book(queue, keys).renew(keys, owner=owner, now=now, lease_s=lease_s)

    def release(self, queue: str, key: str, *, owner: str, due_at: float | None) -> bool:
        with self._lock:
            return self._book(queue, (key,)).release(key, owner=owner, due_at=due_at)

    def release_many(
        self,
        queue: str,
        due: Mapping[str, float],
        *,
        owner: str,
        groups: Mapping[str, str] | None = None,
    ) -> list[str]:
        if groups:
            for group in groups.values():
                check_key(group)
        with self._lock:
            return self._book(queue, due).release_many(due, owner=owner, groups=groups)

    def schedule_grouped(
        self,
        queue: str,
        due: Mapping[str, float],
        *,
        groups: Mapping[str, str],
        if_absent: bool = False,
    ) -> list[str]:
        with self._lock:
            book = self._book(queue, due)
            return book.schedule_grouped(due, groups=groups, if_absent=if_absent)

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
        with self._lock:
            return self._book(queue).claim_due_grouped(
                owner=owner,
                now=now,
                due_by=due_by,
                lease_s=lease_s,
                limit=limit,
                share=share,
            )

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
        check_key(group)
        with self._lock:
            return self._book(queue).claim_group_free(
                group, owner=owner, now=now, due_by=due_by, lease_s=lease_s, limit=limit
            )

    def holders(self, queue: str, *, now: float) -> int:
        with self._lock:
            return self._book(queue).holders(now=now)

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._raw_close()
