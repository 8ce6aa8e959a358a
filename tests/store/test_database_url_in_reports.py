"""A failing test's report never shows the PostgreSQL password: pytest prints each argument of
the failing function (``postgres_url`` among them) by its ``repr``, and CI keeps the output."""

from __future__ import annotations

import pytest

from pg_cluster import PgCluster


def _fails_with(url: str) -> None:
    raise AssertionError("a test that fails while holding the database URL")


def test_a_failure_report_shows_the_url_without_its_password(
    postgres: PgCluster, postgres_url: str
) -> None:
    with pytest.raises(AssertionError) as failure:
        _fails_with(postgres_url)
    report = str(failure.getrepr(style="long", showlocals=True, funcargs=True))
    assert "url = 'postgresql://postgres:***@127.0.0.1:" in report
    assert postgres.password not in report
    assert postgres.password not in repr(postgres_url)
    # It is still the URL itself wherever it is used.
    assert postgres.password in str(postgres_url) and postgres_url.startswith("postgresql://")
