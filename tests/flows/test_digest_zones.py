"""Every time zone name Slack may send (a user's ``tz``) is known and loads, from the ``tzdata``
package alone: slim container images ship no system zone database, or only part of it."""

from __future__ import annotations

import zoneinfo
from collections.abc import Iterator
from datetime import UTC, datetime
from importlib import resources

import pytest

from suggestbot.flows.digests import schedule
from suggestbot.flows.digests.due import _zones

# Old names (links) that Slack still sends for people who set their zone years ago.
LEGACY_LINKS = (
    "America/Buenos_Aires",
    "Asia/Calcutta",
    "US/Pacific",
    "Europe/Kiev",
    "Asia/Saigon",
    "America/Indianapolis",
    "Australia/ACT",
    "GMT",
)


@pytest.fixture
def only_tzdata() -> Iterator[None]:
    """zoneinfo with no system zone directory: what the ``tzdata`` package holds, and only it."""
    zoneinfo.reset_tzpath(to=[])
    schedule.known_zones.cache_clear()
    _zones.cache_clear()
    try:
        yield
    finally:
        zoneinfo.reset_tzpath()
        schedule.known_zones.cache_clear()
        _zones.cache_clear()


def _tzdata_names() -> set[str]:
    """The names the ``tzdata`` package lists (its ``zones`` file: zones and links)."""
    listing = resources.files("tzdata").joinpath("zones").read_text("utf-8")
    return {line.strip() for line in listing.splitlines() if line.strip()}


def test_every_zone_name_of_the_database_and_every_old_link_loads(only_tzdata: None) -> None:
    names = _tzdata_names()
    assert len(names) > 500 and set(LEGACY_LINKS) <= names
    failed = []
    for name in sorted(names):
        if not schedule.is_valid_zone(name):
            failed.append(name)
            continue
        # A zone that loads also converts: 12:00 UTC somewhere on its own wall clock.
        datetime(2026, 6, 1, 12, tzinfo=UTC).astimezone(schedule.zone(name))
    assert failed == []


def test_an_old_link_names_the_same_clock_as_its_zone(only_tzdata: None) -> None:
    at = datetime(2026, 1, 15, 12, tzinfo=UTC)
    for old, current in (("Asia/Calcutta", "Asia/Kolkata"), ("US/Pacific", "America/Los_Angeles")):
        assert at.astimezone(schedule.zone(old)).utcoffset() == (
            at.astimezone(schedule.zone(current)).utcoffset()
        )
