"""The store's tables: typed tables for what is queried, ``kv_records`` for the rest.

Revision ID: 0001
Revises:
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

KEY = sa.Text(collation="C")


def _record_table(name: str, *columns: sa.Column[object]) -> None:
    op.create_table(
        name,
        sa.Column("key", KEY, primary_key=True),
        sa.Column("value", sa.JSON(), nullable=False),
        *columns,
    )


def upgrade() -> None:
    op.create_table(
        "kv_records",
        sa.Column("tbl", KEY, primary_key=True),
        sa.Column("key", KEY, primary_key=True),
        sa.Column("value", sa.JSON(), nullable=False),
    )
    _record_table(
        "users",
        sa.Column("team_id", sa.Text()),
        sa.Column("user_id", sa.Text()),
        sa.Column("state", sa.Text()),
    )
    op.create_index("ix_users_team_state", "users", ["team_id", "state"])
    _record_table(
        "requests",
        sa.Column("team_id", sa.Text()),
        sa.Column("user_id", sa.Text()),
        sa.Column("state", sa.Text()),
        sa.Column("next_poll_at", sa.Float()),
        sa.Column("send_after", sa.Float()),
        sa.Column("created_at", sa.Float()),
    )
    op.create_index("ix_requests_state_next_poll", "requests", ["state", "next_poll_at"])
    op.create_index("ix_requests_state_send_after", "requests", ["state", "send_after"])
    op.create_index(
        "ix_requests_team_user_created", "requests", ["team_id", "user_id", "created_at"]
    )
    _record_table(
        "digests",
        sa.Column("team_id", sa.Text()),
        sa.Column("channel_id", sa.Text()),
        sa.Column("local_minute", sa.Integer()),
        sa.Column("tz", sa.Text()),
        sa.Column("paused", sa.Boolean(), nullable=False),
    )
    op.create_index("ix_digests_team_channel", "digests", ["team_id", "channel_id"])
    op.create_index("ix_digests_due", "digests", ["local_minute", "tz", "paused"])
    _record_table(
        "deliveries",
        sa.Column("at", sa.Float()),
        sa.Column("unfinished", sa.Boolean(), nullable=False),
    )
    op.create_index("ix_deliveries_at", "deliveries", ["at"])
    op.create_index("ix_deliveries_unfinished", "deliveries", ["unfinished"])
    for name in ("slack_installations", "slack_bots"):
        _record_table(
            name,
            sa.Column("team_id", sa.Text()),
            sa.Column("enterprise_id", sa.Text()),
        )
        op.create_index(f"ix_{name}_team", name, ["team_id"])
        op.create_index(f"ix_{name}_enterprise", name, ["enterprise_id"])


def downgrade() -> None:
    for name in (
        "slack_bots",
        "slack_installations",
        "deliveries",
        "digests",
        "requests",
        "users",
        "kv_records",
    ):
        op.drop_table(name)
