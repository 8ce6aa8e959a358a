"""Every table reads what earlier versions wrote, and the compact ones keep their shape.

These tables were once written as plain dicts by the flows. A store written then must still
read through the typed accessors, and the records that were small dicts (the posted-once marks)
must be written in exactly that shape again, so that an older copy of the app reading the same
file (a rollback) still understands them.
"""

from __future__ import annotations

from typing import Any

import pytest

from suggestbot.store import MemoryStore
from suggestbot.store.conversation import ListState, PendingInstruction
from suggestbot.store.marks import DigestDelivery, PostMark, ShareMark
from suggestbot.store.offers import Offer, OfferedVariant, Watch
from suggestbot.store.records import (
    CONTENT_LOCALE_KEY,
    Digest,
    HealthProbe,
    LocaleState,
    Records,
)
from suggestbot.store.workspaces import ServiceCredentials, StoredBot, StoredInstallation

# (table, key, the dict an earlier version wrote, accessor name, the fields as read back)
OLD_RECORDS: list[tuple[str, str, dict[str, Any], str, dict[str, Any]]] = [
    ("posts", "r1:2", {"state": "intent"}, "posts", {"state": "intent", "ts": None}),
    ("posts", "r1:3", {"state": "posted", "ts": "1.5"}, "posts", {"ts": "1.5"}),
    ("posts", "r1:turn:1", {"ts": None}, "posts", {"state": None, "ts": None}),
    (
        "digest_deliveries",
        "d1:2030-01-07",
        {"state": "claimed", "at": 10.0},
        "digest_deliveries",
        {"state": "claimed", "at": 10.0, "handled": False},
    ),
    (
        "digest_deliveries",
        "d1:2030-01-08",
        {
            "state": "posted",
            "ts": "2.0",
            "version": 3,
            "at": 10.0,
            "delivered_at": 11.0,
            "problem": None,
        },
        "digest_deliveries",
        {"state": "posted", "ts": "2.0", "version": 3, "delivered_at": 11.0, "handled": True},
    ),
    (
        "digest_deliveries",
        "d1:2030-01-09",
        {"state": "quiet", "version": None, "at": 10.0, "problem": "content_locale_mismatch"},
        "digest_deliveries",
        {"state": "quiet", "problem": "content_locale_mismatch", "handled": True},
    ),
    (
        "digest_deliveries",
        "d1:2030-01-10",
        {"state": "failed", "at": 10.0, "error": "not_in_channel"},
        "digest_deliveries",
        {"state": "failed", "error": "not_in_channel", "handled": False},
    ),
    (
        "inspiration_shares",
        "o1:1",
        {"state": "intent", "at": 5.0},
        "shares",
        {"state": "intent", "at": 5.0, "ts": None},
    ),
    (
        "inspiration_shares",
        "o1:2",
        {"state": "posted", "ts": "3.0"},
        "shares",
        {"state": "posted", "ts": "3.0"},
    ),
    ("list_cursors", "ref1", {"cursor": "abc=="}, "legacy_cursors", {"cursor": "abc=="}),
    (
        "workspace",
        CONTENT_LOCALE_KEY,
        {"learned": "de", "learned_at": 4.0, "reported": "de"},
        "workspace",
        {"learned": "de", "reported": "de"},
    ),
    ("health", "probe", {"at": 7.5}, "health", {"at": 7.5}),
    ("oauth_states", "n0nce", {"expires_at": 600.0}, "oauth_states", {"expires_at": 600.0}),
    (
        "thread_bindings",
        "C1:1.0",
        {
            "team_id": "T1",
            "channel": "C1",
            "thread_ts": "1.0",
            "origin": "brief",
            "suggestions": [{"suggestion_id": "s1", "variant_no": 1, "kind": "email"}],
            "service_thread_id": "th_1",
            "turn_count": 2,
        },
        "thread_lineages",
        {"service_thread_id": "th_1"},
    ),
]

