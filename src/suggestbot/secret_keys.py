"""The app's encryption keys against what is stored: counted at start, rotated on request.

``SUGGESTBOT_SECRET_KEYS`` lists keys newest first. At start the app counts the records whose
secrets still use an older key (so the operator knows whether ``suggestbot rotate-keys`` has
finished) and those no configured key can decrypt. A linked user whose token cannot be
decrypted is marked expired, exactly as when the service rejects a token: they are asked to
connect again, what they typed is kept, and no job keeps retrying with a token it cannot read.
The operator gets one log line naming the key problem, and ``/healthz`` reports it.

``suggestbot rotate-keys`` (:func:`main`) re-encrypts everything under the first key, record by
record, while the app runs.
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from suggestbot.config import Settings
from suggestbot.logs import configure_logging
from suggestbot.store import (
    SchemaNotCurrent,
    Store,
    StoreDamaged,
    StoreError,
    TokenVault,
    VaultError,
    open_app_store,
)
from suggestbot.store.deliveries import TABLE as DELIVERIES_TABLE
from suggestbot.store.records import SECRET_TABLES, USERS, LinkedUser, Records
from suggestbot.store.rotation import KeyCensus, KeyUse, census, rotate

log = logging.getLogger(__name__)

# Rotation also moves interactions kept (sealed) until their work is done. They are not counted
# at start or by /healthz: most deliveries hold none, and the table is large.
ROTATED_TABLES = (*SECRET_TABLES, DELIVERIES_TABLE)
KEYS_SETTING = "SUGGESTBOT_SECRET_KEYS"
RECOUNT_EVERY_S = 60.0


class KeyHealth:
    """What ``/healthz`` says about the stored secrets, counted again at most every ``ttl_s``.

    Recounting shows a rotation finishing, or users reconnecting, without a restart; the
    count decrypts every stored secret once, so it is not done on every probe.

    Args:
        store, vault: what to count with.
        ttl_s: how long a count is reused.
        clock: monotonic seconds; tests pass a fake one.
    """

    def __init__(
        self,
        *,
        store: Store,
        vault: TokenVault,
        ttl_s: float = RECOUNT_EVERY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._vault = vault
        self._ttl_s = ttl_s
        self._clock = clock
        self._lock = threading.Lock()
        self._counted: tuple[float, KeyCensus] | None = None

    def __repr__(self) -> str:
        return f"KeyHealth(ttl_s={self._ttl_s})"

    def record(self, found: KeyCensus) -> None:
        """Keep a count just taken (at start)."""
        with self._lock:
            self._counted = (self._clock(), found)

    def status(self) -> dict[str, Any]:
        """``{"unreadable": n, "older_key": n}``: records no key decrypts / under an old key."""
        with self._lock:
            now = self._clock()
            if self._counted is None or now - self._counted[0] >= self._ttl_s:
                found = census(store=self._store, vault=self._vault, tables=SECRET_TABLES)
                self._counted = (now, found)
            counted = self._counted[1]
            return {"unreadable": counted.unreadable, "older_key": counted.older}


def check_at_start(
    *, store: Store, vault: TokenVault, clock: Callable[[], float] = time.time
) -> KeyCensus:
    """Count the stored secrets by key, log the result, expire users whose token is unreadable."""
    found = census(store=store, vault=vault, tables=SECRET_TABLES)
    if found.older:
        log.warning(
            "%d stored record(s) still use an older key of %s: run 'suggestbot rotate-keys' "
            "before removing that key",
            found.older,
            KEYS_SETTING,
        )
    else:
        log.info(
            "stored secrets: %d record(s) under the first key, none under an older one",
            found.current,
        )
    if found.unreadable:
        tables = sorted({table for table, _ in found.unreadable_records})
        log.error(
            "%d stored record(s) (%s) hold secrets that no key in %s can decrypt: a key was "
            "removed before 'suggestbot rotate-keys' finished, or the keys are not the ones "
            "this data was written with. Put the missing key back (as a later entry) to "
            "recover them; affected users are asked to connect again",
            found.unreadable,
            ", ".join(tables),
            KEYS_SETTING,
        )
    expire_unreadable_users(store=store, found=found, clock=clock)
    return found


def expire_unreadable_users(
    *, store: Store, found: KeyCensus, clock: Callable[[], float] = time.time
) -> int:
    """Mark each linked user whose token no key decrypts as expired; returns how many."""
    users = Records(store).users
    expired = 0
    for table, key in found.unreadable_records:
        if table != USERS:
            continue

        def expire(user: LinkedUser) -> LinkedUser:
            if user.state == "expired" and user.expired_reason == "unreadable":
                return user
            return user.model_copy(
                update={"state": "expired", "expired_at": clock(), "expired_reason": "unreadable"}
            )

        if users.update(key, expire) is not None:
            expired += 1
    return expired


def main(argv: list[str]) -> int:
    """``suggestbot rotate-keys``: re-encrypt every stored secret under the first key."""
    parser = argparse.ArgumentParser(
        prog="suggestbot rotate-keys",
        description="Re-encrypt every stored secret under the first key of "
        f"{KEYS_SETTING}. Safe while the app runs; run it again if it was interrupted.",
    )
    parser.parse_args(argv)
    settings = Settings()
    configure_logging(level=settings.log_level, json=settings.log_json)
    keys = settings.suggestbot_secret_keys
    try:
        vault = TokenVault.from_setting(keys.get_secret_value() if keys else None)
        store = open_app_store(
            data_dir=settings.suggestbot_data_dir, database_url=settings.database_url
        )
    except (VaultError, StoreDamaged, SchemaNotCurrent, StoreError) as exc:
        print(f"suggestbot rotate-keys: {exc}", file=sys.stderr)
        return 2
    # Unreadable records are only reported: these keys may differ from the app's by mistake,
    # and the app itself expires the users it cannot read.
    with store:
        result = rotate(store=store, vault=vault, tables=ROTATED_TABLES)
    print(
        f"re-encrypted {result.rotated} record(s) under the first key; "
        f"{result.current - result.rotated} already were"
    )
    if result.unreadable:
        tables = ", ".join(sorted({table for table, _ in result.unreadable_records}))
        print(
            f"{result.unreadable} record(s) ({tables}) cannot be decrypted with any key of "
            f"{KEYS_SETTING}; they were left as they are. Check that these are the app's keys; "
            "add the key they were written with (after the first) and run this again, or "
            "have those users connect again.",
            file=sys.stderr,
        )
        return 1
    print(
        f"every stored secret now uses the first key: older keys can be removed from {KEYS_SETTING}"
    )
    return 0


__all__ = ["KeyHealth", "KeyUse", "check_at_start", "main"]
