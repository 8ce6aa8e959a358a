"""Which Slack deliveries were already handled.

Slack retries a slash command, event or interaction when our acknowledgement is late or lost,
and it sends the same ``event_id`` again; handling it twice would create two runs. Entries live
in the store, so they are remembered across a restart, and for at least an hour, longer than
Slack's retry window.

An entry can also carry the delivery itself (``pending_enc``, sealed by the caller) until its work
is finished: Slack never resends an interaction it had an answer for, so the claim that is
written before the ack is also what a restart carries out when the process died after it.
Claim and record are one write, keeping the ack cheap; on SQLite that write is a WAL commit
without an fsync, which a SIGKILL or a host restart cannot undo (see ``store.sqlite``).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from suggestbot.store.base import Store
from suggestbot.store.codec import Record

TABLE = "deliveries"
# The sealed delivery; named like every encrypted field, so that key rotation finds it.
PENDING = "pending_enc"
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

    def first_time(self, key: str, *, pending: str | None = None) -> bool:
        """Return True for the first call with ``key`` within the TTL, False for repeats.

        Exactly one of any number of concurrent callers with the same key gets True. With
        ``pending`` (the delivery, as the caller wants it kept), the claim also records it as
        unfinished, in the same write, until :meth:`finish`.
        """
        now = self._clock()
        entry: Record = {"at": now, PENDING: pending} if pending is not None else {"at": now}
        # Nearly every delivery is new: one insert claims it (on PostgreSQL one round trip
        # instead of a locked read and a write). Only a key already there needs the read.
        if self._store.put_if_absent(TABLE, key, entry):
            return True
        first = False

        def claim(old: Record | None) -> Record | None:
            nonlocal first
            first = self._expired(old, now)
            return entry if first else old

        self._store.update(TABLE, key, claim)
        return first

    def finish(self, key: str) -> None:
        """The delivery's work is done: forget what was kept (the claim itself stays)."""

        def drop_pending(entry: Record | None) -> Record | None:
            if entry is None or PENDING not in entry:
                return entry
            return {k: v for k, v in entry.items() if k not in (PENDING, "attempts")}

        self._store.update(TABLE, key, drop_pending)

    def unfinished(self) -> list[tuple[str, str]]:
        """``(key, pending)`` of every recorded delivery whose work was not finished."""
        found = []
        for key, entry in self._store.items(TABLE):
            pending = entry.get(PENDING)
            if isinstance(pending, str):
                found.append((key, pending))
        return found

    def next_attempt(self, key: str) -> int:
        """Count one more attempt at an unfinished delivery's work; returns the count (a
        delivery that kills the process each time must not be tried for ever)."""
        count = 0

        def bump(entry: Record | None) -> Record | None:
            nonlocal count
            if entry is None or PENDING not in entry:
                return entry
            previous = entry.get("attempts")
            count = (previous if isinstance(previous, int) else 0) + 1
            return {**entry, "attempts": count}

        self._store.update(TABLE, key, bump)
        return count

    def prune(self) -> int:
        """Delete the entries older than the TTL; return how many went."""
        now = self._clock()
        removed = 0

        def drop_if_expired(entry: Record | None) -> Record | None:
            nonlocal removed
            # Unfinished work is never dropped: the next start carries it out.
            if entry is not None and PENDING not in entry and self._expired(entry, now):
                removed += 1
                return None
            return entry

        for key, _ in self._store.items(TABLE):
            # Re-checked inside update: the entry may have been renewed since the snapshot.
            self._store.update(TABLE, key, drop_if_expired)
        return removed
