"""Fixtures shared by the jobs tests that run on both kinds of store."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from suggestbot.store import MemoryStore, Store
from suggestbot.store.postgres import PostgresStore


@pytest.fixture(params=["memory", "postgresql"])
def store(request: pytest.FixtureRequest) -> Iterator[Store]:
    """An in-memory store, then a PostgreSQL database of the test cluster."""
    if request.param == "memory":
        yield MemoryStore()
        return
    # These tests drive a timeline of their own (``now=`` passed in): taken as given.
    pg = PostgresStore(request.getfixturevalue("postgres_url"), caller_times=True)
    yield pg
    pg.close()
