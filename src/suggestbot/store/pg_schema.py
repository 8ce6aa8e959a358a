"""The PostgreSQL tables behind the store's named tables, and the columns read out of records.

Each store table the app queries by more than its key gets a table of its own: the key as the
primary key, the record as JSON, and typed, indexed columns taken from the record on every
write (so they can never disagree with it). Every other store table shares ``kv_records``,
keyed by ``(tbl, key)``: a table the app adds later needs no migration.

Why ``json`` and not ``jsonb`` for the record: ``json`` keeps the codec's text exactly (key
order, number spelling) as SQLite does, and accepts ``\\u0000`` inside strings, which ``jsonb``
refuses; what is queried lives in the typed columns anyway.

Why ``COLLATE "C"`` on keys: ``Store.items`` is sorted by code point, as Python sorts ``str``,
and the primary key index then serves that order.

``Store.items_where`` and ``Store.items_matching`` read by the typed columns: recovery and the
status renewal read the active requests by state, App Home and the lists a user's requests by
``(team_id, user_id, created_at)``, a workspace's revocation its requests by
``(team_id, state)``, its digests, users, held inputs and watches by team; digest listings read
by team and channel or team and creator; the watch job the watches due by ``next_poll_at``, a
list as it starts the old list pages by ``created_at``. Deferred work is claimed from
``work_leases``. The migrations in ``migrations/versions`` create exactly these tables (a test
compares them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Float,
    Index,
    Integer,
    MetaData,
    Table,
    Text,
    text,
)

from suggestbot.store.codec import Record

metadata = MetaData()

KEY_TYPE = Text(collation="C")

Extractor = Callable[[Record], Any]


def _text(field: str) -> Extractor:
    def extract(record: Record) -> str | None:
        value = record.get(field)
        return value if isinstance(value, str) else None

    return extract


def _number(field: str) -> Extractor:
    def extract(record: Record) -> float | None:
        value = record.get(field)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        return float(value)

    return extract


def _flag(field: str) -> Extractor:
    def extract(record: Record) -> bool:
        return record.get(field) is True

    return extract


def _present(field: str) -> Extractor:
    def extract(record: Record) -> bool:
        return record.get(field) is not None

    return extract


def local_minute(record: Record) -> int | None:
    """A digest's ``time`` (local ``HH:MM`` in its ``tz``) as minutes after local midnight.

    With ``tz`` beside it, "which digests are due at this UTC minute" is one indexed lookup per
    time zone in use, with no schedule arithmetic stored that could go stale.
    """
    value = record.get("time")
    if not isinstance(value, str):
        return None
    hours, sep, minutes = value.partition(":")
    if not (sep and hours.isdigit() and minutes.isdigit()):
        return None
    hour, minute = int(hours), int(minutes)
    if hour > 23 or minute > 59:
        return None
    return hour * 60 + minute


@dataclass(frozen=True)
class Derived:
    """A record field answered by a column computed from it: ``column`` holds
    ``convert(value)`` for the field's ``value``, so "field is one of these values" is "column
    is one of the converted ones" (a superset where two values convert alike)."""

    column: str
    convert: Callable[[Any], Any]


@dataclass(frozen=True)
class TypedTable:
    """A store table with a PostgreSQL table of its own and columns read from its records."""

    table: Table
    extract: dict[str, Extractor]
    derived: dict[str, Derived] = field(default_factory=dict)

    def columns_of(self, record: Record) -> dict[str, Any]:
        return {name: read(record) for name, read in self.extract.items()}


def _typed(
    name: str,
    *columns: tuple[Column[Any], Extractor],
    indexes: list[Index],
    derived: dict[str, Derived] | None = None,
) -> TypedTable:
    table = Table(
        name,
        metadata,
        Column("key", KEY_TYPE, primary_key=True),
        Column("value", JSON(), nullable=False),
        *(column for column, _ in columns),
        *indexes,
    )
    return TypedTable(table, {column.name: read for column, read in columns}, derived or {})


KV_RECORDS = Table(
    "kv_records",
    metadata,
    Column("tbl", KEY_TYPE, primary_key=True),
    Column("key", KEY_TYPE, primary_key=True),
    Column("value", JSON(), nullable=False),
)

