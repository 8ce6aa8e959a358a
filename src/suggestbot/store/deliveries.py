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

Several replicas share one database, so a recorded delivery is also a unit of work in the
``interactions`` queue, written as held by the replica that acked it, in that same write (one
statement on PostgreSQL). The replica renews its holds while the work runs and ends them when
it is finished; one that dies leaves its holds to run out after one lease period, and any live
replica then claims them (:meth:`DeliveryLog.claim_abandoned`) and carries the work out. On the
single-process stores the holds live in memory and die with the process: a start carries out
every unfinished delivery (:meth:`DeliveryLog.unfinished`, :meth:`DeliveryLog.hold`).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable

from suggestbot.store.base import Claim, Store
from suggestbot.store.codec import Record

TABLE = "deliveries"
# The units of work of recorded deliveries, keyed like their entries.
QUEUE = "interactions"
# The sealed delivery; named like every encrypted field, so that key rotation finds it.
PENDING = "pending_enc"
# Digests of the messages a delivery's work told its person (``first_telling``).
TOLD = "told"
MIN_TTL_S = 3600.0
# How long a hold lasts without a renewal, unless the app says otherwise (it uses its poll
# interval, as for every other lease).
DEFAULT_LEASE_S = 10.0
# Expired entries deleted per write when pruning, and pages per pass at most: a pass reads the
# expired entries only (by the indexed time), and a backlog is worked off over a few passes.
PRUNE_PAGE = 500
PRUNE_PAGES = 20


