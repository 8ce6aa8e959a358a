"""What only the PostgreSQL backend has to show: several processes' worth of stores on one
database, a server restart, the schema check, the typed columns and the migrations."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy import event, text
from sqlalchemy import exc as sa_exc
from test_store_contract import run_concurrently

from pg_cluster import PgCluster
from suggestbot.store import (
    DeliveryLog,
    SchemaNotCurrent,
    StoreError,
    StoreUnavailable,
    open_app_store,
    pg_migrations,
)
from suggestbot.store.pg_connections import _driver_error, _means_lost, _translated
from suggestbot.store.pg_lease_sql import CLAIM_DUE, CLAIM_GROUPS, GROUPS_DUE, GROUPS_HELD
from suggestbot.store.pg_schema import metadata
from suggestbot.store.postgres import PostgresStore

REPLICAS = 3
THREADS_PER_REPLICA = 10


@pytest.fixture
def replicas(postgres_url: str) -> Iterator[list[PostgresStore]]:
    """Several stores on one database, as several app processes would have."""
    stores = [PostgresStore(postgres_url) for _ in range(REPLICAS)]
    yield stores
    for store in stores:
        store.close()


def test_the_url_selects_postgresql_and_none_keeps_sqlite(postgres_url: str, tmp_path: Any) -> None:
    with open_app_store(data_dir=tmp_path, database_url=postgres_url) as store:
        assert isinstance(store, PostgresStore)
    with open_app_store(data_dir=tmp_path, database_url=None) as store:
        assert type(store).__name__ == "SqliteStore"
    assert (tmp_path / "suggestbot.sqlite").exists()


def test_put_if_absent_from_many_threads_of_several_replicas_has_one_winner(
    replicas: list[PostgresStore],
) -> None:
    threads = REPLICAS * THREADS_PER_REPLICA
    results = run_concurrently(
        lambda i: replicas[i % REPLICAS].put_if_absent("deliveries", "ev1", {"at": float(i)}),
        threads=threads,
    )
    assert results.count(True) == 1
    assert replicas[0].get("deliveries", "ev1") == {"at": float(results.index(True))}


def test_updates_from_several_replicas_take_turns_even_on_an_absent_key(
    replicas: list[PostgresStore],
) -> None:
    rounds = 5

    def bump(old: dict[str, Any] | None) -> dict[str, Any]:
        return {"count": (old or {"count": 0})["count"] + 1}

    def worker(i: int) -> None:
        for _ in range(rounds):
            replicas[i % REPLICAS].update("counters", "c", bump)
            replicas[i % REPLICAS].update_many("requests", {"a": bump, "b": bump})

    threads = REPLICAS * THREADS_PER_REPLICA
    run_concurrently(worker, threads=threads)
    assert replicas[1].get("counters", "c") == {"count": threads * rounds}
    assert replicas[2].items("requests") == [
        ("a", {"count": threads * rounds}),
        ("b", {"count": threads * rounds}),
    ]


def test_a_put_racing_an_update_of_an_absent_key_is_never_lost(
    replicas: list[PostgresStore],
) -> None:
    # On each of many absent keys, one thread updates (appends itself to what is there) while
    # another puts. In any serial order the put is either overwritten-after-read (the update
    # saw it: ["put", "update"]) or last (["put"]); ["update"] alone means the update wrote
    # over a put it never saw.
    keys = 15

    def worker(i: int) -> None:
        store, key = replicas[i % REPLICAS], f"k{i // 2}"
        if i % 2:
            store.put("runs", key, {"ops": ["put"]})
        else:
            store.update("runs", key, lambda old: {"ops": [*(old or {"ops": []})["ops"], "upd"]})

    run_concurrently(worker, threads=2 * keys)
    finals = [record["ops"] for _, record in replicas[0].items("runs")]
    assert len(finals) == keys
    assert all(ops in (["put"], ["put", "upd"]) for ops in finals), finals


def test_a_database_restart_mid_use_heals_by_itself(postgres: PgCluster, postgres_url: str) -> None:
    with PostgresStore(postgres_url) as store:
        store.put("users", "T1:U1", {"team_id": "T1", "user_id": "U1", "state": "linked"})
        postgres.stop_server()
        try:
            with pytest.raises(StoreUnavailable) as down:
                store.get("users", "T1:U1")
        finally:
            postgres.start_server()
        message = str(down.value)
        assert "cannot be reached" in message
        assert postgres.password not in message
        assert "postgresql://" not in message
        assert down.value.__cause__ is None and down.value.__suppress_context__
        # No reconnect call: the pool replaces the dead connections on its own.
        assert store.get("users", "T1:U1") == {"team_id": "T1", "user_id": "U1", "state": "linked"}
        store.put("users", "T1:U2", {"team_id": "T1", "user_id": "U2", "state": "linked"})
        assert [key for key, _ in store.items("users")] == ["T1:U1", "T1:U2"]


def test_a_database_that_is_down_at_start_gives_a_clear_error(postgres: PgCluster) -> None:
    url = postgres.url("postgres").replace(f":{postgres.port}/", ":1/")
    with pytest.raises(StoreUnavailable) as down:
        PostgresStore(url)
    assert "cannot be reached" in str(down.value)
    assert postgres.password not in str(down.value)


def test_a_schema_that_is_behind_refuses_to_open_and_names_the_command(
    empty_postgres_url: str,
) -> None:
    with pytest.raises(SchemaNotCurrent, match="run `suggestbot db upgrade`"):
        PostgresStore(empty_postgres_url)
    with PostgresStore(empty_postgres_url, check_schema=False) as store:
        assert store.upgrade_schema() == (None, "0005")
        assert store.upgrade_schema() == ("0005", "0005")  # again: nothing to do
        with store.engine.begin() as connection:
            connection.execute(text("UPDATE alembic_version SET version_num = '0000'"))
    with pytest.raises(SchemaNotCurrent, match="newer than this version"):
        PostgresStore(empty_postgres_url)


def test_the_migrations_create_exactly_the_declared_tables(postgres_url: str) -> None:
    with PostgresStore(postgres_url) as store, store.engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), metadata)
    assert differences == []


def test_the_lookup_columns_are_filled_for_rows_written_before_they_existed(
    empty_postgres_url: str,
) -> None:
    config = Config()
    config.set_main_option("script_location", str(pg_migrations.MIGRATIONS_DIR))
    with PostgresStore(empty_postgres_url, check_schema=False) as store:
        with store.engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "0002")
            connection.execute(
                text(
                    "INSERT INTO requests (key, value) VALUES "
                    """('r1', '{"kind": "refinement"}'), ('r2', '{"kind": 3}')"""
                )
            )
            connection.execute(
                text(
                    """INSERT INTO digests (key, value, paused) VALUES """
                    """('d1', '{"created_by": "U1"}', false)"""
                )
            )
            connection.execute(
                text(
                    "INSERT INTO kv_records (tbl, key, value) VALUES "
                    """('held_inputs', 'h1', '{"team_id": "T1", "created_at": 5}'), """
                    """('inspiration_watches', 'w1', '{"team_id": "T1", "next_poll_at": 7.5}'), """
                    """('list_pages', 'l1', '{"created_at": 3}'), """
                    """('thread_bindings', 'b1', '{"team_id": "T1"}')"""
                )
            )
        assert store.upgrade_schema() == ("0002", "0005")
        assert _columns(store, "requests", "r1")["kind"] == "refinement"
        assert _columns(store, "requests", "r2")["kind"] is None  # not a string: as a write
        assert _columns(store, "digests", "d1")["created_by"] == "U1"
        found = store.items_matching("digests", where={"created_by": ["U1"]})
        assert found == [("d1", {"created_by": "U1"})]
        # Held inputs and watches moved to tables of their own, the rest stayed.
        assert _columns(store, "held_inputs", "h1") == {
            "key": "h1",
            "team_id": "T1",
            "created_at": 5.0,
        }
        assert _columns(store, "inspiration_watches", "w1")["next_poll_at"] == 7.5
        assert _columns(store, "list_pages", "l1") == {"key": "l1", "created_at": 3.0}
        assert store.get("held_inputs", "h1") == {"team_id": "T1", "created_at": 5}
        with store.engine.connect() as connection:
            left = connection.execute(text("SELECT tbl, key FROM kv_records")).all()
        assert [tuple(row) for row in left] == [("thread_bindings", "b1")]


def _columns(store: PostgresStore, table: str, key: str) -> dict[str, Any]:
    with store.engine.connect() as connection:
        row = connection.execute(
            text(f"SELECT * FROM {table} WHERE key = :key"), {"key": key}
        ).mappings()
        found = dict(next(iter(row)))
    found.pop("value")
    return found


def test_queried_fields_are_typed_columns_that_follow_every_write(postgres_url: str) -> None:
    digest = {
        "team_id": "T1",
        "channel_id": "C1",
        "time": "08:30",
        "tz": "Europe/Berlin",
        "created_by": "U1",
    }
    with PostgresStore(postgres_url) as store:
        store.put("digests", "d1", {**digest, "paused": False})
        assert _columns(store, "digests", "d1") == {
            "key": "d1",
            "team_id": "T1",
            "channel_id": "C1",
            "local_minute": 8 * 60 + 30,
            "tz": "Europe/Berlin",
            "paused": False,
            "created_by": "U1",
        }
        store.update("digests", "d1", lambda old: {**(old or {}), "paused": True, "time": "9:05"})
        assert _columns(store, "digests", "d1")["paused"] is True
        assert _columns(store, "digests", "d1")["local_minute"] == 9 * 60 + 5

        store.put_many(
            "requests",
            {
                "r1": {
                    "team_id": "T1",
                    "user_id": "U1",
                    "kind": "brief",
                    "state": "delayed",
                    "send_after": 5,
                }
            },
        )
        assert _columns(store, "requests", "r1") | {"created_at": None} == {
            "key": "r1",
            "team_id": "T1",
            "user_id": "U1",
            "state": "delayed",
            "send_after": 5.0,
            "next_poll_at": None,
            "created_at": None,
            "kind": "brief",
        }
        store.put_if_absent("deliveries", "ev", {"at": 100.5, "pending_enc": "sealed"})
        assert _columns(store, "deliveries", "ev") == {"key": "ev", "at": 100.5, "unfinished": True}
        store.update("deliveries", "ev", lambda old: {"at": 100.5})
        assert _columns(store, "deliveries", "ev")["unfinished"] is False
        # Malformed fields give NULL columns, never a refused write: the record is the truth.
        store.put("users", "T1:U1", {"team_id": 7, "state": ["linked"]})
        assert _columns(store, "users", "T1:U1") == {
            "key": "T1:U1",
            "team_id": None,
            "user_id": None,
            "state": None,
        }
        # A table without typed columns shares kv_records, under its own name.
        store.put("thread_bindings", "C1:1.0", {"thread_id": "th"})
        with store.engine.connect() as connection:
            rows = connection.execute(text("SELECT tbl, key FROM kv_records")).all()
        assert [tuple(row) for row in rows] == [("thread_bindings", "C1:1.0")]


def test_text_with_a_nul_character_round_trips(postgres_url: str) -> None:
    # ``jsonb`` would refuse \u0000; what a user typed must not be refused for it.
    with PostgresStore(postgres_url) as store:
        store.put("held_inputs", "h", {"text": "a\u0000b"})
        assert store.get("held_inputs", "h") == {"text": "a\u0000b"}


def test_a_refused_statement_names_the_kind_never_the_data(postgres_url: str) -> None:
    # PostgreSQL text cannot hold NUL: the key is refused, and the error shows none of it.
    with PostgresStore(postgres_url) as store, pytest.raises(StoreError) as refused:
        store.put("users", "T1:\u0000xoxp-secret", {"token_enc": "sealed-secret"})
    assert "secret" not in str(refused.value)
    assert refused.value.__cause__ is None and refused.value.__suppress_context__


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("mysql://admin:hunter2secret@db:3306/app", "must start with postgresql://, not mysql://"),
        ("hunter2secret", "is not a database URL"),
    ],
)
def test_a_url_that_is_not_postgresql_is_refused_without_echoing_it(url: str, says: str) -> None:
    with pytest.raises(ValueError, match=says) as refused:
        PostgresStore(url)
    assert "hunter2secret" not in str(refused.value)


def test_replicas_claiming_at_once_split_the_due_units(replicas: list[PostgresStore]) -> None:
    for n in range(300):
        replicas[0].schedule("polls", f"r{n:03}", due_at=float(n))

    def claim(index: int) -> list[str]:
        store = replicas[index % REPLICAS]
        got: list[str] = []
        while batch := store.claim_due(
            "polls", owner=f"replica{index}", now=1000.0, due_by=1000.0, lease_s=30, limit=5
        ):
            got.extend(c.key for c in batch)
        return got

    results = run_concurrently(claim, threads=REPLICAS * 3)
    every = [key for got in results for key in got]
    assert sorted(every) == [f"r{n:03}" for n in range(300)]  # none twice, none left
    assert sum(1 for got in results if got) > 1  # really split, not one claimer taking all


def _explain(connection: Any, statement: Any, params: dict[str, Any]) -> str:
    """PostgreSQL's plan for ``statement`` with ``params``, one line a node."""
    return "\n".join(connection.execute(text(f"EXPLAIN {statement.text}"), params).scalars())


