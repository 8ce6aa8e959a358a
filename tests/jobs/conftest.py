"""Fixtures shared by the jobs tests: both kinds of store, and the sandbox the watcher polls."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from suggestbot.contentapi import ClientCredentialsAuth, ContentClient
from suggestbot.sandbox import Sandbox
from suggestbot.sandbox.faults import RunTiming
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


@pytest.fixture
def box() -> Iterator[Sandbox]:
    sandbox = Sandbox(time_factor=0.01)
    # Runs stay queued unless a test says otherwise.
    sandbox.faults.run_timing = RunTiming(queued_s=1e6, running_s=1.0)
    yield sandbox


@pytest.fixture
def machine(box: Sandbox) -> Iterator[ContentClient]:
    with box.serve() as server:
        auth = ClientCredentialsAuth(
            server.url + "/auth/token", box.demo.client_id, box.demo.client_secret
        )
        with ContentClient(server.url, auth=auth, sleep=lambda s: None) as client:
            yield client
