"""Fixtures shared by every test folder: a real PostgreSQL for the tests of that backend.

The cluster starts once per session (only if a test asks for it) and is stopped and removed at
the end. A PostgreSQL that cannot be started fails those tests: it is never a skip.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from pg_cluster import PgCluster
from suggestbot.store.postgres import PostgresStore

MIGRATED_TEMPLATE = "suggestbot_migrated"
_names = itertools.count(1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that reaches the cluster, so the unit tier can leave them out
    (``-m "not postgresql"``) while CI runs them all."""
    for item in items:
        if "postgres" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.postgresql)


@pytest.fixture(scope="session")
def postgres() -> Iterator[PgCluster]:
    """A PostgreSQL cluster on loopback with an empty database already at the newest schema
    (``MIGRATED_TEMPLATE``), which each test's database is copied from."""
    cluster = PgCluster().start()
    try:
        url = cluster.create_database(MIGRATED_TEMPLATE)
        with PostgresStore(url, check_schema=False) as store:
            store.upgrade_schema()
        yield cluster
    finally:
        cluster.remove()


@pytest.fixture
def postgres_url(postgres: PgCluster) -> Iterator[str]:
    """The URL of a fresh database at the newest schema, dropped after the test."""
    name = f"test_{next(_names)}"
    yield postgres.create_database(name, template=MIGRATED_TEMPLATE)
    postgres.drop_database(name)


@pytest.fixture
def empty_postgres_url(postgres: PgCluster) -> Iterator[str]:
    """The URL of a fresh database with no schema at all (``db upgrade`` never ran)."""
    name = f"empty_{next(_names)}"
    yield postgres.create_database(name)
    postgres.drop_database(name)
