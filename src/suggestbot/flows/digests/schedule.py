"""When a digest is due: wall-clock times in the subscription's time zone, across DST changes.

Pure functions of an injected ``now``, so every rule can be tested with a fake clock:

- a digest fires at its local ``HH:MM`` on each chosen weekday, whatever the UTC offset that day;
- a local time that does not exist (the hour skipped when clocks go forward) fires at the first
  valid minute after it;
- a local time that happens twice (the hour repeated when clocks go back) fires at the first
  occurrence only, because a local date is posted at most once;
- a digest missed earlier the same local day (the app was down) is still due, and says it is
  late; one missed on an earlier day is not.
"""

from __future__ import annotations

import functools
from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

# A clock change moves the wall clock by at most a few hours; a day bounds the search.
_MAX_GAP_MINUTES = 24 * 60
# Posted this long after its time, a digest says that it is late.
LATE_AFTER = timedelta(minutes=10)


@dataclass(frozen=True)
class Schedule:
    """A digest's schedule: local ``HH:MM`` in the IANA zone ``tz`` on ``weekdays``."""

    time: str
    tz: str
    weekdays: frozenset[int]

    @classmethod
    def of(cls, *, time: str, tz: str, weekdays: Collection[int]) -> Schedule:
        """A schedule from a digest's fields.

        Args:
            time: local wall-clock time, ``HH:MM``.
            tz: an IANA time zone name.
            weekdays: the days it posts, 0 = Monday.
        """
        return cls(time=time, tz=tz, weekdays=frozenset(weekdays))


@dataclass(frozen=True)
class Occurrence:
    """One due firing: the local date it belongs to, its instant (UTC) and how late ``now`` is."""

    local_date: date
    fire_at: datetime
    late_by: timedelta

    @property
    def late(self) -> bool:
        """Posted more than :data:`LATE_AFTER` after its time: the digest says it is late."""
        return self.late_by > LATE_AFTER


def parse_hhmm(value: str) -> time:
    """``"09:05"`` → ``time(9, 5)``.

    Raises:
        ValueError: not two-digit hours 00-23 and minutes 00-59 separated by a colon.
    """
    hours, colon, minutes = value.strip().partition(":")
    if not (colon and len(hours) == 2 and len(minutes) == 2):
        raise ValueError("time must look like HH:MM")
    if not (hours.isdigit() and minutes.isdigit()):
        raise ValueError("time must look like HH:MM")
    return time(int(hours), int(minutes))


def zone(name: str) -> ZoneInfo:
    """The IANA zone ``name``.

    Raises:
        ValueError: unknown zone name.
    """
    try:
        return ZoneInfo(name.strip())
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {name!r}") from None


@functools.cache
def known_zones() -> frozenset[str]:
    """The IANA zone names a digest may use: those the zone database lists (the wave reads a
    zone's digests by its name), UTC among them."""
    return frozenset(available_timezones() | {"UTC"})


def is_valid_zone(name: str) -> bool:
    """Whether ``name`` is an IANA time zone this machine knows (``Europe/Paris``)."""
    if name.strip() not in known_zones():
        return False
    try:
        zone(name)
    except ValueError:
        return False
    return True


def _exists(local: datetime, tz: ZoneInfo) -> bool:
    """Whether the naive wall-clock ``local`` is shown by clocks in ``tz`` (not in a gap)."""
    aware = local.replace(tzinfo=tz, fold=0)
    return aware.astimezone(UTC).astimezone(tz).replace(tzinfo=None) == local


def fire_instant(local_date: date, hhmm: str, tz: ZoneInfo) -> datetime:
    """The UTC instant at which ``hhmm`` happens on ``local_date`` in ``tz``.

    A time in a spring-forward gap moves to the first valid minute after it; a time that
    happens twice (fall back) takes the first occurrence.
    """
    wall = datetime.combine(local_date, parse_hhmm(hhmm))
    for step in range(_MAX_GAP_MINUTES):
        candidate = wall + timedelta(minutes=step)
        if _exists(candidate, tz):
            return candidate.replace(tzinfo=tz, fold=0).astimezone(UTC)
    raise ValueError(f"no valid minute after {hhmm} on {local_date} in {tz.key}")


def due_occurrence(
    schedule: Schedule,
    *,
    now: datetime,
    last_posted: date | None,
    not_before: datetime | None = None,
) -> Occurrence | None:
    """The occurrence due at ``now``, or None.

    Args:
        now: the current instant (aware).
        last_posted: the local date of the last digest already handled (posted or skipped).
        not_before: instants before this do not count (the digest was created or resumed
            later), so a time already past today waits for the next day instead of firing late.
    """
    tz = zone(schedule.tz)
    today = now.astimezone(tz).date()
    if today.weekday() not in schedule.weekdays:
        return None
    if last_posted is not None and last_posted >= today:
        return None
    fire = fire_instant(today, schedule.time, tz)
    if now < fire or (not_before is not None and fire < not_before):
        return None
    return Occurrence(local_date=today, fire_at=fire, late_by=now - fire)


def next_fire(schedule: Schedule, *, after: datetime) -> datetime | None:
    """The first firing instant (UTC) strictly after ``after``; None without weekdays."""
    if not schedule.weekdays:
        return None
    tz = zone(schedule.tz)
    start = after.astimezone(tz).date()
    for offset in range(8):
        day = start + timedelta(days=offset)
        if day.weekday() not in schedule.weekdays:
            continue
        fire = fire_instant(day, schedule.time, tz)
        if fire > after:
            return fire
    return None


def from_epoch(seconds: float) -> datetime:
    """Epoch seconds as an aware UTC datetime."""
    return datetime.fromtimestamp(seconds, tz=UTC)
