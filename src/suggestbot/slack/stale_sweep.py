"""Forgetting what the replicas share about Slack once its time has passed.

The channels' post slots and the methods' minutes are records whose time field says when they
stop mattering; a record past it holds nothing. Whichever replica sweeps next deletes them, at
most once a minute each and a bounded number at a time (the next sweep takes the rest), so a
table holds what Slack was called for in the last minute, not everything ever.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from suggestbot.store.records import Table

log = logging.getLogger(__name__)

SWEEP_EVERY_S = 60.0
# Records deleted per sweep at most.
SWEEP_LIMIT = 500


class StaleSweep:
    """Deletes ``table``'s records whose ``field`` (epoch seconds) is at most a cutoff.

    Args:
        table: the shared table.
        field: the record's time field.
        what: what the table holds, for the warning when the store fails.
        now: the first sweep's earliest time minus :data:`SWEEP_EVERY_S` (epoch seconds).
    """

    def __init__(self, table: Table[Any], *, field: str, what: str, now: float) -> None:
        self._table = table
        self._field = field
        self._what = what
        self._lock = threading.Lock()
        self._swept_at = now

    def __call__(self, now: float, *, cutoff: float) -> None:
        """Sweep the records due by ``cutoff``, unless this process swept in the last minute."""
        with self._lock:
            if now - self._swept_at < SWEEP_EVERY_S:
                return
            self._swept_at = now
        field = self._field

        def still_stale(record: Any) -> Any:
            # Deleted only if still stale: another replica may have written it since.
            return None if getattr(record, field) <= cutoff else record

        try:
            for key, _ in self._table.items_matching(at_most={field: cutoff}, limit=SWEEP_LIMIT):
                self._table.update(key, still_stale)
        except Exception as exc:
            log.warning("could not sweep %s (%s)", self._what, type(exc).__name__)
