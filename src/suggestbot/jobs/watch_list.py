"""When each watched run is next due for a poll, and which requests are being polled now.

One entry per request. Polls are taken out in batches (everything due, plus what falls due
within a short horizon, so that one listing sweep serves many runs), and a request taken out is
*busy* until its poller releases it: it is never handed to two pollers at once. A wish to watch
a busy request (its poller scheduling the next poll, or a flow asking for one) is kept aside and
joins the list when the request is released.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Due:
    """A request whose poll was taken out, and when that poll was due."""

    request_id: str
    at: float


class WatchList:
    """Thread-safe: flows add and remove entries, a watch thread takes them out."""

    def __init__(self) -> None:
        self._due_at: dict[str, float] = {}  # idle requests: when due
        self._heap: list[tuple[float, int, str]] = []  # may hold stale entries
        self._order = itertools.count()
        self._busy: set[str] = set()
        self._after_busy: dict[str, float] = {}  # wishes for busy requests
        self._changed = threading.Condition()

    def __len__(self) -> int:
        with self._changed:
            return len(self._due_at) + len(self._after_busy)

    def put(self, request_id: str, at: float) -> None:
        """Poll ``request_id`` at ``at`` (epoch seconds), replacing any earlier wish."""
        with self._changed:
            if request_id in self._busy:
                self._after_busy[request_id] = at
                return
            self._push(request_id, at)

    def discard(self, request_id: str) -> None:
        with self._changed:
            self._due_at.pop(request_id, None)
            self._after_busy.pop(request_id, None)

    def is_busy(self, request_id: str) -> bool:
        with self._changed:
            return request_id in self._busy

    def due_at(self, request_id: str) -> float | None:
        with self._changed:
            return self._due_at.get(request_id, self._after_busy.get(request_id))

    def take(self, *, until: float, once_due: float | None = None) -> list[Due]:
        """Every idle entry due by ``until``, earliest first, each marked busy.

        With ``once_due``, nothing unless some entry is due by then: entries due a little
        later are taken together with one that is due, never on their own (so a batch covers
        the whole window ``until`` allows, not a sliver of it).
        """
        with self._changed:
            if once_due is not None:
                self._drop_stale_top()
                if not self._heap or self._heap[0][0] > once_due:
                    return []
            taken: list[Due] = []
            while self._heap and self._heap[0][0] <= until:
                at, _, request_id = heapq.heappop(self._heap)
                if self._due_at.get(request_id) != at:
                    continue  # replaced or discarded since
                del self._due_at[request_id]
                self._busy.add(request_id)
                taken.append(Due(request_id, at))
            return taken

    def claim(self, request_id: str) -> bool:
        """Take out one idle entry before it is due (its run was seen finished); False if it
        is not watched or is busy."""
        with self._changed:
            if request_id in self._busy or self._due_at.pop(request_id, None) is None:
                return False
            self._busy.add(request_id)
            return True

    def release(self, request_ids: Iterable[str]) -> None:
        """Their polls have finished; a wish made meanwhile joins the list."""
        with self._changed:
            for request_id in request_ids:
                self._busy.discard(request_id)
                at = self._after_busy.pop(request_id, None)
                if at is not None:
                    self._push(request_id, at)

    def wait(self, *, now: float, at_most_s: float) -> None:
        """Sleep until the earliest entry is due (from ``now``), something changes, or
        ``at_most_s`` has passed."""
        with self._changed:
            self._drop_stale_top()
            earliest = self._heap[0][0] if self._heap else None
            delay = at_most_s if earliest is None else min(earliest - now, at_most_s)
            if delay > 0:
                self._changed.wait(delay)

    def wake(self) -> None:
        with self._changed:
            self._changed.notify_all()

    def _push(self, request_id: str, at: float) -> None:
        self._due_at[request_id] = at
        heapq.heappush(self._heap, (at, next(self._order), request_id))
        self._changed.notify_all()

    def _drop_stale_top(self) -> None:
        while self._heap and self._due_at.get(self._heap[0][2]) != self._heap[0][0]:
            heapq.heappop(self._heap)
