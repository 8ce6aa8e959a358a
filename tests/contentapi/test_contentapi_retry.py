"""Retry-After parsing and the backoff schedule."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from suggestbot.contentapi.retry import (
    DEFAULT_RETRY_AFTER_S,
    MAX_BACKOFF_S,
    backoff_delay,
    is_retryable_status,
    is_retryable_transport_error,
    parse_retry_after,
    was_never_sent,
)

NOW = datetime(2024, 5, 1, 10, 0, 0, tzinfo=UTC)


def test_retry_after_in_seconds() -> None:
    assert parse_retry_after("7", now=NOW) == 7.0
    assert parse_retry_after(" 0 ", now=NOW) == 0.0
    assert parse_retry_after("1.5", now=NOW) == 1.5


def test_retry_after_as_http_date() -> None:
    header = format_datetime(NOW + timedelta(seconds=42), usegmt=True)
    assert header.endswith("GMT")
    assert parse_retry_after(header, now=NOW) == 42.0


def test_retry_after_date_in_the_past_means_now() -> None:
    header = format_datetime(NOW - timedelta(minutes=5), usegmt=True)
    assert parse_retry_after(header, now=NOW) == 0.0


@pytest.mark.parametrize("value", [None, "", "soon", "-3", "nan", "inf"])
def test_missing_or_unreadable_retry_after_uses_the_default(value: str | None) -> None:
    assert parse_retry_after(value, now=NOW) == DEFAULT_RETRY_AFTER_S
    assert 1 <= DEFAULT_RETRY_AFTER_S <= 60


def test_backoff_grows_is_capped_and_jitters_downwards() -> None:
    assert [backoff_delay(n, rand=lambda: 0.0) for n in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, 4.0]
    assert backoff_delay(30, rand=lambda: 0.0) == MAX_BACKOFF_S
    assert backoff_delay(1, rand=lambda: 1.0) == 0.375
    for _ in range(50):
        assert 0.375 <= backoff_delay(1) <= 0.5


def test_what_is_retryable() -> None:
    request = httpx.Request("GET", "https://content.test/v1/segments")
    assert is_retryable_status(500)
    assert is_retryable_status(503)
    assert not is_retryable_status(429)
    assert not is_retryable_status(404)
    assert is_retryable_transport_error(httpx.ConnectError("refused", request=request))
    assert is_retryable_transport_error(httpx.RemoteProtocolError("closed", request=request))
    assert not is_retryable_transport_error(httpx.ReadTimeout("slow", request=request))
    assert was_never_sent(httpx.ConnectError("refused", request=request))
    assert not was_never_sent(httpx.ReadTimeout("slow", request=request))
