"""Alembic migrations of the PostgreSQL schema, shipped inside the package so that an installed
app can upgrade its database (``suggestbot db upgrade``) without the source tree."""
