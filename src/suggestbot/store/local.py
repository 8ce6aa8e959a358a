"""Shared logic of the single-process backends (SQLite and in-memory).

Both make every operation atomic with one re-entrant lock held across the read and the write,
which is all a single process needs and keeps the two backends behaving identically; the
backends only provide the raw table operations. Re-entrant so that an ``update`` function
that happens to read the store does not deadlock.
"""

from __future__ import annotations

import threading
from abc import abstractmethod

from suggestbot.store import codec
from suggestbot.store.base import Store, Updater, check_key, check_table_name
from suggestbot.store.codec import Record


class LocalStore(Store):
    """A :class:`Store` for one process; subclasses implement the ``_raw_*`` operations.

    The ``_raw_*`` methods are only called with the lock held, a valid table name and a str
    key; ``_raw_put`` and ``_raw_delete`` must be durable when they return.
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._closed = False

    @abstractmethod
    def _raw_get(self, table: str, key: str) -> Record | None: ...

    @abstractmethod
    def _raw_put(self, table: str, key: str, value: Record) -> None: ...

    @abstractmethod
    def _raw_delete(self, table: str, key: str) -> bool: ...

    @abstractmethod
    def _raw_items(self, table: str) -> list[tuple[str, Record]]: ...

    @abstractmethod
    def _raw_close(self) -> None: ...

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
            if self._raw_get(table, key) is not None:
                return False
            self._raw_put(table, key, value)
            return True

    def update(self, table: str, key: str, fn: Updater) -> Record | None:
        with self._lock:
            self._check(table, key)
            old = self._raw_get(table, key)
            old_text = None if old is None else codec.encode(old)
            new = fn(old)
            if new is None:
                if old is not None:
                    self._raw_delete(table, key)
                return None
            # Compare encodings, not dicts: True == 1 in Python but not in the stored JSON.
            if codec.encode(new) != old_text:
                self._raw_put(table, key, new)
            return new

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._raw_close()
