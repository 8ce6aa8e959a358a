"""Groups of units of deferred work, claimed together (a workspace's run polls).

The column defaults to the empty group, so the units already there keep being claimed (as one
group) and adding it rewrites nothing; the index, of the leased units only, answers "who holds
a live lease in which group" without visiting the free units.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

KEY = sa.Text(collation="C")


def upgrade() -> None:
    op.add_column("work_leases", sa.Column("grp", KEY, nullable=False, server_default=""))
    op.create_index(
        "ix_work_leases_group_lease",
        "work_leases",
        ["queue", "grp", "lease_until"],
        postgresql_where=sa.text("owner IS NOT NULL"),
        postgresql_include=["owner"],
    )


def downgrade() -> None:
    op.drop_index("ix_work_leases_group_lease", table_name="work_leases")
    op.drop_column("work_leases", "grp")
