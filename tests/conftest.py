"""Fixtures shared by every test folder: a real PostgreSQL for the tests of that backend.

The cluster starts once per session (only if a test asks for it) and is stopped and removed at
the end. A PostgreSQL that cannot be started fails those tests: it is never a skip.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from pg_cluster import PgCluster
from suggestbot.store.postgres import PostgresStore

MIGRATED_TEMPLATE = "suggestbot_migrated"
_names = itertools.count(1)
_PASSWORD = re.compile(r"(://[^:/@]*:)[^@]*@")


class DatabaseUrl(str):
    """A database URL that shows itself without its password: pytest prints a failing test's
    arguments (and fixture values) by their ``repr``, into logs that CI keeps."""

    def __repr__(self) -> str:
        return repr(_PASSWORD.sub(r"\1***@", str(self)))


# In a parallel run (pytest-xdist hands whole files to its workers in collection order), the
# slowest folders go first so that no long file is left to start last; the reliability suite's
# secrets scan, which waits for every other reliability test, goes after the e2e, deploy and
# jobs files, by when those have long ended, with the many short files after it to fill the
# other workers meanwhile. Paths relative to tests/; the longest match ranks a file.
PARALLEL_ORDER = (
    "reliability",
    "test_demo_runs.py",
    "test_installed_wheel.py",
    "e2e",
    "deploy",
    "jobs",
    "reliability/test_reliability_secrets.py",
    "sandbox",
    "slackemu",
)
TESTS_DIR = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that reaches the cluster, so the unit tier can leave them out
    (``-m "not postgresql"``) while CI runs them all."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        # Directly, or through a backend parameter that asks for the cluster when it runs.
        on_backend = callspec is not None and "postgresql" in callspec.params.values()
        if "postgres" in getattr(item, "fixturenames", ()) or on_backend:
            item.add_marker(pytest.mark.postgresql)


class _ParallelOrder:
    """Orders a worker's tests (all workers collect the same) by :data:`PARALLEL_ORDER`."""

    @pytest.hookimpl(trylast=True)  # after the folders' own hooks have placed their tests
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        items.sort(key=_parallel_rank)  # stable: each file's own order is kept


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # a worker of a parallel run
        config.pluginmanager.register(_ParallelOrder(), "suggestbot-parallel-order")


def _parallel_rank(item: pytest.Item) -> int:
    path = item.path.resolve()
    relative = path.relative_to(TESTS_DIR).as_posix() if path.is_relative_to(TESTS_DIR) else ""
    matches = [
        (len(prefix), rank)
        for rank, prefix in enumerate(PARALLEL_ORDER)
        if relative == prefix or relative.startswith(prefix + "/")
    ]
    return max(matches)[1] if matches else len(PARALLEL_ORDER)


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
    yield DatabaseUrl(postgres.create_database(name, template=MIGRATED_TEMPLATE))
    postgres.drop_database(name)


@pytest.fixture
def empty_postgres_url(postgres: PgCluster) -> Iterator[str]:
    """The URL of a fresh database with no schema at all (``db upgrade`` never ran)."""
    name = f"empty_{next(_names)}"
    yield DatabaseUrl(postgres.create_database(name))
    postgres.drop_database(name)
