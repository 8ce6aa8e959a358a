"""Errors of the database backend, in a module of their own so that catching them does not
import SQLAlchemy (the SQLite default never loads it)."""

from __future__ import annotations


class StoreError(RuntimeError):
    """The database refused an operation; the message names the kind, never data or the URL."""


class StoreUnavailable(StoreError):
    """The database cannot be reached (down, restarting, refusing connections)."""


class SchemaNotCurrent(RuntimeError):
    """The database's schema is not the one this version of the app needs; says what to do."""
