"""Identifiers the emulator hands out: message ``ts`` values and Slack-style object ids.

Slack's ``ts`` is a string of seconds and microseconds ("1700000000.000100") that is unique
within a channel and grows with time; apps sort by it and use it as a message key, so the
emulator keeps it strictly increasing across the whole workspace even when two messages land
in the same microsecond.
"""

from __future__ import annotations

import itertools
import secrets
import string
import threading
import time
from collections.abc import Callable

_ALPHABET = string.ascii_uppercase + string.digits


class TsClock:
    """Issues strictly increasing message timestamps from a wall clock."""

    def __init__(self, *, wall_clock: Callable[[], float] = time.time) -> None:
        self._wall_clock = wall_clock
        self._last_us = 0
        self._lock = threading.Lock()

    def next_ts(self) -> str:
        with self._lock:
            now_us = int(self._wall_clock() * 1_000_000)
            self._last_us = max(now_us, self._last_us + 1)
            seconds, micros = divmod(self._last_us, 1_000_000)
            return f"{seconds}.{micros:06d}"


class IdFactory:
    """Slack-looking ids (``C…``, ``D…``, ``V…``, ``F…``): a prefix and nine characters."""

    def __init__(self) -> None:
        self._counter = itertools.count(1)
        self._lock = threading.Lock()

    def new(self, prefix: str) -> str:
        with self._lock:
            number = next(self._counter)
        # A readable sequence number keeps transcripts and failures easy to follow; the random
        # tail keeps ids from two emulators in one test apart.
        return f"{prefix}{number:04d}{_random_tail(5)}"

    def token(self, nbytes: int = 12) -> str:
        return secrets.token_hex(nbytes)


def _random_tail(length: int) -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(length))


def ts_to_float(ts: str) -> float:
    """Order-preserving numeric value of a ``ts`` (raises ``ValueError`` when malformed)."""
    seconds, _, micros = ts.partition(".")
    if not seconds.isdigit() or (micros and not micros.isdigit()):
        raise ValueError(f"not a Slack ts: {ts!r}")
    return float(ts)
