"""Where in a workspace's run listing each watched run was last met: the cursor of its page.

The contract lists runs newest first and its cursor records a position, not a snapshot: the
page a cursor asks for holds the runs just older than that position, whatever was created
since (new runs go before it, and runs are never removed). So a run met on the page of cursor
``c`` is met again on the page of ``c``, and its next poll reads that one page instead of
walking every page newer than it. Runs due at about the same time were created at about the
same time and sit on the same page, so one page read serves them together: at 5,000 watched
runs that is about one request per 100 polls, where a walk from the first page reads every
page before the one it needs.

Runs met on the first page (no cursor) are not placed: that page moves as runs are created,
and they are found again by the first pages of a walk from the top.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable


class RunPositions:
    """Thread-safe map of run id -> the cursor of the page it was last met on.

    ``keep`` says which runs are worth remembering (those watched here); the map never holds
    more than ``limit`` runs (past it, it starts again empty: a walk places them again).
    """

    def __init__(self, *, keep: Callable[[str], bool] = lambda run_id: True, limit: int = 200_000):
        self._cursor: dict[str, str] = {}
        self._keep = keep
        self._limit = limit
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._cursor)

    def cursor(self, run_id: str) -> str | None:
        """The cursor whose page showed the run last, or None when it is not placed."""
        with self._lock:
            return self._cursor.get(run_id)

    def met(self, run_ids: Iterable[str], cursor: str | None) -> None:
        """These runs were on the page ``cursor`` asked for (None: the first page)."""
        with self._lock:
            for run_id in run_ids:
                if cursor is None or not self._keep(run_id):
                    self._cursor.pop(run_id, None)
                else:
                    self._cursor[run_id] = cursor
            if len(self._cursor) > self._limit:
                self._cursor.clear()

    def forget(self, run_ids: Iterable[str]) -> None:
        """No longer placed: no longer watched, or not on the page its cursor asked for."""
        with self._lock:
            for run_id in run_ids:
                self._cursor.pop(run_id, None)
