"""SQLite backend: one file, one sqlitedict table per named table.

Choices, and why:

- ``autocommit=False`` with an explicit, blocking ``commit()`` after every write, so a write has
  reached the database file when the call returns (sqlitedict's own autocommit is
  fire-and-forget and would lose the last writes on a SIGKILL).
- WAL journal with ``PRAGMA synchronous=NORMAL`` on every connection: a commit appends to the
  write-ahead log and returns without an fsync (the log is synced at each checkpoint), so the
  delivery claim and the brief's record before an ack cost no disk flush. What it guarantees:
  a committed write is in the OS's page cache when the call returns, so it survives the
  process being killed (SIGKILL) and an orderly host restart; a power cut or kernel crash may
  lose the last commits since the previous checkpoint, never the file's consistency. ``FULL``
  would also cover power loss at one fsync per commit; the promise is about the process dying
  and the host restarting, and with ``FULL`` the brief's ack kept less of the bare app's
  throughput (0.73-0.96x against 0.81-1.01x, bench ``ack_latency.py``). The old rollback
  journal (``DELETE``) cost several fsyncs and a file created and removed per commit:
  0.49-0.53x. The ``-wal`` and ``-shm`` files live beside the database while it is open
  (SQLite folds them back in when the last connection closes); copy it with
  ``suggestbot backup``, never with ``cp``.
- A batch (``put_many``, ``update_many``, ...) is one transaction of one table, so one commit
  however many rows it writes.
- Values go through :mod:`suggestbot.store.codec` (JSON text), never pickle.
- A read followed by a write (``update``, ``put_if_absent``…) runs inside ``BEGIN IMMEDIATE``:
  the process lock covers this process's threads, SQLite's write lock covers another process
  on the same file (``suggestbot rotate-keys`` while the app runs), so neither loses the
  other's update.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, cast

from sqlitedict import SqliteDict

from suggestbot.store import codec, integrity
from suggestbot.store.codec import Record
from suggestbot.store.local import LocalStore

DB_FILENAME = "suggestbot.sqlite"
# See the module docstring for what this pair guarantees and why.
JOURNAL_MODE = "WAL"
SYNCHRONOUS = "NORMAL"
# Keys per ``IN (...)`` query when reading a batch (SQLite allows 999 parameters at least).
_KEYS_PER_QUERY = 500


class SqliteStore(LocalStore):
    """A :class:`~suggestbot.store.base.Store` in the SQLite file at ``path``.

    The file is created (mode 0600: it holds encrypted tokens and private state) if missing;
    its directory must exist. Tables are opened on first use.
    """

    def __init__(self, path: Path) -> None:
        super().__init__()
        self._path = Path(path)
        # Fail at start-up, not at the first Slack event, if the file is damaged.
        integrity.check_file(self._path)
        self._path.touch(mode=0o600, exist_ok=True)
        self._tables: dict[str, Any] = {}
        self._marked = False
        self._committed = False

    @property
    def path(self) -> Path:
        return self._path

    def __repr__(self) -> str:
        return f"SqliteStore({str(self._path)!r})"

    def _table(self, table: str) -> Any:
        db = self._tables.get(table)
        if db is None:
            db = SqliteDict(
                str(self._path),
                tablename=table,
                flag="c",
                autocommit=False,
                journal_mode=JOURNAL_MODE,
                encode=codec.encode,
                decode=codec.decode,
                outer_stack=False,
            )
            db.conn.execute(f"PRAGMA synchronous={SYNCHRONOUS}")
            db.commit()
            self._tables[table] = db
            if not self._marked:  # the file holds a table now: its loss must not go unseen
                integrity.mark_state(self._path)
                self._marked = True
        return db

    @contextmanager
    def _read_then_write(self, table: str) -> Iterator[None]:
        db = self._table(table)
        db.conn.select_one("BEGIN IMMEDIATE")
        self._committed = False
        try:
            yield
        finally:
            # Nothing written (or it failed): end the transaction. SQLite may have ended it
            # already after an error; the first error is the one to keep.
            if not self._committed:
                with suppress(sqlite3.Error):
                    db.conn.select_one("ROLLBACK")

    def _raw_get(self, table: str, key: str) -> Record | None:
        try:
            return cast(Record, self._table(table)[key])
        except KeyError:
            return None

    def _raw_put(self, table: str, key: str, value: Record) -> None:
        db = self._table(table)
        db[key] = value
        db.commit()
        self._committed = True

    def _raw_delete(self, table: str, key: str) -> bool:
        db = self._table(table)
        try:
            del db[key]
        except KeyError:
            return False
        db.commit()
        return True

    def _raw_get_many(self, table: str, keys: Collection[str]) -> dict[str, Record]:
        # One query per chunk instead of a round trip to sqlitedict's thread per key.
        db = self._table(table)
        wanted = list(keys)
        found: dict[str, Record] = {}
        for start in range(0, len(wanted), _KEYS_PER_QUERY):
            chunk = wanted[start : start + _KEYS_PER_QUERY]
            query = 'SELECT key, value FROM "{}" WHERE key IN ({})'.format(
                db.tablename, ", ".join("?" * len(chunk))
            )
            for key, value in db.conn.select(query, tuple(chunk)):
                found[key] = codec.decode(value)
        return found

    def _raw_write_many(
        self, table: str, puts: Mapping[str, Record], deletes: Collection[str]
    ) -> None:
        db = self._table(table)
        if puts:
            db.update(puts)  # REPLACE INTO row by row, inside the one transaction
        for key in deletes:
            del db[key]
        db.commit()
        self._committed = True

    def _raw_items(self, table: str) -> list[tuple[str, Record]]:
        return cast(list[tuple[str, Record]], list(self._table(table).items()))

    def _raw_close(self) -> None:
        tables, self._tables = self._tables, {}
        for db in tables.values():
            db.close()


def open_store(data_dir: Path) -> SqliteStore:
    """Open the app's store in ``data_dir`` (``SUGGESTBOT_DATA_DIR``), creating the directory."""
    data_dir = Path(data_dir)
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    return SqliteStore(data_dir / DB_FILENAME)
