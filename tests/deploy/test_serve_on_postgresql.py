"""``suggestbot serve`` on PostgreSQL, configured by the environment as an operator would: it
refuses a database whose schema is behind (naming the command), ``suggestbot db upgrade``
brings it up, and then a brief runs end to end and survives a restart."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import httpx
from serve_process import ServeProcess
from test_serve_shutdown import ALICE, SIGNING_SECRET, Outside, _wait, outside

from pg_cluster import PgCluster
from suggestbot.slackapp.http import EVENTS_PATH
from suggestbot.slackemu import SlackDriver
from suggestbot.store.postgres import PostgresStore

__all__ = ["outside"]


def _password(url: str) -> str:
    return url.split("://", 1)[1].split("@", 1)[0].split(":", 1)[1]


def test_serve_refuses_a_schema_behind_then_runs_a_brief_after_db_upgrade(
    outside: Outside, tmp_path: Path, empty_postgres_url: str
) -> None:
    env = outside.env(SUGGESTBOT_DATABASE_URL=empty_postgres_url)

    refused = ServeProcess(env, cwd=tmp_path).start()
    try:
        assert refused.wait(timeout=60) == 2
    finally:
        refused.kill()
    assert "run `suggestbot db upgrade`" in refused.output
    assert "serving Slack" not in refused.output

    upgrade = subprocess.run(
        [sys.executable, "-m", "suggestbot", "db", "upgrade"],
        env=ServeProcess(env, cwd=tmp_path).env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert upgrade.returncode == 0, upgrade.stderr
    assert "upgraded the schema from revision (none) to 0005" in upgrade.stdout

    emu = outside.emu
    driver = SlackDriver(emu, app_url="", signing_secret=SIGNING_SECRET)
    first = ServeProcess(env, cwd=tmp_path).start()
    try:
        driver.app_url = first.url + EVENTS_PATH
        health = httpx.get(first.url + "/healthz", timeout=10).json()
        assert health["ok"] is True
        outside.link(driver)
        outside.brief_by_modal(driver, text="Waterproof boots for autumn", variants=2)
        root = _wait(lambda: next(iter(outside.ready_roots()), None), "the results")
        assert root["reply_count"] == 3  # the gallery of both variants, then each in full
        assert first.terminate() == 0
    finally:
        first.kill()
    assert "keeping state in PostgresStore(host='127.0.0.1'" in first.output
    assert _password(empty_postgres_url) not in first.output + refused.output + upgrade.stderr

    # Started again on the same database: the link and the choices are still there (a quick
    # brief goes straight to a run), and nothing of the first brief is posted again.
    second = ServeProcess(env, cwd=tmp_path).start()
    try:
        driver.app_url = second.url + EVENTS_PATH
        driver.slash_command(ALICE, outside.channel, "brief Rain jackets for spring")
        _wait(lambda: len(outside.ready_roots()) == 2, "the second brief's results")
        assert second.terminate() == 0
    finally:
        second.kill()
        driver.close()
    assert len(emu.messages(outside.channel)) == 2
    assert outside.sandbox.counters.get("POST /v1/generation-runs") == 2
    with PostgresStore(empty_postgres_url) as store:
        assert [record["state"] for _, record in store.items("requests")] == ["done", "done"]
        assert [record["user_id"] for _, record in store.items("users")] == [ALICE]


def test_serve_with_postgresql_down_stops_at_once_with_a_clear_message(
    outside: Outside, tmp_path: Path, postgres: PgCluster
) -> None:
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    url = postgres.url("postgres").replace(f":{postgres.port}/", f":{closed_port}/")
    process = ServeProcess(outside.env(SUGGESTBOT_DATABASE_URL=url), cwd=tmp_path).start()
    try:
        assert process.wait(timeout=60) == 2
    finally:
        process.kill()
    assert "cannot start: PostgreSQL cannot be reached" in process.output
    assert "Connection refused" in process.output
    assert postgres.password not in process.output
    assert "Traceback" not in process.output
