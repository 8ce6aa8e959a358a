"""A memory store on which a read of a whole table fails the test, for the tests that show a
request path reads only by index (tests/flows/test_indexed_reads.py and others)."""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager

from suggestbot.store import MemoryStore
from suggestbot.store.base import Scalar
from suggestbot.store.codec import Record


class NoWholeTables(MemoryStore):
    """A memory store on which reading a whole table fails the test (indexed reads pass)."""

    def __init__(self) -> None:
        super().__init__()
        self.allowed: set[str] = set()  # tables a test still lets be read whole
        self.guarding = False
        self._indexed = threading.local()

    @contextmanager
    def _by_index(self) -> Iterator[None]:
        self._indexed.on = True
        try:
            yield
        finally:
            self._indexed.on = False

    def items(self, table: str) -> list[tuple[str, Record]]:
        whole = not getattr(self._indexed, "on", False)
        if self.guarding and whole and table not in self.allowed:
            raise AssertionError(f"the whole table {table!r} was read")
        return super().items(table)

    def items_where(
        self, table: str, field: str, values: Collection[str]
    ) -> list[tuple[str, Record]]:
        with self._by_index():
            return super().items_where(table, field, values)

    def items_matching(
        self,
        table: str,
        *,
        where: Mapping[str, Collection[Scalar]],
        at_most: Mapping[str, float] | None = None,
        newest_by: str | None = None,
        limit: int | None = None,
    ) -> list[tuple[str, Record]]:
        with self._by_index():
            return super().items_matching(
                table, where=where, at_most=at_most, newest_by=newest_by, limit=limit
            )

    def items_matching_any(
        self, table: str, wheres: Sequence[Mapping[str, Collection[Scalar]]]
    ) -> list[tuple[str, Record]]:
        with self._by_index():
            return super().items_matching_any(table, wheres)
