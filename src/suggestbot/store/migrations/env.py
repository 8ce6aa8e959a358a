"""Alembic's entry point: runs the migrations on the connection that the caller opened.

Only :mod:`suggestbot.store.pg_migrations` runs migrations (``suggestbot db upgrade``), so
there is no ``alembic.ini`` and no URL here: the connection arrives in the config's attributes.
"""

from __future__ import annotations

from alembic import context

from suggestbot.store.pg_schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run the migrations with `suggestbot db upgrade`")
context.configure(connection=connection, target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()