def test_a_claim_reads_the_ready_index_not_the_whole_table(postgres_url: str) -> None:
    with PostgresStore(postgres_url, caller_times=True) as store:
        with store.engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO work_leases (queue, key, due_at, ready_at) "
                    "SELECT 'polls', 'r' || n, n, n FROM generate_series(1, 20000) AS n"
                )
            )
            connection.execute(text("ANALYZE work_leases"))
            params = {
                "queue": "polls",
                "owner": "A",
                "at": 100.0,  # the test's timeline (``caller_times``)
                "ahead": 1.0,
                "lease": 30.0,
                "limit": 100,
                "share": 2,
            }
            plan = _explain(connection, CLAIM_DUE, params)
        assert "ix_work_leases_ready" in plan, plan
        assert "Seq Scan" not in plan, plan
        claimed = store.claim_due("polls", owner="A", now=100.0, due_by=101.0, lease_s=30, limit=9)
        assert [c.key for c in claimed] == [f"r{n}" for n in range(1, 10)]


def test_a_grouped_claim_reads_indexes_not_the_whole_table(postgres_url: str) -> None:
    """20,000 units in 30 groups, 2,000 of them leased: finding the due groups, who holds
    which group and the claim itself each read an index, never every row."""
    with PostgresStore(postgres_url, caller_times=True) as store:
        with store.engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO work_leases (queue, key, due_at, ready_at, grp, owner, "
                    "lease_until) SELECT 'polls', 'r' || n, n, "
                    "CASE WHEN n > 18000 THEN 200 ELSE n END, 'T' || (n % 30), "
                    "CASE WHEN n > 18000 THEN 'B' END, CASE WHEN n > 18000 THEN 200 END "
                    "FROM generate_series(1, 20000) AS n"
                )
            )
            connection.execute(text("ANALYZE work_leases"))
            params = {
                "queue": "polls",
                "owner": "A",
                "at": 100.0,  # the test's timeline (``caller_times``)
                "ahead": 1.0,
                "lease": 30.0,
                "limit": 100,
                "groups": ["T1", "T2"],
            }
            plans = {
                statement: _explain(connection, statement, params)
                for statement in (GROUPS_DUE, GROUPS_HELD, CLAIM_GROUPS)
            }
        for plan in plans.values():
            assert "Seq Scan" not in plan, plan
        assert "ix_work_leases_group_lease" in plans[GROUPS_HELD], plans[GROUPS_HELD]
        claimed = store.claim_due_grouped(
            "polls", owner="A", now=100.0, due_by=101.0, lease_s=30, limit=999, share=3
        )
        # Every group is held by B (units over 18,000): none is free to take.
        assert claimed == []


