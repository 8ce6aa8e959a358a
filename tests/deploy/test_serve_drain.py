"""``suggestbot serve``'s probes and metrics, and its drain on SIGTERM: ``/readyz`` turns 503 at
once while Slack's requests are still answered for the grace period; then the port closes and
the process exits 0. On PostgreSQL, a database that goes away makes the replica not ready but
leaves it live, and it is ready again by itself once the database is back."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
from test_serve_shutdown import ALICE, SIGNING_SECRET, Outside, _refuses_connections, _wait, outside

from pg_cluster import PgCluster
from suggestbot.slackapp.http import EVENTS_PATH
from suggestbot.slackemu import SlackDriver
from suggestbot.store.postgres import PostgresStore

__all__ = ["outside"]

DRAIN_S = 4.0


def _status(url: str) -> int:
    try:
        return httpx.get(url, timeout=5).status_code
    except httpx.HTTPError:
        return 0


def _sample(metrics_text: str, name: str, **labels: str) -> float:
    """The value of one sample of the Prometheus text ``metrics_text`` (0 when absent)."""
    wanted = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    for line in metrics_text.splitlines():
        if line.startswith("#"):
            continue
        match = re.fullmatch(r"([a-z_]+)(?:\{(.*)\})? (\S+)", line)
        if match and match[1] == name:
            found = ",".join(sorted((match[2] or "").split(","))) if match[2] else ""
            if found == wanted:
                return float(match[3])
    return 0.0


def test_probes_metrics_and_a_drain_that_keeps_answering_until_the_port_closes(
    outside: Outside, tmp_path: Path
) -> None:
    serve = outside.serve(tmp_path, SUGGESTBOT_DRAIN_SECONDS=str(DRAIN_S))
    driver = SlackDriver(outside.emu, app_url="", signing_secret=SIGNING_SECRET)
    try:
        url = serve.url
        driver.app_url = url + EVENTS_PATH
        assert httpx.get(url + "/livez", timeout=5).json() == {"ok": True}
        ready = httpx.get(url + "/readyz", timeout=5)
        assert ready.status_code == 200
        assert ready.json() == {"ok": True, "draining": False, "store": "ok"}

        assert driver.slash_command(ALICE, outside.channel, "help").status == 200
        scraped = httpx.get(url + "/metrics", timeout=5)
        assert scraped.headers["content-type"].startswith("text/plain")
        text = scraped.text
        assert _sample(text, "suggestbot_acks_total", kind="command", status="200") == 1
        assert _sample(text, "suggestbot_ack_seconds_count", kind="command") == 1
        for name in (
            "suggestbot_runs_watched",
            "suggestbot_poll_lateness_seconds_count",
            "suggestbot_digests_sent_total",
            "suggestbot_digest_lateness_seconds_count",
            "suggestbot_slack_rate_limited_total",
            "suggestbot_claims_taken_over_total",
        ):
            assert re.search(rf"^{name} ", text, re.M), name

        serve.send_sigterm()
        _wait(lambda: _status(url + "/readyz") == 503, "/readyz to turn 503")
        assert httpx.get(url + "/readyz", timeout=5).json()["draining"] is True
        # Still serving during the grace period: a load balancer that has not noticed yet
        # loses nothing.
        assert _status(url + "/livez") == 200
        assert driver.slash_command(ALICE, outside.channel, "help").status == 200
        assert "still serving for 4.0 s" in serve.output
        _wait(lambda: _refuses_connections(serve.port), "the port to close")
        assert serve.wait(timeout=60) == 0
    finally:
        serve.kill()
        driver.close()
    help_answers = outside.emu.ephemeral_transcript(ALICE).count("suggestbot — content")
    assert help_answers == 2


def test_a_replica_whose_database_is_down_is_live_but_not_ready_until_it_is_back(
    outside: Outside, tmp_path: Path
) -> None:
    cluster = PgCluster().start()
    try:
        url = cluster.create_database("app")
        with PostgresStore(url, check_schema=False) as store:
            store.upgrade_schema()
        serve = outside.serve(tmp_path, SUGGESTBOT_DATABASE_URL=url)
        try:
            base = serve.url
            assert _status(base + "/readyz") == 200
            cluster.stop_server()
            down = httpx.get(base + "/readyz", timeout=30)
            assert down.status_code == 503
            assert down.json() == {"ok": False, "draining": False, "store": "unreachable"}
            assert _status(base + "/livez") == 200
            cluster.start_server()
            _wait(lambda: _status(base + "/readyz") == 200, "ready again", timeout=60)
            assert serve.terminate() == 0
        finally:
            serve.kill()
        assert cluster.password not in serve.output
        assert "readiness: the store is not ready (unreachable)" in serve.output
    finally:
        cluster.remove()
