"""``suggestbot backup PATH``: a consistent copy of the live state file, while the app runs.

Uses SQLite's online backup API (see :func:`suggestbot.store.backup`). To restore: stop the app,
copy the backup over ``suggestbot.sqlite`` in ``SUGGESTBOT_DATA_DIR``, start the app.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

from suggestbot.config import Settings
from suggestbot.store import backup
from suggestbot.store.sqlite import DB_FILENAME


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="suggestbot backup",
        description="Write a consistent copy of the live state file to PATH while the app "
        "runs (SQLite's online backup). To restore: stop the app, copy the backup over "
        f"{DB_FILENAME} in SUGGESTBOT_DATA_DIR, start the app.",
    )
    parser.add_argument("path", type=Path, help="file (or directory) to write the copy to")
    args = parser.parse_args(argv)
    settings = Settings()
    if settings.database_url:
        print(
            "suggestbot backup: the state is in PostgreSQL (SUGGESTBOT_DATABASE_URL); back it "
            "up with PostgreSQL's own tools (pg_dump, or the server's continuous archiving)",
            file=sys.stderr,
        )
        return 2
    source = settings.suggestbot_data_dir / DB_FILENAME
    try:
        written = backup(source=source, target=args.path)
    except (OSError, sqlite3.Error) as exc:
        print(f"suggestbot backup: {exc}", file=sys.stderr)
        return 1
    print(f"backed up {source} to {written}")
    return 0