@contextmanager
def _reads_of(store: PostgresStore, table: str) -> Iterator[list[tuple[str, Any]]]:
    """The SELECT statements (with their parameters) the store sends for ``table`` meanwhile."""
    issued: list[tuple[str, Any]] = []

    def note(conn: Any, cursor: Any, statement: str, params: Any, *rest: Any) -> None:
        if f"FROM {table}" in statement and statement.lstrip().startswith("SELECT"):
            issued.append((statement, params))

    event.listen(store.engine, "before_cursor_execute", note)
    try:
        yield issued
    finally:
        event.remove(store.engine, "before_cursor_execute", note)


def _plan_of(store: PostgresStore, issued: list[tuple[str, Any]]) -> str:
    """PostgreSQL's plan for the one statement in ``issued``."""
    [(statement, params)] = issued  # one statement, read by the typed columns
    with store.engine.begin() as connection:
        rows = connection.exec_driver_sql(f"EXPLAIN {statement}", params)
        return "\n".join(row[0] for row in rows)


def test_recovery_reads_the_active_requests_by_the_state_index(postgres_url: str) -> None:
    with PostgresStore(postgres_url) as store:
        with store.engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO requests (key, value, state) SELECT 'r' || n, "
                    "json_build_object('state', 'done'), 'done' "
                    "FROM generate_series(1, 20000) AS n"
                )
            )
            connection.execute(text("ANALYZE requests"))
        store.put("requests", "active", {"state": "submitted"})
        with _reads_of(store, "requests") as issued:
            found = store.items_where("requests", "state", ["new", "submitted"])
        assert found == [("active", {"state": "submitted"})]
        plan = _plan_of(store, issued)
        assert "ix_requests_state" in plan, plan
        assert "Seq Scan" not in plan, plan


