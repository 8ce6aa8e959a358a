"""When digests are due: wall-clock times across DST changes, driven by a fake minute clock."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from suggestbot.flows.digests.schedule import (
    Schedule,
    due_occurrence,
    fire_instant,
    is_valid_zone,
    next_fire,
    parse_hhmm,
    zone,
)
from suggestbot.store.records import WEEKDAYS

BERLIN = "Europe/Berlin"
NEW_YORK = "America/New_York"


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


def daily(time: str, tz: str) -> Schedule:
    return Schedule.of(time=time, tz=tz, weekdays=WEEKDAYS)


def ticks(
    schedule: Schedule, *, start: datetime, end: datetime, not_before: datetime | None = None
) -> list[datetime]:
    """The instants a once-a-minute job posts at, remembering the local date it posted for
    (as the wave does), between ``start`` and ``end``; the digest exists from ``start`` on
    unless ``not_before`` says otherwise."""
    not_before = not_before or start
    fired: list[datetime] = []
    last: date | None = None
    now = start
    while now < end:
        occurrence = due_occurrence(schedule, now=now, last_posted=last, not_before=not_before)
        if occurrence is not None:
            fired.append(now)
            last = occurrence.local_date
        now += timedelta(minutes=1)
    return fired


@pytest.mark.parametrize(
    ("tz", "start", "expected"),
    [
        # Berlin springs forward on 2024-03-31 (CET +1 → CEST +2): 09:00 is 08:00 UTC, then 07:00.
        (BERLIN, utc(2024, 3, 30), [utc(2024, 3, 30, 8), utc(2024, 3, 31, 7), utc(2024, 4, 1, 7)]),
        # ... and falls back on 2024-10-27: 07:00 UTC, then 08:00.
        (
            BERLIN,
            utc(2024, 10, 26),
            [utc(2024, 10, 26, 7), utc(2024, 10, 27, 8), utc(2024, 10, 28, 8)],
        ),
        # New York springs forward on 2024-03-10 (EST -5 → EDT -4): 14:00 UTC, then 13:00.
        (
            NEW_YORK,
            utc(2024, 3, 9),
            [utc(2024, 3, 9, 14), utc(2024, 3, 10, 13), utc(2024, 3, 11, 13)],
        ),
        # ... and falls back on 2024-11-03: 13:00 UTC, then 14:00.
        (
            NEW_YORK,
            utc(2024, 11, 2),
            [utc(2024, 11, 2, 13), utc(2024, 11, 3, 14), utc(2024, 11, 4, 14)],
        ),
    ],
)
def test_nine_oclock_stays_nine_oclock_local_across_dst(
    tz: str, start: datetime, expected: list[datetime]
) -> None:
    assert ticks(daily("09:00", tz), start=start, end=start + timedelta(days=3)) == expected


@pytest.mark.parametrize(
    ("tz", "day", "first_valid_utc"),
    [
        # 02:30 does not exist on these days; 03:00 local is the first valid minute after.
        (BERLIN, utc(2024, 3, 31), utc(2024, 3, 31, 1)),  # 03:00 CEST
        (NEW_YORK, utc(2024, 3, 10), utc(2024, 3, 10, 7)),  # 03:00 EDT
    ],
)
def test_a_time_skipped_by_spring_forward_fires_at_the_first_valid_minute_after(
    tz: str, day: datetime, first_valid_utc: datetime
) -> None:
    fired = ticks(daily("02:30", tz), start=day - timedelta(hours=6), end=day + timedelta(days=1))
    assert fired[0] == first_valid_utc
    assert len(fired) == 1
    assert fire_instant(day.date(), "02:30", zone(tz)) == first_valid_utc


@pytest.mark.parametrize(
    ("tz", "time", "day", "first_utc"),
    [
        # 02:30 happens twice in Berlin on 2024-10-27 (CEST, then CET): the first one counts.
        (BERLIN, "02:30", utc(2024, 10, 27), utc(2024, 10, 27, 0, 30)),
        # 01:30 happens twice in New York on 2024-11-03 (EDT, then EST).
        (NEW_YORK, "01:30", utc(2024, 11, 3), utc(2024, 11, 3, 5, 30)),
    ],
)
def test_a_time_repeated_by_fall_back_fires_once(
    tz: str, time: str, day: datetime, first_utc: datetime
) -> None:
    fired = ticks(daily(time, tz), start=day - timedelta(hours=6), end=day + timedelta(hours=20))
    assert fired == [first_utc]


def test_only_on_chosen_weekdays() -> None:
    # 2024-06-03 is a Monday; Monday and Thursday only.
    schedule = Schedule.of(time="08:15", tz=BERLIN, weekdays=[0, 3])
    fired = ticks(schedule, start=utc(2024, 6, 3), end=utc(2024, 6, 10))
    assert fired == [utc(2024, 6, 3, 6, 15), utc(2024, 6, 6, 6, 15)]


def test_a_digest_created_after_its_time_waits_for_the_next_day() -> None:
    created = utc(2024, 6, 3, 12)  # 14:00 in Berlin, after today's 09:00
    fired = ticks(daily("09:00", BERLIN), start=created, end=utc(2024, 6, 5), not_before=created)
    assert fired == [utc(2024, 6, 4, 7)]


def test_missed_earlier_today_is_due_and_late_but_not_once_the_day_is_over() -> None:
    schedule = daily("09:00", BERLIN)
    on_time = due_occurrence(schedule, now=utc(2024, 6, 3, 7, 1), last_posted=None)
    assert on_time is not None and not on_time.late
    late = due_occurrence(schedule, now=utc(2024, 6, 3, 15), last_posted=None)
    assert late is not None and late.late
    assert late.late_by == timedelta(hours=8)
    assert late.local_date == date(2024, 6, 3)
    # Down all of 3 June: on the 4th at 01:00 local, the 3rd is gone and the 4th not yet due.
    assert due_occurrence(schedule, now=utc(2024, 6, 3, 23), last_posted=None) is None
    # Posted already today: not again.
    assert due_occurrence(schedule, now=utc(2024, 6, 3, 15), last_posted=date(2024, 6, 3)) is None


def test_local_date_is_the_subscriptions_not_utcs() -> None:
    # 23:30 in New York on 3 June is 03:30 UTC on 4 June.
    occurrence = due_occurrence(
        daily("23:30", NEW_YORK), now=utc(2024, 6, 4, 3, 31), last_posted=None
    )
    assert occurrence is not None and occurrence.local_date == date(2024, 6, 3)


def test_next_fire_across_a_dst_change() -> None:
    schedule = daily("09:00", BERLIN)
    assert next_fire(schedule, after=utc(2024, 3, 30, 9)) == utc(2024, 3, 31, 7)
    assert next_fire(schedule, after=utc(2024, 3, 31, 7)) == utc(2024, 4, 1, 7)
    assert (
        next_fire(Schedule.of(time="09:00", tz=BERLIN, weekdays=[]), after=utc(2024, 1, 1)) is None
    )


@pytest.mark.parametrize("bad", ["9:00", "24:00", "09:60", "0900", "ab:cd", ""])
def test_times_must_be_hh_mm(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_hhmm(bad)


def test_zones_must_exist() -> None:
    assert is_valid_zone("America/New_York")
    assert not is_valid_zone("Mars/Olympus_Mons")
    assert not is_valid_zone("")
    with pytest.raises(ValueError):
        zone("../etc/passwd")
