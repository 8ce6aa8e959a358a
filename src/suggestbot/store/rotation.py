"""Which key each stored secret uses, and moving every one to the newest key.

Encrypted fields are found by name: a record's top-level string field ending in ``_enc`` holds
ciphertext (``token_enc``, ``bot_token_enc``, ``client_secret_enc``…). Rotation goes record by
record, each in one :meth:`~suggestbot.store.Store.update`: a record the app changes meanwhile
is re-read, never overwritten with an old copy, and a rotation stopped half way is simply run
again (records already under the newest key are left alone).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from suggestbot.store.base import Store
from suggestbot.store.codec import Record
from suggestbot.store.crypto import TokenVault

ENCRYPTED_SUFFIX = "_enc"


class KeyUse(enum.Enum):
    """Where a record's secrets stand against the configured keys."""

    NONE = "none"  # holds no secret
    CURRENT = "current"  # every secret under the first key
    OLDER = "older"  # at least one secret under an older key, none unreadable
    UNREADABLE = "unreadable"  # at least one secret no configured key decrypts


@dataclass
class KeyCensus:
    """How many records of each kind (records without secrets are not counted)."""

    current: int = 0
    older: int = 0
    unreadable: int = 0
    rotated: int = 0  # moved to the first key by this pass (rotation only)
    unreadable_records: list[tuple[str, str]] = field(default_factory=list)  # (table, key)

    def count(self, table: str, key: str, use: KeyUse) -> None:
        """Count one record's secrets under what ``use`` says of their key."""
        if use is KeyUse.CURRENT:
            self.current += 1
        elif use is KeyUse.OLDER:
            self.older += 1
        elif use is KeyUse.UNREADABLE:
            self.unreadable += 1
            self.unreadable_records.append((table, key))


def secret_fields(record: Record) -> list[str]:
    """Names of the fields of ``record`` that hold ciphertext."""
    return [
        name
        for name, value in record.items()
        if name.endswith(ENCRYPTED_SUFFIX) and isinstance(value, str)
    ]


def key_use(record: Record, vault: TokenVault) -> KeyUse:
    """Where the record's secrets stand: all under the first key, some under an older one,
    some under no configured key, or none held."""
    positions = [vault.key_position(record[name]) for name in secret_fields(record)]
    if not positions:
        return KeyUse.NONE
    if any(position is None for position in positions):
        return KeyUse.UNREADABLE
    if any(position != 0 for position in positions):
        return KeyUse.OLDER
    return KeyUse.CURRENT


def census(*, store: Store, vault: TokenVault, tables: Iterable[str]) -> KeyCensus:
    """Count the records of ``tables`` by :class:`KeyUse` (reads only)."""
    result = KeyCensus()
    for table in tables:
        for key, record in store.items(table):
            result.count(table, key, key_use(record, vault))
    return result


def rotate(
    *,
    store: Store,
    vault: TokenVault,
    tables: Iterable[str],
    progress: Callable[[str, str, KeyUse], None] | None = None,
) -> KeyCensus:
    """Re-encrypt every secret of ``tables`` under the vault's first key, one record at a time.

    A secret no key decrypts is left as it is (rotating cannot rescue it) and counted as
    unreadable. ``progress`` is told each record's standing before it was rotated.
    Returns the census after the pass: ``rotated`` records moved, the rest as found.
    """
    result = KeyCensus()
    for table in tables:
        for key, _ in store.items(table):
            found: list[KeyUse] = []

            def move(old: Record | None, found: list[KeyUse] = found) -> Record | None:
                found.clear()
                if old is None:  # deleted meanwhile
                    return None
                use = key_use(old, vault)
                found.append(use)
                if use is not KeyUse.OLDER:
                    return old
                new = dict(old)
                for name in secret_fields(old):
                    new[name] = vault.rotate(old[name])
                return new

            store.update(table, key, move)
            if not found:
                continue
            use = found[0]
            if use is KeyUse.OLDER:
                result.rotated += 1
                result.current += 1
            else:
                result.count(table, key, use)
            if progress is not None:
                progress(table, key, use)
    return result
