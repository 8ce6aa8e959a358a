"""The free units of deferred work by group and due time.

A run listing page read for some of its runs serves the polls of the others on it too, so the
reader claims the page group's free polls ahead of their time (``Store.claim_group_free``); the
index, of the free units only, finds them without visiting every unit due before them.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_work_leases_group_free",
        "work_leases",
        ["queue", "grp", "due_at"],
        postgresql_where=sa.text("owner IS NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_work_leases_group_free", table_name="work_leases")
