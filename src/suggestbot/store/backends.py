"""Which backend holds the app's state: PostgreSQL when ``SUGGESTBOT_DATABASE_URL`` is set,
else the SQLite file in ``SUGGESTBOT_DATA_DIR`` (the zero-set-up default)."""

from __future__ import annotations

from pathlib import Path

from suggestbot.store.base import Store
from suggestbot.store.sqlite import open_store


def open_app_store(*, data_dir: Path, database_url: str | None) -> Store:
    """Open the configured backend.

    Raises:
        SchemaNotCurrent: PostgreSQL's schema is not this version's (run ``db upgrade``).
        StoreUnavailable: PostgreSQL cannot be reached.
        StoreDamaged: the SQLite file fails its integrity check.
    """
    if database_url:
        # Imported here: the SQLite default never loads SQLAlchemy.
        from suggestbot.store.postgres import PostgresStore

        return PostgresStore(database_url)
    return open_store(data_dir)


def database_password(database_url: str) -> str | None:
    """The password inside the URL, to register with the log redaction."""
    from suggestbot.store.postgres import database_url as parse

    return parse(database_url).password
