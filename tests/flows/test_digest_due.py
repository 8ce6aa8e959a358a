"""Which digests a wave reads: by the local times that fell due since its last wave, not the
whole table each minute; every digest once, after a start, a failed wave or a clock change."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from flows_helpers import CHANNEL, SEGMENT, TEAM, USE_CASE, World, world

from no_whole_tables import NoWholeTables
from suggestbot.flows.digests import due
from suggestbot.store.records import Digest

# A Tuesday in winter: Berlin is UTC+1.
NOW = datetime(2026, 11, 24, 9, 5, 20, tzinfo=UTC)


@pytest.fixture
def store() -> NoWholeTables:
    return NoWholeTables()


@pytest.fixture
def w(store: NoWholeTables) -> Iterator[World]:
    made = world(store=store)
    yield made
    due.uncovered(made.deps)


def _digest(w: World, name: str, *, time: str, tz: str = "UTC") -> Digest:
    digest = Digest(
        id=name,
        team_id=TEAM,
        channel_id=CHANNEL,
        created_by="U-alice",
        segment_id=SEGMENT,
        use_case_id=USE_CASE,
        segment_name="Segment",
        use_case_name="Use",
        time=time,
        tz=tz,
        weekdays=list(range(7)),
        active_since=datetime(2026, 1, 1, tzinfo=UTC).timestamp(),
    )
    w.deps.records.digests.put(digest.id, digest)
    return digest


def _due_ids(w: World, now: datetime) -> list[str]:
    return sorted(item.digest.id for item in due.find_due(w.deps, now))


def test_the_first_wave_of_a_process_catches_up_on_everything_due_today(w: World) -> None:
    _digest(w, "early", time="06:00")  # missed while the app was down: still due, late
    _digest(w, "now", time="09:05")
    _digest(w, "later", time="14:00")

    assert _due_ids(w, NOW) == ["early", "now"]


def test_a_minute_wave_reads_only_the_local_times_that_fell_due(
    w: World, store: NoWholeTables
) -> None:
    _digest(w, "early", time="06:00")
    _digest(w, "utc", time="09:05")
    _digest(w, "berlin", time="10:04", tz="Europe/Berlin")  # 09:04 UTC
    _digest(w, "taken_over", time="08:58")  # a wave that died on another replica left it
    _digest(w, "later", time="14:00")
    due.covered(w.deps, NOW - timedelta(minutes=1))
    store.guarding = True  # a read of the whole digests table fails the test

    assert _due_ids(w, NOW) == ["berlin", "taken_over", "utc"]


def test_after_a_failed_wave_the_next_one_reads_every_digest(
    w: World, store: NoWholeTables
) -> None:
    _digest(w, "early", time="06:00")
    due.covered(w.deps, NOW - timedelta(minutes=1))
    assert _due_ids(w, NOW) == []  # posted by the earlier waves, which covered it

    due.uncovered(w.deps)
    assert _due_ids(w, NOW) == ["early"]


def test_a_time_skipped_by_the_clocks_going_forward_is_read_when_it_fires() -> None:
    # Berlin, 29 March 2026: 02:00 local becomes 03:00 at 01:00 UTC.
    wheres = due.local_times(
        datetime(2026, 3, 29, 0, 59, tzinfo=UTC), datetime(2026, 3, 29, 1, 0, tzinfo=UTC)
    )
    [berlin] = [where for where in wheres if "Europe/Berlin" in where["tz"]]
    assert "02:30" in berlin["time"]  # fires at 03:00, the first minute after it
    assert {"01:59", "03:00"} <= set(berlin["time"]) and "04:00" not in berlin["time"]
    [utc] = [where for where in wheres if "UTC" in where["tz"]]
    assert utc["time"] == ["00:59", "01:00"] and "Africa/Abidjan" in utc["tz"]
    # A window, not the whole day (Antarctica/Troll jumps two hours that night).
    assert all(len(where["time"]) <= 122 for where in wheres)


def test_a_digest_after_the_clocks_went_forward_is_posted_once_at_its_new_minute(
    w: World, store: NoWholeTables
) -> None:
    at = datetime(2026, 3, 29, 1, 0, 10, tzinfo=UTC)  # 03:00 in Berlin, the first valid minute
    _digest(w, "gap", time="02:30", tz="Europe/Berlin")
    _digest(w, "after", time="03:01", tz="Europe/Berlin")
    due.covered(w.deps, at - timedelta(minutes=1))
    store.guarding = True

    assert _due_ids(w, at) == ["gap"]
