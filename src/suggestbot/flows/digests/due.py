"""Which digests a wave posts: those whose local time fell due since the owner's last wave.

Every replica runs a wave each minute, so reading every digest each time would read the whole
table once a minute per replica. A wave instead asks for the local times (``HH:MM``) that the
clocks of the world showed since its previous wave, minus a look-back (:data:`LOOK_BACK`)
long enough to take over a wave that died on another replica (its claims run out within a
minute): on PostgreSQL that is one indexed lookup on the digests' local minute. The first
wave of a process, one after a wave that failed, and one after a gap of a day read every digest
instead (a catch-up): a digest missed earlier the same local day, while the app was down, is
still due. :func:`~suggestbot.flows.digests.schedule.due_occurrence` decides, exactly, for
each digest read.
"""

from __future__ import annotations

import functools
import logging
import threading
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.digests import subscriptions
from suggestbot.flows.digests.delivery import Due
from suggestbot.flows.digests.schedule import due_occurrence, from_epoch, known_zones
from suggestbot.store.records import Digest

log = logging.getLogger(__name__)

# How far back every wave looks, beyond its own previous wave: a wave that died on another
# replica left claims that run out within a minute; the next waves take its digests over.
LOOK_BACK = timedelta(minutes=10)
# A longer gap since the previous wave (a clock jump, a long stall) reads every digest.
MAX_WINDOW = timedelta(hours=12)

_COVERED: dict[str, datetime] = {}  # owner → the ``now`` of its last wave that completed
_COVERED_LOCK = threading.Lock()


def find_due(deps: Deps, now: datetime) -> list[Due]:
    """Digests due at ``now`` by their own records, read by local time where the previous wave
    allows (see the module). One handled by a wave that stopped before updating the digest is
    among them; its lane finds the delivery's mark and counts it as ``already``."""
    since = _window_start(deps.owner, now)
    if since is None:
        candidates = [d for d in deps.records.digests.values() if not d.paused]
    else:
        wheres: list[dict[str, bool | list[str]]] = [
            {"tz": where["tz"], "time": where["time"], "paused": False}
            for where in local_times(since, now)
        ]
        candidates = deps.records.digests.matching_any(*wheres)
    return [due for digest in candidates if (due := _due(digest, now)) is not None]


def covered(deps: Deps, now: datetime) -> None:
    """The wave at ``now`` completed: the next one needs to look back only to here."""
    with _COVERED_LOCK:
        _COVERED[deps.owner] = now


def uncovered(deps: Deps) -> None:
    """A wave failed: the next one reads every digest (what this one missed is still due)."""
    with _COVERED_LOCK:
        _COVERED.pop(deps.owner, None)


def _window_start(owner: str, now: datetime) -> datetime | None:
    """Where this wave's window of local times begins, or None for a catch-up."""
    with _COVERED_LOCK:
        last = _COVERED.get(owner)
    if last is None or now < last or now - last > MAX_WINDOW:
        return None
    return min(last, now) - LOOK_BACK


def local_times(since: datetime, now: datetime) -> list[dict[str, list[str]]]:
    """Per group of time zones whose clocks moved alike between ``since`` and ``now`` (both
    included), the wall-clock ``HH:MM`` they showed — the minutes a clock change skipped among
    them, as a time in a spring-forward gap fires at the first minute after it — as
    ``{"tz": zones, "time": times}``: the digests to read."""
    groups: dict[tuple[timedelta, timedelta], list[str]] = {}
    first, last = _minute(since), _minute(now)
    for zone in _zones():
        before, after = first.astimezone(zone).utcoffset(), last.astimezone(zone).utcoffset()
        if before is not None and after is not None:
            groups.setdefault((before, after), []).append(zone.key)
    wheres = []
    for (before, after), zones in sorted(groups.items()):
        start = (first + before).replace(tzinfo=None)
        end = (last + after).replace(tzinfo=None)
        # Clocks going back show a span that ends earlier on the wall than it began.
        minute, stop = min(start, end), max(start, end)
        shown: set[str] = set()
        while minute <= stop:
            shown.add(minute.strftime("%H:%M"))
            minute += timedelta(minutes=1)
        wheres.append({"tz": zones, "time": sorted(shown)})
    return wheres


@functools.cache
def _zones() -> tuple[ZoneInfo, ...]:
    return tuple(ZoneInfo(name) for name in sorted(known_zones()))


def _minute(instant: datetime) -> datetime:
    return instant.astimezone(UTC).replace(second=0, microsecond=0)


def _due(digest: Digest, now: datetime) -> Due | None:
    if digest.paused:
        return None
    last = digest.last_posted_local_date
    try:
        occurrence = due_occurrence(
            subscriptions.schedule_of(digest),
            now=now,
            last_posted=date.fromisoformat(last) if last else None,
            not_before=from_epoch(digest.active_since),
        )
    except ValueError as exc:
        log.warning("digest %s has an unusable schedule (%s)", digest.id, exc)
        return None
    if occurrence is None:
        return None
    return Due(digest, occurrence, wave=now.replace(second=0, microsecond=0).isoformat())