def _fill(table: str, **columns: str) -> str:
    """20,000 rows of ``table`` whose records hold the typed columns' values (SQL per row n)."""
    names = ", ".join(columns)
    fields = ", ".join(f"'{name}', {name}" for name in columns)
    values = ", ".join(f"{sql} AS {name}" for name, sql in columns.items())
    return (
        f"INSERT INTO {table} (key, value, {names}) "
        f"SELECT '{table}' || n, json_build_object({fields}), {names} "
        f"FROM (SELECT n, {values} FROM generate_series(1, 20000) AS n) AS rows"
    )


_FILL = {
    # 200 workspaces of 50 people each, mostly finished requests.
    "requests": _fill(
        "requests",
        team_id="'T' || (n % 200)",
        user_id="'U' || (n % 50)",
        kind="CASE WHEN n % 3 = 0 THEN 'refinement' ELSE 'brief' END",
        state="CASE WHEN n % 97 = 0 THEN 'submitted' ELSE 'done' END",
        created_at="n::float",
    ),
    # 200 workspaces, 100 channels and 50 creators each.
    "digests": _fill(
        "digests",
        team_id="'T' || (n % 200)",
        channel_id="'C' || (n % 100)",
        created_by="'U' || (n % 50)",
        paused="n % 7 = 0",
    ),
    "held_inputs": _fill("held_inputs", team_id="'T' || (n % 200)", created_at="n::float"),
    "inspiration_watches": _fill(
        "inspiration_watches", team_id="'T' || (n % 200)", next_poll_at="n::float"
    ),
    "list_pages": _fill("list_pages", created_at="n::float"),
    "slack_installations": _fill(
        "slack_installations", team_id="'T' || (n % 5000)", enterprise_id="'E' || (n % 500)"
    ),
    "users": _fill("users", team_id="'T' || (n % 200)", user_id="'U' || n", state="'linked'"),
}


