"""Columns, indexes and tables for the reads of one user's or one workspace's records.

App Home and the lists read a user's requests of one kind, newest first; digest listings a
workspace's digests by their creator; a revoked workspace its active requests, what its people
typed while unlinked and its "Generate now" watches; the watch job the watches that are due;
a list as it starts the old lists to forget. The new columns are filled from the stored
records here, as every later write fills them, and the held inputs, watches and list pages move
out of ``kv_records`` into tables of their own.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

KEY = sa.Text(collation="C")


def _text(field: str) -> str:
    # As pg_schema's extractors: the field's value when it is a JSON string, else NULL ...
    return f"CASE WHEN json_typeof(value -> '{field}') = 'string' THEN value ->> '{field}' END"


def _number(field: str) -> str:
    # ... and when it is a JSON number (never a boolean), else NULL.
    return (
        f"CASE WHEN json_typeof(value -> '{field}') = 'number' "
        f"THEN (value ->> '{field}')::float END"
    )


def _own_table(name: str, columns: dict[str, sa.Text | sa.Float[float]]) -> None:
    """Create ``name`` with typed columns and move its rows out of ``kv_records``."""
    op.create_table(
        name,
        sa.Column("key", KEY, primary_key=True),
        sa.Column("value", sa.JSON(), nullable=False),
        *(sa.Column(column, kind) for column, kind in columns.items()),
    )
    read = {
        column: _text(column) if isinstance(kind, sa.Text) else _number(column)
        for column, kind in columns.items()
    }
    op.execute(
        f"INSERT INTO {name} (key, value, {', '.join(read)}) "
        f"SELECT key, value, {', '.join(read.values())} FROM kv_records WHERE tbl = '{name}'"
    )
    op.execute(f"DELETE FROM kv_records WHERE tbl = '{name}'")


def _back_to_kv_records(name: str) -> None:
    op.execute(f"INSERT INTO kv_records (tbl, key, value) SELECT '{name}', key, value FROM {name}")
    op.drop_table(name)


def upgrade() -> None:
    op.add_column("requests", sa.Column("kind", sa.Text()))
    op.execute(f"UPDATE requests SET kind = {_text('kind')}")
    op.create_index("ix_requests_team_state", "requests", ["team_id", "state"])
    op.add_column("digests", sa.Column("created_by", sa.Text()))
    op.execute(f"UPDATE digests SET created_by = {_text('created_by')}")
    op.create_index("ix_digests_team_creator", "digests", ["team_id", "created_by"])
    _own_table("held_inputs", {"team_id": sa.Text(), "created_at": sa.Float()})
    op.create_index("ix_held_inputs_team", "held_inputs", ["team_id"])
    op.create_index("ix_held_inputs_created", "held_inputs", ["created_at"])
    _own_table("inspiration_watches", {"team_id": sa.Text(), "next_poll_at": sa.Float()})
    op.create_index("ix_inspiration_watches_due", "inspiration_watches", ["next_poll_at"])
    op.create_index("ix_inspiration_watches_team", "inspiration_watches", ["team_id"])
    _own_table("list_pages", {"created_at": sa.Float()})
    op.create_index("ix_list_pages_created", "list_pages", ["created_at"])


def downgrade() -> None:
    _back_to_kv_records("list_pages")
    _back_to_kv_records("inspiration_watches")
    _back_to_kv_records("held_inputs")
    op.drop_index("ix_digests_team_creator", table_name="digests")
    op.drop_column("digests", "created_by")
    op.drop_index("ix_requests_team_state", table_name="requests")
    op.drop_column("requests", "kind")
