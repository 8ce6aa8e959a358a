"""In-memory :class:`~suggestbot.store.base.Store` for fast unit tests of the rest of the app.

Records are kept as encoded JSON text, not as the caller's dicts, so that values are checked,
copied and round-tripped exactly as the SQLite backend does it: a test that passes here does
not depend on aliasing that the real store would not have.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from suggestbot.store import codec
from suggestbot.store.codec import Record
from suggestbot.store.local import LocalStore


class MemoryStore(LocalStore):
    """A process-local store that forgets everything on exit."""

    def __init__(self) -> None:
        super().__init__()
        self._tables: dict[str, dict[str, str]] = {}

    def __repr__(self) -> str:
        return f"MemoryStore(tables={sorted(self._tables)})"

    def _raw_get(self, table: str, key: str) -> Record | None:
        text = self._tables.get(table, {}).get(key)
        return None if text is None else codec.decode(text)

    def _raw_put(self, table: str, key: str, value: Record) -> None:
        self._tables.setdefault(table, {})[key] = codec.encode(value)

    def _raw_delete(self, table: str, key: str) -> bool:
        return self._tables.get(table, {}).pop(key, None) is not None

    def _raw_items(self, table: str) -> list[tuple[str, Record]]:
        return [(key, codec.decode(text)) for key, text in self._tables.get(table, {}).items()]

    def _raw_write_many(
        self, table: str, puts: Mapping[str, Record], deletes: Collection[str]
    ) -> None:
        rows = self._tables.setdefault(table, {})
        rows.update((key, codec.encode(value)) for key, value in puts.items())
        for key in deletes:
            rows.pop(key, None)

    def _raw_close(self) -> None:
        self._tables.clear()
