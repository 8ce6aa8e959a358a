"""What one digest wave did: logged by the job, read by tests and the benchmark."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field


@dataclass
class WaveReport:
    """Counts of one wave; lanes count into it from several threads through :meth:`add` and
    :meth:`record`."""

    due: int = 0
    reads: int = 0
    posted: int = 0  # digests with content
    lines: int = 0  # short "nothing new" lines
    quiet: int = 0  # nothing posted, by the digest's setting
    recovered: int = 0  # found already posted by a wave that died
    already: int = 0
    elsewhere: int = 0  # posted by another replica running the same wave
    failed: int = 0
    paused: int = 0
    late: int = 0
    mints: int = 0
    outcomes: dict[str, str] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, counter: str, count: int = 1) -> None:
        """Add ``count`` to the counter named ``counter`` (safe from every lane's thread)."""
        with self._lock:
            setattr(self, counter, getattr(self, counter) + count)

    def record(self, digest_id: str, outcome: str, *, late: bool) -> None:
        """Count one digest's outcome (the name of its counter)."""
        with self._lock:
            self.outcomes[digest_id] = outcome
            setattr(self, outcome, getattr(self, outcome) + 1)
            if late and outcome in ("posted", "lines"):
                self.late += 1

    def summary(self) -> str:
        """One line for the log."""
        return (
            f"{self.due} due, {self.reads} read(s), {self.posted} posted, {self.lines} line(s), "
            f"{self.quiet} quiet, {self.recovered} recovered, {self.failed} failed, "
            f"{self.paused} paused"
        )