@pytest.mark.parametrize(
    ("table", "query", "index"),
    [
        # App Home: a user's newest finished briefs.
        (
            "requests",
            {
                "where": {
                    "team_id": ["T1"],
                    "user_id": ["U1"],
                    "kind": ["brief"],
                    "state": ["done", "failed"],
                },
                "newest_by": "created_at",
                "limit": 5,
            },
            "ix_requests_team_user_created",
        ),
        # The lists: a user's refinements sent, newest first.
        (
            "requests",
            {
                "where": {
                    "team_id": ["T1"],
                    "user_id": ["U1"],
                    "kind": ["refinement"],
                    "state": ["submitted", "posting", "done", "failed"],
                },
                "newest_by": "created_at",
            },
            "ix_requests_team_user_created",
        ),
        # Revocation: a workspace's requests in flight.
        (
            "requests",
            {"where": {"team_id": ["T1"], "state": ["new", "sending", "delayed", "submitted"]}},
            "ix_requests_team_state",
        ),
        # App Home and listings: a user's digests; a channel's; a workspace's (a ref's prefix).
        ("digests", {"where": {"team_id": ["T1"], "created_by": ["U1"]}}, "ix_digests_team_"),
        ("digests", {"where": {"team_id": ["T1"], "channel_id": ["C1"]}}, "ix_digests_team_"),
        ("digests", {"where": {"team_id": ["T1"]}}, "ix_digests_team_"),
        # Revocation: a workspace's running digests, its people, what they typed, its watches.
        ("digests", {"where": {"team_id": ["T1"], "paused": [False]}}, "ix_digests_team_"),
        ("users", {"where": {"team_id": ["T1"]}}, "ix_users_team_state"),
        ("held_inputs", {"where": {"team_id": ["T1"]}}, "ix_held_inputs_team"),
        ("inspiration_watches", {"where": {"team_id": ["T1"]}}, "ix_inspiration_watches_team"),
        # An uninstall: a workspace's installations, an organisation's.
        ("slack_installations", {"where": {"team_id": ["T1"]}}, "ix_slack_installations_team"),
        (
            "slack_installations",
            {"where": {"enterprise_id": ["E1"]}},
            "ix_slack_installations_enterprise",
        ),
        # A list starting: the old lists to forget.
        ("list_pages", {"where": {}, "at_most": {"created_at": 50.0}}, "ix_list_pages_created"),
        # The watch job every few seconds: the watches due.
        (
            "inspiration_watches",
            {"where": {}, "at_most": {"next_poll_at": 50.0}},
            "ix_inspiration_watches_due",
        ),
    ],
)
def test_the_reads_of_request_paths_use_an_index(
    postgres_url: str, table: str, query: dict[str, Any], index: str
) -> None:
    with PostgresStore(postgres_url) as store:
        with store.engine.begin() as connection:
            connection.execute(text(_FILL[table]))
            connection.execute(text(f"ANALYZE {table}"))
        with _reads_of(store, table) as issued:
            found = store.items_matching(table, **query)
        assert found  # the data has matches for every read
        plan = _plan_of(store, issued)
        assert index in plan, plan
        assert "Seq Scan" not in plan, plan