# Records that were written with every field (pydantic dumps before they moved into store/).
FULL_RECORDS: list[tuple[str, str, Any]] = [
    (
        "service_credentials",
        "service_credentials",
        ServiceCredentials(
            team_id="T1",
            base_url="https://content.example",
            client_id="cid",
            client_secret_enc="gAAAA-ciphertext",
            set_by="U1",
            set_at=1.0,
        ),
    ),
    (
        "slack_bots",
        "slack_bots",
        StoredBot(team_id="T1", bot_token_enc="gAAAA-bot", bot_scopes=["chat:write"]),
    ),
    (
        "slack_installations",
        "slack_installations",
        StoredInstallation(team_id="T1", user_id="U1", bot_token_enc="gAAAA-bot", user_scopes=[]),
    ),
    (
        "inspiration_offers",
        "offers",
        Offer(
            team_id="T1",
            user_id="U1",
            channel_id="C1",
            segment_id="s",
            use_case_id="u",
            segment_name="Hikers",
            use_case_name="Launch",
            locale="en",
            version=2,
            suggestion_set_id="set1",
            variants=[OfferedVariant(suggestion_id="s1", variant_no=1, kind="email")],
            created_at=1.0,
        ),
    ),
    (
        "inspiration_watches",
        "watches",
        Watch(
            team_id="T1",
            user_id="U1",
            channel_id="C1",
            segment_id="s",
            use_case_id="u",
            segment_name="Hikers",
            use_case_name="Launch",
            locale="en",
            started_at=1.0,
            next_poll_at=11.0,
        ),
    ),
    (
        "list_pages",
        "lists",
        ListState(kind="threads", team_id="T1", user_id="U1", cursor="c", page=2, created_at=1.0),
    ),
    (
        "pending_instructions",
        "pending",
        PendingInstruction(
            team_id="T1", user_id="U1", channel="C1", thread_ts="1.0", text="shorter", created_at=1
        ),
    ),
    (
        "digests",
        "digests",
        Digest(
            team_id="T1",
            channel_id="C1",
            created_by="U1",
            segment_id="s",
            use_case_id="u",
            segment_name="Hikers",
            use_case_name="Launch",
            time="09:00",
            tz="Europe/Berlin",
            weekdays=[0, 1],
        ),
    ),
]


@pytest.mark.parametrize(
    ("table", "key", "old", "accessor", "expected"),
    OLD_RECORDS,
    ids=[f"{table}:{key}" for table, key, *_ in OLD_RECORDS],
)
def test_a_record_in_its_old_dict_shape_reads_through_its_typed_accessor(
    table: str, key: str, old: dict[str, Any], accessor: str, expected: dict[str, Any]
) -> None:
    store = MemoryStore()
    store.put(table, key, old)
    record = getattr(Records(store), accessor).get(key)
    assert record is not None
    assert {name: getattr(record, name) for name in expected} == expected
    assert [k for k, _ in getattr(Records(store), accessor).items()] == [key]


@pytest.mark.parametrize(
    ("table", "key", "record"),
    [
        ("posts", "r1:2", PostMark(state="intent")),
        ("posts", "r1:3", PostMark(state="posted", ts="1.5")),
        ("posts", "r1:turn:1", PostMark(ts=None)),
        ("digest_deliveries", "d1:2030-01-07", DigestDelivery(state="claimed", at=10.0)),
        (
            "digest_deliveries",
            "d1:2030-01-08",
            DigestDelivery(
                state="posted", ts="2.0", version=3, at=10.0, delivered_at=11.0, problem=None
            ),
        ),
        (
            "digest_deliveries",
            "d1:2030-01-10",
            DigestDelivery(state="failed", at=10.0, error="not_in_channel"),
        ),
        ("inspiration_shares", "o1:1", ShareMark(state="intent", at=5.0)),
        ("inspiration_shares", "o1:2", ShareMark(state="posted", ts="3.0")),
        ("health", "probe", HealthProbe(at=7.5)),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_compact_records_are_written_in_their_old_dict_shape(
    table: str, key: str, record: Any
) -> None:
    store = MemoryStore()
    records = Records(store)
    accessor = {
        "posts": records.posts,
        "digest_deliveries": records.digest_deliveries,
        "inspiration_shares": records.shares,
        "health": records.health,
    }[table]
    accessor.put(key, record)
    old = next(o for t, k, o, _, _ in OLD_RECORDS if (t, k) == (table, key))
    assert store.get(table, key) == old


# Named by table and type, not by value: some records hold random ids, and every worker of a
# parallel run must collect the same tests.
@pytest.mark.parametrize(
    ("table", "accessor", "record"),
    FULL_RECORDS,
    ids=[f"{table}-{type(record).__name__}" for table, _, record in FULL_RECORDS],
)
def test_full_records_keep_their_table_and_shape(table: str, accessor: str, record: Any) -> None:
    store = MemoryStore()
    store.put(table, "k", record.model_dump(mode="json"))  # as the flows wrote it before
    assert getattr(Records(store), accessor).get("k") == record
    getattr(Records(store), accessor).put("k2", record)
    assert store.get(table, "k2") == store.get(table, "k")


def test_the_content_locale_is_created_and_changed_in_one_step() -> None:
    store = MemoryStore()
    records = Records(store)
    records.workspace.upsert(
        CONTENT_LOCALE_KEY,
        lambda state: (state or LocaleState()).model_copy(update={"learned": "de"}),
    )
    assert store.get("workspace", CONTENT_LOCALE_KEY) == {
        "learned": "de",
        "learned_at": None,
        "reported": None,
    }


def test_a_partial_view_never_writes() -> None:
    """Readers that know only part of a record get no way to overwrite the rest of it."""
    records = Records(MemoryStore())
    assert not hasattr(records.thread_lineages, "put")
    assert not hasattr(records.legacy_cursors, "put")
