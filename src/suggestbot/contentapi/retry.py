"""What the client retries and how long it waits.

Retried (up to ``max_retries`` times, with capped exponential backoff jittered downwards):
idempotent requests — every read, the inspiration trigger (repeating it joins the generation in
progress), URL minting and a rename — after a 5xx or a network failure in which no answer
arrived (refused, reset, closed before the response).

Not retried:

- run creation and draft saving: a second send could create a second run or draft. A lost
  answer to run creation becomes ``RunCreationUncertain``;
- 4xx, including 429: ``RateLimited`` carries the wait and the caller decides (the app delays
  the submission; a user should not be stuck behind a hidden wait);
- read and write timeouts: the service is slow rather than gone, and retrying would multiply
  the time a user waits for an answer.

The sleep function is injected into the client, so tests never wait for real.
"""

from __future__ import annotations

import email.utils
import math
import random
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Final

import httpx

DEFAULT_MAX_RETRIES: Final = 2
INITIAL_BACKOFF_S: Final = 0.5
MAX_BACKOFF_S: Final = 8.0
# Each wait is shortened by a random fraction up to this, so clients that failed together do not
# come back together.
JITTER_FRACTION: Final = 0.25
# Used when a 429 has no Retry-After or one that cannot be read.
DEFAULT_RETRY_AFTER_S: Final = 10.0

# Failures in which no response arrived and the connection, not the service, is at fault.
_RETRYABLE_TRANSPORT_ERRORS: Final = (
    httpx.NetworkError,  # connect, read, write, close errors
    httpx.RemoteProtocolError,  # e.g. a pooled connection closed before the response
    httpx.ConnectTimeout,
)
# Failures that happen before any byte of the request is written.
_NOT_SENT_ERRORS: Final = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


def is_retryable_status(status: int) -> bool:
    """True for 5xx: the service failed, a repeat of an idempotent request may succeed."""
    return 500 <= status <= 599


def is_retryable_transport_error(exc: httpx.TransportError) -> bool:
    """Whether a transport error is worth retrying: no response arrived and the connection,
    not the service, is at fault (network errors, a pooled connection closed, a connect timeout).
    """
    return isinstance(exc, _RETRYABLE_TRANSPORT_ERRORS)


def was_never_sent(exc: httpx.TransportError) -> bool:
    """True when the failure happened before the request could reach the service."""
    return isinstance(exc, _NOT_SENT_ERRORS)


def backoff_delay(retry_number: int, *, rand: Callable[[], float] = random.random) -> float:
    """Seconds to wait before retry ``retry_number`` (1 for the first retry).

    0.5 s, 1 s, 2 s, ... capped at 8 s, each shortened by up to 25 % at random.
    """
    base = min(MAX_BACKOFF_S, INITIAL_BACKOFF_S * 2.0 ** max(0, retry_number - 1))
    return base * (1.0 - JITTER_FRACTION * rand())


def parse_retry_after(value: str | None, *, now: datetime) -> float:
    """Seconds to wait from a ``Retry-After`` header: delay-seconds or an HTTP-date.

    Args:
        value: the header value, or None when absent.
        now: the current wall-clock time (aware), to turn a date into a delay.

    Returns:
        Seconds, never negative (a date in the past gives 0). ``DEFAULT_RETRY_AFTER_S`` when the
        header is absent or unreadable.
    """
    if value is None:
        return DEFAULT_RETRY_AFTER_S
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return DEFAULT_RETRY_AFTER_S
        if when.tzinfo is None:  # HTTP-dates are always GMT
            when = when.replace(tzinfo=UTC)
        return max(0.0, (when - now).total_seconds())
    if not math.isfinite(seconds) or seconds < 0:
        return DEFAULT_RETRY_AFTER_S
    return seconds