def _drop_connections(cluster: PgCluster, url: str) -> int:
    """End every server process of the app's connections to the database at ``url``, as a
    server restart or a network cut would; returns how many there were."""
    database = url.rsplit("/", 1)[1]
    with cluster.admin() as admin:
        rows = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = %s AND application_name = 'suggestbot'",
            (database,),
        ).fetchall()
    return len(rows)


def test_a_connection_that_died_in_the_pool_is_replaced_before_use(
    postgres: PgCluster, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every pooled connection counts as idle: each is pinged before it is handed out.
    monkeypatch.setattr("suggestbot.store.pg_connections.PING_AFTER_IDLE_S", 0.0)
    with PostgresStore(postgres_url) as store:
        store.put("users", "T1:U1", {"team_id": "T1", "user_id": "U1", "state": "linked"})
        assert _drop_connections(postgres, postgres_url) == 1
        assert store.get("users", "T1:U1") == {"team_id": "T1", "user_id": "U1", "state": "linked"}


def test_after_one_call_meets_a_dead_connection_the_next_call_works_at_once(
    postgres: PgCluster, postgres_url: str
) -> None:
    # A connection used a moment ago goes out unpinged (a ping per call costs a round trip):
    # if it died meanwhile, that one call fails clearly, and every connection pooled before
    # then is pinged at its next use, however recently it was used.
    with PostgresStore(postgres_url) as store:
        with store.engine.connect() as one, store.engine.connect() as two:
            one.execute(text("SELECT 1"))
            two.execute(text("SELECT 1"))
        store.put("users", "T1:U1", {"team_id": "T1", "user_id": "U1", "state": "linked"})
        assert _drop_connections(postgres, postgres_url) == 2
        with pytest.raises(StoreUnavailable) as lost:
            store.put("users", "T1:U2", {"team_id": "T1", "user_id": "U2", "state": "linked"})
        assert "cannot be reached" in str(lost.value)
        assert postgres.password not in str(lost.value)
        store.put("users", "T1:U2", {"team_id": "T1", "user_id": "U2", "state": "linked"})
        assert [key for key, _ in store.items("users")] == ["T1:U1", "T1:U2"]


def test_pruning_deliveries_reads_the_expired_ones_by_the_time_index(postgres_url: str) -> None:
    now = 1_700_000_000.0
    with PostgresStore(postgres_url) as store:
        with store.engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO deliveries (key, value, at, unfinished) SELECT 'event:' || n, "
                    "json_build_object('at', CAST(:now AS double precision) + n), :now + n, false "
                    "FROM generate_series(1, 20000) AS n"
                ),
                {"now": now},
            )
            connection.execute(text("ANALYZE deliveries"))
        log = DeliveryLog(store, clock=lambda: now + 3600 * 2 + 10.5)  # ten are expired
        with _reads_of(store, "deliveries") as issued:
            assert log.prune() == 10
        assert store.get("deliveries", "event:10") is None
        assert store.get("deliveries", "event:11") is not None
        plan = _plan_of(store, issued)
        assert "ix_deliveries_at" in plan, plan
        assert "Seq Scan" not in plan, plan


