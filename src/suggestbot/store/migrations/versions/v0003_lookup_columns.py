"""Columns and indexes for the reads of one user's or one workspace's records.

App Home and the lists read a user's requests of one kind, newest first; digest listings a
workspace's digests by their creator; a revoked workspace its active requests. The new columns
are filled from the stored records here, as every later write fills them.

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


def _fill_text_column(table: str, field: str) -> None:
    # As pg_schema's extractor: the field's value when it is a JSON string, else NULL.
    op.execute(
        f"UPDATE {table} SET {field} = CASE WHEN json_typeof(value -> '{field}') = 'string' "
        f"THEN value ->> '{field}' END"
    )


def upgrade() -> None:
    op.add_column("requests", sa.Column("kind", sa.Text()))
    _fill_text_column("requests", "kind")
    op.create_index("ix_requests_team_state", "requests", ["team_id", "state"])
    op.add_column("digests", sa.Column("created_by", sa.Text()))
    _fill_text_column("digests", "created_by")
    op.create_index("ix_digests_team_creator", "digests", ["team_id", "created_by"])


def downgrade() -> None:
    op.drop_index("ix_digests_team_creator", table_name="digests")
    op.drop_column("digests", "created_by")
    op.drop_index("ix_requests_team_state", table_name="requests")
    op.drop_column("requests", "kind")
