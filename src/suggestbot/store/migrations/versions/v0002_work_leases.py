"""Units of deferred work and their leases, claimed by ready time.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

KEY = sa.Text(collation="C")


def upgrade() -> None:
    op.create_table(
        "work_leases",
        sa.Column("queue", KEY, primary_key=True),
        sa.Column("key", KEY, primary_key=True),
        sa.Column("due_at", sa.Float(), nullable=False),
        sa.Column("ready_at", sa.Float(), nullable=False),
        sa.Column("owner", sa.Text()),
        sa.Column("lease_until", sa.Float()),
    )
    op.create_index("ix_work_leases_ready", "work_leases", ["queue", "ready_at"])


def downgrade() -> None:
    op.drop_table("work_leases")