def test_the_digest_wave_reads_the_digests_due_by_index(postgres_url: str) -> None:
    """Each minute every replica asks for the digests whose local time came: one statement,
    an index lookup per group of time zones, never a scan of all digests."""
    # 20,000 digests at every minute of the day in three zones, a seventh of them paused.
    fill = (
        "INSERT INTO digests (key, value, team_id, channel_id, local_minute, tz, paused) "
        "SELECT 'd' || n, json_build_object('team_id', team, 'channel_id', channel, "
        "'time', lpad((minute / 60)::text, 2, '0') || ':' || lpad((minute % 60)::text, 2, '0'), "
        "'tz', tz, 'paused', paused), team, channel, minute, tz, paused FROM ("
        "SELECT n, 'T' || (n % 500) AS team, 'C' || (n % 100) AS channel, n % 1440 AS minute, "
        "(ARRAY['UTC', 'Europe/Berlin', 'America/New_York'])[1 + n % 3] AS tz, "
        "n % 7 = 0 AS paused FROM generate_series(1, 20000) AS n) AS rows"
    )

    def minutes(hour: int) -> list[str]:  # HH-1:54 … HH:05, as the wave at 09:05 UTC asks
        return [f"{hour - 1:02d}:{m:02d}" for m in range(54, 60)] + [
            f"{hour:02d}:{m:02d}" for m in range(6)
        ]

    wheres = [
        {"tz": ["UTC", "Africa/Abidjan"], "time": minutes(9), "paused": [False]},
        {"tz": ["Europe/Berlin", "Europe/Paris"], "time": minutes(10), "paused": [False]},
        {"tz": ["America/New_York"], "time": minutes(4), "paused": [False]},
    ]
    with PostgresStore(postgres_url) as store:
        with store.engine.begin() as connection:
            connection.execute(text(fill))
            connection.execute(text("ANALYZE digests"))
        with _reads_of(store, "digests") as issued:
            found = store.items_matching_any("digests", wheres)
        zones = ["UTC", "Europe/Berlin", "America/New_York"]
        asked = {"UTC": minutes(9), "Europe/Berlin": minutes(10), "America/New_York": minutes(4)}
        expected = [
            f"d{n}"
            for n in range(1, 20_001)
            if n % 7 and f"{n % 1440 // 60:02d}:{n % 60:02d}" in asked[zones[n % 3]]
        ]
        assert [key for key, _ in found] == sorted(expected) and len(expected) == 144
        plan = _plan_of(store, issued)
        assert "ix_digests_due" in plan, plan
        assert "Seq Scan" not in plan, plan


