"""What the store keeps on disk, for tests that look for secrets at rest."""

from __future__ import annotations

from pathlib import Path


def at_rest(db: Path) -> bytes:
    """The state file and its write-ahead log: everything the store keeps on disk (with WAL,
    the newest records are in the log until a checkpoint moves them into the file)."""
    wal = Path(f"{db}-wal")
    return db.read_bytes() + (wal.read_bytes() if wal.exists() else b"")