WORK_LEASES = Table(
    "work_leases",
    metadata,
    Column("queue", KEY_TYPE, primary_key=True),
    Column("key", KEY_TYPE, primary_key=True),
    Column("due_at", Float, nullable=False),
    # When due while free, when the lease runs out while leased: the one indexed order a claim
    # reads, so a claim walks only units that are due or whose lease is about to run out.
    Column("ready_at", Float, nullable=False),
    Column("owner", Text),
    Column("lease_until", Float),
    # Units claimed together (``Store.claim_due_grouped``: a workspace's run polls), and the
    # index of the leased units only, which tells who holds a live lease in which group.
    Column("grp", KEY_TYPE, nullable=False, server_default=""),
    Index("ix_work_leases_ready", "queue", "ready_at"),
    Index(
        "ix_work_leases_group_lease",
        "queue",
        "grp",
        "lease_until",
        postgresql_where=text("owner IS NOT NULL"),
        postgresql_include=["owner"],
    ),
    # The free units by group and due time: a group's units claimed ahead of time
    # (``Store.claim_group_free``) without visiting every unit due before them.
    Index(
        "ix_work_leases_group_free",
        "queue",
        "grp",
        "due_at",
        postgresql_where=text("owner IS NULL"),
    ),
)
"""Units of deferred work and their leases (``Store.claim_due``): see ``postgres``."""

TYPED: dict[str, TypedTable] = {
    typed.table.name: typed
    for typed in (
        # Linked users (records.LinkedUser): a team's users by link state.
        _typed(
            "users",
            (Column("team_id", Text), _text("team_id")),
            (Column("user_id", Text), _text("user_id")),
            (Column("state", Text), _text("state")),
            indexes=[Index("ix_users_team_state", "team_id", "state")],
        ),
        # Run requests (records.Request): active ones by state and when they are next due.
        _typed(
            "requests",
            (Column("team_id", Text), _text("team_id")),
            (Column("user_id", Text), _text("user_id")),
            (Column("state", Text), _text("state")),
            (Column("next_poll_at", Float), _number("next_poll_at")),
            (Column("send_after", Float), _number("send_after")),
            (Column("created_at", Float), _number("created_at")),
            (Column("kind", Text), _text("kind")),
            indexes=[
                Index("ix_requests_state_next_poll", "state", "next_poll_at"),
                Index("ix_requests_state_send_after", "state", "send_after"),
                Index("ix_requests_team_user_created", "team_id", "user_id", "created_at"),
                Index("ix_requests_team_state", "team_id", "state"),
            ],
        ),
        # Digests (records.Digest): by workspace and channel, and due by local minute and zone.
        _typed(
            "digests",
            (Column("team_id", Text), _text("team_id")),
            (Column("channel_id", Text), _text("channel_id")),
            (Column("local_minute", Integer), local_minute),
            (Column("tz", Text), _text("tz")),
            (Column("paused", Boolean, nullable=False), _flag("paused")),
            (Column("created_by", Text), _text("created_by")),
            indexes=[
                Index("ix_digests_team_channel", "team_id", "channel_id"),
                Index("ix_digests_due", "local_minute", "tz", "paused"),
                Index("ix_digests_team_creator", "team_id", "created_by"),
            ],
            # The wave asks for the local times that fell due since its last minute.
            derived={"time": Derived("local_minute", lambda value: local_minute({"time": value}))},
        ),
        # What a user typed while unlinked (records.HeldInput): a workspace's, the old ones.
        _typed(
            "held_inputs",
            (Column("team_id", Text), _text("team_id")),
            (Column("created_at", Float), _number("created_at")),
            indexes=[
                Index("ix_held_inputs_team", "team_id"),
                Index("ix_held_inputs_created", "created_at"),
            ],
        ),
        # "Generate now" watches (offers.Watch): the due ones every few seconds, a workspace's.
        _typed(
            "inspiration_watches",
            (Column("team_id", Text), _text("team_id")),
            (Column("next_poll_at", Float), _number("next_poll_at")),
            indexes=[
                Index("ix_inspiration_watches_due", "next_poll_at"),
                Index("ix_inspiration_watches_team", "team_id"),
            ],
        ),
        # Lists being paged (conversation.ListState): the old ones, forgotten as a list starts.
        _typed(
            "list_pages",
            (Column("created_at", Float), _number("created_at")),
            indexes=[Index("ix_list_pages_created", "created_at")],
        ),
        # Slack deliveries (store.deliveries): pruned by time; unfinished ones replayed.
        _typed(
            "deliveries",
            (Column("at", Float), _number("at")),
            (Column("unfinished", Boolean, nullable=False), _present("pending_enc")),
            indexes=[
                Index("ix_deliveries_at", "at"),
                Index("ix_deliveries_unfinished", "unfinished"),
            ],
        ),
        # Slack installations and bots (installations.store): a team's, an enterprise's.
        _typed(
            "slack_installations",
            (Column("team_id", Text), _text("team_id")),
            (Column("enterprise_id", Text), _text("enterprise_id")),
            indexes=[
                Index("ix_slack_installations_team", "team_id"),
                Index("ix_slack_installations_enterprise", "enterprise_id"),
            ],
        ),
        _typed(
            "slack_bots",
            (Column("team_id", Text), _text("team_id")),
            (Column("enterprise_id", Text), _text("enterprise_id")),
            indexes=[
                Index("ix_slack_bots_team", "team_id"),
                Index("ix_slack_bots_enterprise", "enterprise_id"),
            ],
        ),
    )
}