def test_renewing_and_releasing_the_same_leases_at_once_never_deadlocks(postgres_url: str) -> None:
    """A replica's watch thread renews every lease it holds while its sweepers release and
    re-take theirs page by page, each page in its own order: many-row writes that wait for
    each other's rows must take them in one order, or PostgreSQL kills one of them as a
    deadlock (after a second's wait) and its polls are postponed."""
    keys = [f"r{n:05d}" for n in range(3000)]
    queue = "run_polls"
    with PostgresStore(postgres_url) as store:
        store.schedule_many(queue, dict.fromkeys(keys, 0.0))
        store.claim_keys(queue, keys, owner="me", now=1.0, lease_s=60.0)
        failures: list[BaseException] = []
        stop = time.monotonic() + 4.0

        def renewer() -> None:
            while time.monotonic() < stop:
                store.renew(queue, keys, owner="me", now=2.0, lease_s=60.0)

        def sweeper(seed: int) -> None:
            pick = random.Random(seed)
            while time.monotonic() < stop:
                page = pick.sample(keys, 100)  # a listing page: newest run first, any key order
                store.release_many(queue, dict.fromkeys(page, 5.0), owner="me")
                store.claim_keys(queue, page, owner="me", now=6.0, lease_s=60.0)

        def guarded(work: Any, *args: Any) -> None:
            try:
                work(*args)
            except BaseException as exc:  # reported below
                failures.append(exc)

        threads = [threading.Thread(target=guarded, args=(renewer,))] + [
            threading.Thread(target=guarded, args=(sweeper, n)) for n in range(4)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []


def test_a_transaction_ended_by_a_conflict_says_so_and_keeps_its_connection() -> None:
    """PostgreSQL files deadlocks and serialization failures under operational errors, like a
    lost connection: the store must not tell the operator the database cannot be reached, nor
    throw the connection away, for a transaction that merely lost a conflict."""
    deadlock = psycopg.errors.DeadlockDetected("deadlock detected")
    assert not _means_lost(deadlock)
    said = _driver_error(deadlock, lost=False)
    assert not isinstance(said, StoreUnavailable)
    assert "conflict with another" in str(said) and "40P01" in str(said)
    through_sqlalchemy = _translated(sa_exc.OperationalError("UPDATE …", {}, deadlock))
    assert not isinstance(through_sqlalchemy, StoreUnavailable)
    assert "conflict with another" in str(through_sqlalchemy)
    # An operational error that is not a conflict still means the connection is gone.
    assert _means_lost(psycopg.OperationalError("server closed the connection unexpectedly"))
