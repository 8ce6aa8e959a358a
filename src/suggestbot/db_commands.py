"""``suggestbot db …``: the PostgreSQL database's schema, and moving an install into it.

- ``db upgrade`` applies the schema migrations this version ships (``serve`` refuses to start
  on a schema that is behind, and says to run this).
- ``db migrate-from-sqlite PATH`` copies a single-process install's SQLite state file into
  PostgreSQL: every table, secrets still sealed, idempotently, with counts per table.

Both read ``SUGGESTBOT_DATABASE_URL`` like the app does.
"""

from __future__ import annotations

import argparse
import logging
import sqlite3
import sys
from pathlib import Path

from suggestbot.config import Settings
from suggestbot.logs import configure_logging, register_secret
from suggestbot.store import SchemaNotCurrent, StoreDamaged, StoreError
from suggestbot.store.sqlite import DB_FILENAME

PROG = "suggestbot db"


def _fail(message: str) -> int:
    print(f"{PROG}: {message}", file=sys.stderr)
    return 2


def _upgrade(url: str) -> int:
    from suggestbot.store.postgres import PostgresStore

    with PostgresStore(url, check_schema=False) as store:
        before, after = store.upgrade_schema()
    if before == after:
        print(f"the schema is up to date (revision {after})")
    else:
        print(f"upgraded the schema from revision {before or '(none)'} to {after}")
    return 0


def _migrate(url: str, path: Path) -> int:
    from suggestbot.store.postgres import PostgresStore
    from suggestbot.store.sqlite_copy import copy_sqlite_file

    source = path / DB_FILENAME if path.is_dir() else path
    with PostgresStore(url) as target:
        report = copy_sqlite_file(source=source, target=target)
    width = max((len(entry.table) for entry in report), default=5)
    for entry in report:
        print(
            f"{entry.table:<{width}}  {entry.found:>7} record(s): {entry.copied} copied, "
            f"{entry.found - entry.copied} already there"
        )
    copied = sum(entry.copied for entry in report)
    print(f"{len(report)} table(s) from {source}: {copied} record(s) copied")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("upgrade", help="apply the schema migrations this version ships")
    migrate = commands.add_parser(
        "migrate-from-sqlite",
        help="copy a SQLite state file (or SUGGESTBOT_DATA_DIR) into PostgreSQL",
    )
    migrate.add_argument("path", type=Path, help=f"the {DB_FILENAME} file or its directory")
    args = parser.parse_args(argv)

    settings = Settings()
    configure_logging(level=settings.log_level, json=settings.log_json)
    # Alembic narrates every schema check at INFO; this command prints what it did itself.
    logging.getLogger("alembic").setLevel(logging.WARNING)
    url = settings.database_url
    if not url:
        return _fail("set SUGGESTBOT_DATABASE_URL=postgresql://user:password@host:port/database")
    register_secret(url)
    try:
        if args.command == "upgrade":
            return _upgrade(url)
        return _migrate(url, args.path)
    except (ValueError, SchemaNotCurrent, StoreError, StoreDamaged, FileNotFoundError) as exc:
        return _fail(str(exc))
    except sqlite3.Error as exc:
        return _fail(f"cannot read the SQLite file: {exc}")
