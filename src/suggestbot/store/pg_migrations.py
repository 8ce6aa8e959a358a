"""Applying the PostgreSQL schema's migrations, and refusing to run on a schema that is behind.

Migrations run only when an operator asks (``suggestbot db upgrade``), never as a side effect of
starting the app: with several replicas, the one that happens to start first must not change the
schema under the others. Starting on a schema that is not the one this code was written for
stops with a message that names the command to run.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, text

from suggestbot.store.errors import SchemaNotCurrent

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
# Two ``db upgrade`` at once (two replicas' release jobs) take turns on this lock.
_UPGRADE_LOCK = 0x5367_4442_5550  # arbitrary, constant


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


def head_revision() -> str:
    """The newest revision this version of the app ships."""
    head = ScriptDirectory.from_config(_config()).get_current_head()
    if head is None:  # pragma: no cover - the package always ships revisions
        raise RuntimeError("no schema migrations are shipped with this package")
    return head


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at (None: no suggestbot schema yet)."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine) -> tuple[str | None, str]:
    """Bring the schema to the newest revision; return ``(revision before, revision after)``.

    Runs in one transaction (PostgreSQL's DDL is transactional): an upgrade that fails leaves
    the schema as it was.
    """
    config = _config()
    with engine.begin() as connection:
        connection.execute(text("SELECT pg_advisory_xact_lock(:lock)"), {"lock": _UPGRADE_LOCK})
        before = MigrationContext.configure(connection).get_current_revision()
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
    return before, head_revision()


def check_current(engine: Engine) -> None:
    """Raise :class:`SchemaNotCurrent` unless the schema is at this version's newest revision."""
    current = current_revision(engine)
    head = head_revision()
    if current == head:
        return
    if current is None:
        raise SchemaNotCurrent(
            "the database has no suggestbot tables yet: run `suggestbot db upgrade` (same "
            "SUGGESTBOT_DATABASE_URL), then start again"
        )
    known = {script.revision for script in ScriptDirectory.from_config(_config()).walk_revisions()}
    if current in known:
        raise SchemaNotCurrent(
            f"the database schema is behind this version of suggestbot (at revision {current}, "
            f"needs {head}): run `suggestbot db upgrade` (same SUGGESTBOT_DATABASE_URL), "
            "then start again"
        )
    raise SchemaNotCurrent(
        f"the database schema (revision {current}) is newer than this version of suggestbot "
        f"knows (newest {head}): run the newer version, or restore the database"
    )
