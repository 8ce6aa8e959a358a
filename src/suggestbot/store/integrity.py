"""Catching a damaged or vanished state file at start, and copying the live file safely.

A damaged SQLite file can open and answer simple reads while holding garbage, so the app would
start, report itself healthy and fail later on the first brief that touches a bad page. At
start, ``PRAGMA quick_check`` reads every page; a file that fails it stops the start with what
to do. A state file that is missing or empty where one existed before is just as serious but
looks like a fresh install, so a marker file beside it (``suggestbot.sqlite.had-state``) records
that the store once held tables; without it there is nothing to miss.

:func:`backup` uses SQLite's online backup API: a consistent copy taken while the app keeps
writing (a plain file copy can catch a transaction half written).
"""

from __future__ import annotations

import logging
import os
import sqlite3
from pathlib import Path

log = logging.getLogger(__name__)

MARKER_SUFFIX = ".had-state"
_MARKER_TEXT = (
    "suggestbot keeps this file beside its state file to know that the state file once held\n"
    "data: if that file is then missing or empty, the app warns loudly at start instead of\n"
    "starting afresh in silence. Delete it together with the state file to start afresh.\n"
)


class StoreDamaged(sqlite3.DatabaseError):
    """The state file fails SQLite's integrity check; the message says what to do."""


def marker_path(path: Path) -> Path:
    """Where the marker beside the state file at ``path`` is kept."""
    return path.with_name(path.name + MARKER_SUFFIX)


def check_file(path: Path) -> None:
    """Check the state file at ``path`` before the app uses it.

    Raises:
        StoreDamaged: the file is not a healthy SQLite database.
    Logs a WARNING when the file is missing or empty although the marker says it held state.
    """
    marker = marker_path(path)
    size = path.stat().st_size if path.exists() else None
    if not size:
        if marker.exists():
            log.warning(
                "the state file %s is %s, but it held state before (%s exists): linked users, "
                "watched runs, subscriptions and kept briefs are gone. If that is unexpected, "
                "stop the app and restore the file from a backup ('suggestbot backup PATH' "
                "makes one); to start afresh on purpose, delete %s",
                path,
                "missing" if size is None else "empty (0 bytes)",
                marker.name,
                marker.name,
            )
        return
    problem = _quick_check(path)
    if problem is not None:
        raise StoreDamaged(
            f"the state file {path} is damaged ({problem}). Stop the app, then either restore "
            f"it from a backup made with 'suggestbot backup PATH' (copy the backup over {path}) "
            f"or move the damaged file aside (e.g. to {path.name}.damaged) to start with an "
            "empty state; keep the damaged file for investigation"
        )
    mark_state(path)


def _quick_check(path: Path) -> str | None:
    """SQLite's first complaint about the file, or None when it is sound."""
    try:
        # Read-write, not read-only: after a crash mid-transaction the file comes with a hot
        # journal, which only a connection that may write can roll back (a read-only one
        # would call a merely interrupted file damaged).
        conn = sqlite3.connect(f"file:{path}?mode=rw", uri=True)
        try:
            rows = conn.execute("PRAGMA quick_check").fetchall()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        return str(exc)
    if rows == [("ok",)]:
        return None
    return str(rows[0][0]) if rows else "no answer to the integrity check"


def mark_state(path: Path) -> None:
    """Record beside ``path`` that it holds state (idempotent)."""
    marker = marker_path(path)
    if not marker.exists():
        marker.write_text(_MARKER_TEXT, encoding="utf-8")


def backup(*, source: Path, target: Path) -> Path:
    """Copy the live database ``source`` to ``target`` consistently; returns the file written.

    ``target`` may be a directory (the copy is named after ``source``). The copy is written
    beside the target first and renamed into place only once it passed ``quick_check``, so a
    failed backup never leaves a half-written file where a good one is expected.
    """
    if not source.exists() or source.stat().st_size == 0:
        raise FileNotFoundError(f"there is no state to back up at {source}")
    if target.is_dir():
        target = target / source.name
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # holds tokens
    os.close(fd)
    src = sqlite3.connect(f"file:{source}?mode=rw", uri=True)  # see _quick_check
    dst = sqlite3.connect(partial)
    try:
        # One step (pages=-1): the whole copy under one read lock, so it is one consistent
        # state even while the app writes (its writers wait, as for any long read).
        src.backup(dst)
        dst.execute("PRAGMA journal_mode=DELETE")
    finally:
        src.close()
        dst.close()
    problem = _quick_check(partial)
    if problem is not None:
        partial.unlink(missing_ok=True)
        raise StoreDamaged(f"the backup copy failed its integrity check ({problem})")
    with open(partial, "rb") as copy:
        os.fsync(copy.fileno())
    os.replace(partial, target)
    return target
