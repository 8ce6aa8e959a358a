"""Copying a single-process SQLite state file into another store (PostgreSQL), idempotently.

Records are copied as stored: secrets inside them stay sealed (the target needs the same
``SUGGESTBOT_SECRET_KEYS`` to read them, and nothing is decrypted on the way). A record whose
key the target already holds is left alone, so running the copy again changes nothing, and a
copy interrupted half way is finished by running it again.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from suggestbot.store import codec, integrity
from suggestbot.store.base import Store, check_table_name
from suggestbot.store.codec import Record

BATCH = 500


@dataclass(frozen=True)
class TableCopy:
    """What copying one table did."""

    table: str
    found: int  # records in the SQLite file
    copied: int  # of those, written now (the rest the target already held)


def _store_tables(connection: sqlite3.Connection) -> list[str]:
    names = [
        name
        for (name,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
        )
    ]
    tables = []
    for name in names:
        try:
            check_table_name(name)
        except ValueError:
            continue  # not one of the store's tables
        tables.append(name)
    return tables


def _batches(connection: sqlite3.Connection, table: str) -> Iterator[dict[str, Record]]:
    batch: dict[str, Record] = {}
    # The name passed check_table_name: lowercase letters and '_' only.
    for key, value in connection.execute(f'SELECT key, value FROM "{table}" ORDER BY key'):
        batch[str(key)] = codec.decode(value)
        if len(batch) >= BATCH:
            yield batch
            batch = {}
    if batch:
        yield batch


def copy_sqlite_file(*, source: Path, target: Store) -> list[TableCopy]:
    """Copy every table of the SQLite state file ``source`` into ``target``.

    Reads one consistent snapshot of the file (stop the app that writes it first: what it
    writes after the snapshot is not copied).

    Raises:
        FileNotFoundError: there is no file at ``source``.
        StoreDamaged: the file fails SQLite's integrity check.
    """
    if not source.is_file():
        raise FileNotFoundError(f"no SQLite state file at {source}")
    integrity.check_file(source)
    report = []
    # Read-only: the copy never changes the file it moves away from.
    uri = f"{source.resolve().as_uri()}?mode=ro"
    with closing(sqlite3.connect(uri, uri=True)) as connection:
        connection.execute("BEGIN")  # one snapshot across all tables
        for table in _store_tables(connection):
            found = copied = 0
            for batch in _batches(connection, table):
                found += len(batch)
                copied += len(target.put_many_if_absent(table, batch))
            report.append(TableCopy(table=table, found=found, copied=copied))
        connection.execute("COMMIT")
    return report
