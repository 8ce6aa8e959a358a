"""One module per schema revision, oldest first (alembic skips this file)."""
