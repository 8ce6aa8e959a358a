"""Durable state of the app: one narrow interface, SQLite and PostgreSQL backends, encryption,
de-duplication.

Everything is imported from here::

    from suggestbot.store import DeliveryLog, TokenVault, open_store
"""

from suggestbot.store.backends import open_app_store
from suggestbot.store.base import Store
from suggestbot.store.crypto import MissingSecretKey, TokenVault, VaultError, generate_key
from suggestbot.store.deliveries import DeliveryLog
from suggestbot.store.errors import SchemaNotCurrent, StoreError, StoreUnavailable
from suggestbot.store.integrity import StoreDamaged, backup
from suggestbot.store.memory import MemoryStore
from suggestbot.store.sqlite import SqliteStore, open_store

__all__ = [
    "DeliveryLog",
    "MemoryStore",
    "MissingSecretKey",
    "SchemaNotCurrent",
    "SqliteStore",
    "Store",
    "StoreDamaged",
    "StoreError",
    "StoreUnavailable",
    "TokenVault",
    "VaultError",
    "backup",
    "generate_key",
    "open_app_store",
    "open_store",
]
