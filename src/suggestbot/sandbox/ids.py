"""Ids, opaque secrets and timestamps in the shapes the contract describes.

Ids are UUIDv7 so that listings sorted by id follow creation order (the contract says clients
must not rely on it, but the real service behaves that way, so we do too).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime

ACCESS_TOKEN_PREFIX = "sbx_at_"
USER_TOKEN_PREFIX = "sbx_ut_"
CLIENT_SECRET_PREFIX = "sbx_cs_"
ADMIN_KEY_PREFIX = "sbx_ak_"

UUID_PATTERN = r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now(UTC)


class IdFactory:
    """Mints UUIDv7 ids that sort in minting order, even with a clock that stands still."""

    def __init__(self, *, clock: Clock) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._last_ms = 0
        self._seq = 0

    def new(self) -> str:
        ms = int(self._clock().timestamp() * 1000)
        with self._lock:
            if ms <= self._last_ms:
                # Same (or an earlier, with a fake clock) millisecond: count up so order holds.
                ms = self._last_ms
                self._seq += 1
                if self._seq > 0xFFF:
                    ms += 1
                    self._seq = 0
            else:
                self._seq = secrets.randbelow(0x800)
            self._last_ms = ms
            seq = self._seq
        rand_b = int.from_bytes(os.urandom(8), "big") & ((1 << 62) - 1)
        value = (ms & ((1 << 48) - 1)) << 80 | 0x7 << 76 | seq << 64 | 0b10 << 62 | rand_b
        return str(uuid.UUID(int=value))


def new_secret(prefix: str) -> str:
    """A random opaque value behind a fixed prefix that secret scanners recognise."""
    return prefix + secrets.token_urlsafe(32)


def hash_secret(value: str) -> str:
    """Digest under which a secret is stored; the values are random, so a fast hash is enough."""
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


def format_ts(value: datetime) -> str:
    """RFC 3339 in UTC with millisecond precision and a ``Z`` suffix."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
