"""Each workspace's minute of every Slack method, drawn by all replicas from one record.

Replicas that each kept to a fair share of a minute (the tier over the live replicas) left most
of it unspent whenever the work was not spread evenly, and it rarely is: a workspace's results
are settled by the replica that holds its polls. That replica had a third of the workspace's
posts and root updates a minute while the other two thirds went unused, and a burst of briefs
on 3 replicas waited three times as long as on one process. With a database every replica
takes each call from one record per workspace and method instead: the calls of the last
minute, counted in buckets of :data:`BUCKET_S` seconds, read, counted and written back in one
atomic read-modify-write.

A bucket counts until its last moment has left the window (:data:`WINDOW_S`), so the replicas
together never send more than the tier in any minute, and may send it all at once (Slack
allows bursts within the minute). Decoration leaves a share of the minute to calls a person
waits for (``keep``), as it does in each process.

Times are on the wall clock (epoch seconds), the only one replicas share. A replica that was
told a minute is full does not ask again before it has room (:meth:`SharedMinutes.take`
remembers), so calls queued behind a spent minute do not turn into a query each. When the
store cannot be reached, :meth:`SharedMinutes.healthy` says so and the gate falls back to fair
shares until it answers again.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable

from suggestbot.slack.budget import WINDOW_S
from suggestbot.slack.stale_sweep import StaleSweep
from suggestbot.slack.tiers import tier_of
from suggestbot.store.marks import MinuteCalls
from suggestbot.store.records import Table

log = logging.getLogger(__name__)

# The bucket a call is counted in; a longer one is fewer entries, but holds calls it no
# longer needs to for up to this long.
BUCKET_S = 5.0
WARN_EVERY_S = 60.0


def _expires(bucket: int) -> float:
    """When every call of ``bucket`` has left the minute (epoch seconds)."""
    return (bucket + 1) * BUCKET_S + WINDOW_S


class SharedMinutes:
    """Every method's minute per workspace, taken from the store.

    Args:
        table: the store's ``slack_minutes``.
        wall_clock: epoch seconds.
    """

    def __init__(
        self, table: Table[MinuteCalls], *, wall_clock: Callable[[], float] = time.time
    ) -> None:
        self._table = table
        self._wall = wall_clock
        self._lock = threading.Lock()
        self._full_until: dict[tuple[str, str, int], float] = {}
        self._sweep = StaleSweep(
            table, field="until", what="the shared Slack minutes", now=wall_clock()
        )
        self._healthy = True
        self._warned_at = float("-inf")

    def healthy(self) -> bool:
        """False since the store last failed to answer (until it answers again)."""
        return self._healthy

    def take(self, workspace: str, method: str, *, keep: float = 0.0, force: bool = False) -> float:
        """Count one call of ``method`` in ``workspace`` if the replicas' minute has room,
        leaving ``keep`` (a share of it) to others; returns 0.0 when counted, else the seconds
        until it may have room. ``force`` counts it whatever is left (a trigger's call must
        go within its three seconds). When the store fails the call is not held here (0.0)."""
        per_minute = tier_of(method).per_minute
        allowed = max(1, per_minute - math.ceil(per_minute * keep))
        key = f"{workspace}|{method}"
        now = self._wall()
        with self._lock:
            full_until = self._full_until.get((workspace, method, allowed), 0.0)
        if full_until > now and not force:
            return full_until - now
        wait = [0.0]

        def count(old: MinuteCalls | None) -> MinuteCalls:
            live = sorted(
                (bucket, n) for bucket, n in (old.buckets if old else []) if _expires(bucket) > now
            )
            used = sum(n for _, n in live)
            if used >= allowed and not force:
                wait[0] = _room_at(live, used - allowed + 1) - now
                return MinuteCalls(buckets=live, until=old.until if old else now)
            current = int(now // BUCKET_S)
            counts = dict(live)
            counts[current] = counts.get(current, 0) + 1
            return MinuteCalls(buckets=sorted(counts.items()), until=_expires(current))

        try:
            self._table.upsert(key, count)
        except Exception as exc:
            self._failed(now, exc)
            return 0.0
        self._healthy = True
        if wait[0] > 0:
            with self._lock:
                self._full_until[(workspace, method, allowed)] = now + wait[0]
                for gone in [k for k, until in self._full_until.items() if until <= now]:
                    del self._full_until[gone]
        self._sweep(now, cutoff=now)
        return max(0.0, wait[0])

    def _failed(self, now: float, exc: Exception) -> None:
        self._healthy = False
        if now - self._warned_at >= WARN_EVERY_S:
            self._warned_at = now
            log.warning(
                "could not share Slack's budget with the other replicas (%s); each keeps to "
                "its fair share until the database answers again",
                type(exc).__name__,
            )


def _room_at(live: list[tuple[int, int]], needed: int) -> float:
    """When ``needed`` of the counted calls (oldest buckets first) have left the minute."""
    left = needed
    for bucket, n in live:
        left -= n
        if left <= 0:
            return _expires(bucket)
    return _expires(live[-1][0]) if live else 0.0
