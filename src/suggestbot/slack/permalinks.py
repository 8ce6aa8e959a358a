"""Permalinks fetched once: a message's link never changes, so it is asked for only where a
link is shown, and kept (a bounded map, the least recently used leaving first)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

# Enough for the Home of every active person many times over; a link is ~80 bytes.
MAX_LINKS = 20_000


class Permalinks:
    def __init__(self, *, max_links: int = MAX_LINKS) -> None:
        self._max = max_links
        self._links: OrderedDict[tuple[str, str, str], str] = OrderedDict()
        self._lock = threading.Lock()

    def get(
        self, *, workspace: str, channel: str, ts: str, fetch: Callable[[], str | None]
    ) -> str | None:
        """The message's link, fetched (``fetch``) only the first time."""
        key = (workspace, channel, ts)
        with self._lock:
            link = self._links.get(key)
            if link is not None:
                self._links.move_to_end(key)
                return link
        link = fetch()
        if link:
            with self._lock:
                self._links[key] = link
                while len(self._links) > self._max:
                    self._links.popitem(last=False)
        return link

    def __len__(self) -> int:
        with self._lock:
            return len(self._links)
