"""Durable state of the app: one narrow interface, a SQLite backend, encryption, de-duplication.

Everything is imported from here::

    from suggestbot.store import DeliveryLog, TokenVault, open_store
"""

from suggestbot.store.base import Store
from suggestbot.store.crypto import MissingSecretKey, TokenVault, VaultError, generate_key
from suggestbot.store.deliveries import DeliveryLog
from suggestbot.store.integrity import StoreDamaged, backup
from suggestbot.store.memory import MemoryStore
from suggestbot.store.sqlite import SqliteStore, open_store

__all__ = [
    "DeliveryLog",
    "MemoryStore",
    "MissingSecretKey",
    "SqliteStore",
    "Store",
    "StoreDamaged",
    "TokenVault",
    "VaultError",
    "backup",
    "generate_key",
    "open_store",
]