class DeliveryLog:
    """Answers "is this the first time we see this delivery?" atomically.

    Args:
        store: where entries are kept (table ``deliveries``).
        ttl_s: how long an entry counts; at least one hour.
        clock: wall-clock seconds; wall time rather than monotonic because entries must stay
            meaningful across a restart (leases are reckoned with it too).
        owner: who holds this process's units (unique per process).
        lease_s: how long a hold lasts without a renewal.
    """

    def __init__(
        self,
        store: Store,
        *,
        ttl_s: float = 3600 * 2,
        clock: Callable[[], float] = time.time,
        owner: str | None = None,
        lease_s: float = DEFAULT_LEASE_S,
    ) -> None:
        if ttl_s < MIN_TTL_S:
            raise ValueError(f"ttl_s must be at least {MIN_TTL_S:.0f} s to cover Slack's retries")
        self._store = store
        self._ttl_s = ttl_s
        self._clock = clock
        self.owner = owner or f"deliveries:{uuid.uuid4().hex}"
        self.lease_s = lease_s
        self._lock = threading.Lock()
        self._held: set[str] = set()  # keys whose work runs in this process

    @property
    def shares_leases(self) -> bool:
        """Whether other processes see this one's holds (a shared database): then a start
        must leave units alone that live replicas hold."""
        return self._store.shares_leases

    def held(self) -> set[str]:
        """The keys of the recorded deliveries whose work this process holds."""
        with self._lock:
            return set(self._held)

    def _expired(self, entry: Record | None, now: float) -> bool:
        seen = entry.get("at") if entry is not None else None
        if not isinstance(seen, int | float) or isinstance(seen, bool):
            return True  # missing or malformed: treat as never seen
        return now - seen >= self._ttl_s

    def first_time(self, key: str, *, pending: str | None = None) -> bool:
        """Return True for the first call with ``key`` within the TTL, False for repeats.

        Exactly one of any number of concurrent callers with the same key gets True. With
        ``pending`` (the delivery, as the caller wants it kept), the claim also records it as
        unfinished, and held by this process, in the same write, until :meth:`finish`.
        """
        now = self._clock()
        entry: Record = {"at": now, PENDING: pending} if pending is not None else {"at": now}
        # Nearly every delivery is new: one insert claims it (on PostgreSQL one round trip
        # instead of a locked read and a write). Only a key already there needs the read.
        if pending is None:
            if self._store.put_if_absent(TABLE, key, entry):
                return True
        elif self._store.put_if_absent_held(
            TABLE, key, entry, queue=QUEUE, owner=self.owner, now=now, lease_s=self.lease_s
        ):
            self._note_held(key)
            return True
        first = False

        def claim(old: Record | None) -> Record | None:
            nonlocal first
            first = self._expired(old, now)
            return entry if first else old

        self._store.update(TABLE, key, claim)
        if first and pending is not None:
            # A key seen again after its TTL (rare): its hold is a write of its own.
            self.hold(key)
        return first

    def _note_held(self, key: str) -> None:
        with self._lock:
            self._held.add(key)

    def hold(self, key: str) -> None:
        """Hold ``key``'s unit for this process, whoever held it before (a start carrying out
        what a process before it left, on a store whose holds died with that process)."""
        now = self._clock()
        self._store.schedule(QUEUE, key, due_at=now + self.lease_s)
        self._store.claim_keys(QUEUE, [key], owner=self.owner, now=now, lease_s=self.lease_s)
        self._note_held(key)

    def finish(self, key: str) -> None:
        """The delivery's work is done: forget what was kept (the claim itself stays) and end
        this process's hold on it. In that order: a process dying in between leaves a hold
        that runs out on a finished entry, which whoever claims it then simply ends."""

        def drop_pending(entry: Record | None) -> Record | None:
            if entry is None or PENDING not in entry:
                return entry
            return {k: v for k, v in entry.items() if k not in (PENDING, "attempts")}

        self._store.update(TABLE, key, drop_pending)
        with self._lock:
            self._held.discard(key)
        self._store.release(QUEUE, key, owner=self.owner, due_at=None)

    def first_telling(self, key: str, what: str) -> bool:
        """Whether the delivery ``key``'s work has not told its person ``what`` (a digest of
        a message) yet; noted now in the delivery's entry, so that the work carried out again
        after a crash tells it once. No entry (none was kept): True."""
        new = True

        def note(entry: Record | None) -> Record | None:
            nonlocal new
            if entry is None:
                return None
            told = entry.get(TOLD)
            told = list(told) if isinstance(told, list) else []
            if what in told:
                new = False
                return entry
            return {**entry, TOLD: [*told, what]}

        self._store.update(TABLE, key, note)
        return new

    def pending(self, key: str) -> str | None:
        """What was kept of the delivery ``key`` while its work is unfinished, else None."""
        entry = self._store.get(TABLE, key)
        kept = entry.get(PENDING) if entry is not None else None
        return kept if isinstance(kept, str) else None

    def renew_held(self) -> list[str]:
        """Extend this process's holds by a lease period; the keys it no longer held (a stall
        longer than a lease: another replica has claimed them since)."""
        with self._lock:
            held = list(self._held)
        if not held:
            return []
        now = self._clock()
        kept = set(self._store.renew(QUEUE, held, owner=self.owner, now=now, lease_s=self.lease_s))
        lost = [key for key in held if key not in kept]
        with self._lock:
            self._held.difference_update(lost)
        return lost

    def let_go(self, key: str) -> None:
        """Stop renewing ``key``'s hold without ending it (its work could not start here): it
        runs out, and a replica claims it again then."""
        with self._lock:
            self._held.discard(key)

    def claim_abandoned(self, *, limit: int) -> list[Claim]:
        """Claim at most ``limit`` units whose holder let its lease run out (it died), now held
        by this process; the caller carries each out and :meth:`finish` ends it. Found
        through the leases' index, never by reading the deliveries. A unit this process's own
        work still holds (its renewal came late) is held again, not returned."""
        now = self._clock()
        claims = self._store.claim_due(
            QUEUE, owner=self.owner, now=now, due_by=now, lease_s=self.lease_s, limit=limit
        )
        with self._lock:
            fresh = [claim for claim in claims if claim.key not in self._held]
            self._held.update(claim.key for claim in fresh)
        return fresh

    def unfinished(self) -> list[tuple[str, str]]:
        """``(key, pending)`` of every recorded delivery whose work was not finished. Reads the
        table: for a start on a single-process store, where no hold outlived the process."""
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
        """Delete the entries older than the TTL; return how many went.

        Reads only expired entries, by their time (indexed on PostgreSQL), a page at a time and
        at most :data:`PRUNE_PAGES` pages a pass; an entry whose time is not a number is never
        found here, and its key counts as new (see :meth:`first_time`).
        """
        now = self._clock()
        removed = 0

        def drop_if_expired(entry: Record | None) -> Record | None:
            nonlocal removed
            # Unfinished work is never dropped: it is carried out first.
            if entry is not None and PENDING not in entry and self._expired(entry, now):
                removed += 1
                return None
            return entry

        for _ in range(PRUNE_PAGES):
            page = self._store.items_matching(
                TABLE, where={}, at_most={"at": now - self._ttl_s}, limit=PRUNE_PAGE
            )
            expired = [key for key, entry in page if PENDING not in entry]
            if expired:
                # Re-checked inside the write: the entry may have been claimed again since.
                self._store.update_many(TABLE, dict.fromkeys(expired, drop_if_expired))
            # A page of unfinished entries only: nothing more this pass can delete.
            if len(page) < PRUNE_PAGE or not expired:
                break
        return removed
