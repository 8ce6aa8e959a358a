"""Which Slack deliveries were already handled.

Slack retries a slash command, event or interaction when our acknowledgement is late or lost,
and it sends the same ``event_id`` again; handling it twice would create two runs. Entries live
in the store, so they are remembered across a restart, and for at least an hour, longer than
Slack's retry window.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from suggestbot.store.base import Store
from suggestbot.store.codec import Record

TABLE = "deliveries"
MIN_TTL_S = 3600.0


class DeliveryLog:
    """Answers "is this the first time we see this delivery?" atomically.

    Args:
        store: where entries are kept (table ``deliveries``).
        ttl_s: how long an entry counts; at least one hour.
        clock: wall-clock seconds; wall time rather than monotonic because entries must stay
            meaningful across a restart.
    """

    def __init__(
        self,
        store: Store,
        *,
        ttl_s: float = 3600 * 2,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if ttl_s < MIN_TTL_S:
            raise ValueError(f"ttl_s must be at least {MIN_TTL_S:.0f} s to cover Slack's retries")
        self._store = store
        self._ttl_s = ttl_s
        self._clock = clock

    def _expired(self, entry: Record | None, now: float) -> bool:
        seen = entry.get("at") if entry is not None else None
        if not isinstance(seen, int | float) or isinstance(seen, bool):
            return True  # missing or malformed: treat as never seen
        return now - seen >= self._ttl_s

    def first_time(self, key: str) -> bool:
        """Return True for the first call with ``key`` within the TTL, False for repeats.

        Exactly one of any number of concurrent callers with the same key gets True.
        """
        now = self._clock()
        first = False

        def claim(entry: Record | None) -> Record | None:
            nonlocal first
            first = self._expired(entry, now)
            return {"at": now} if first else entry

        self._store.update(TABLE, key, claim)
        return first

    def prune(self) -> int:
        """Delete the entries older than the TTL; return how many went."""
        now = self._clock()
        removed = 0

        def drop_if_expired(entry: Record | None) -> Record | None:
            nonlocal removed
            if entry is not None and self._expired(entry, now):
                removed += 1
                return None
            return entry

        for key, _ in self._store.items(TABLE):
            # Re-checked inside update: the entry may have been renewed since the snapshot.
            self._store.update(TABLE, key, drop_if_expired)
        return removed
