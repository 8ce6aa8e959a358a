"""``/healthz``: store, scheduler and service reachability; 503 when any is not ok."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from suggestbot.asgi_thread import BackgroundServer
from suggestbot.config import Settings
from suggestbot.contentapi import ServerError
from suggestbot.sandbox import Sandbox
from suggestbot.sandbox.seed import ACME
from suggestbot.server.composition import Runtime
from suggestbot.server.health import Health, ServiceProbe
from suggestbot.slackapp.http import build_http_app
from suggestbot.slackemu import SlackEmulator
from suggestbot.store import MemoryStore, generate_key
from suggestbot.store.base import Record

# Far above what a probe takes (its store write is given 2 s): only a probe that hangs
# reaches it.
HEALTHZ_TIMEOUT_S = 30.0


class Running:
    def __init__(self, runtime: Runtime, url: str, sandbox: Sandbox) -> None:
        self.runtime, self.url, self.sandbox = runtime, url, sandbox

    def healthz(self) -> httpx.Response:
        return httpx.get(f"{self.url}/healthz", timeout=HEALTHZ_TIMEOUT_S)


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Running]:
    sandbox = Sandbox(time_factor=0.01)
    with sandbox.serve() as sandbox_server, SlackEmulator() as emu:
        settings = Settings(
            _env_file=None,
            slack_bot_token=emu.bot_token,
            slack_signing_secret="healthz-signing-secret",
            slack_api_url=emu.api_url,
            content_api_url=sandbox_server.url,
            content_client_id=ACME.client_id,
            content_client_secret=ACME.client_secret,
            suggestbot_secret_keys=generate_key(),
            suggestbot_data_dir=tmp_path,
        )
        runtime = Runtime(settings).start()
        server = BackgroundServer(build_http_app(runtime.app, health=runtime.health)).start()
        try:
            yield Running(runtime, server.url, sandbox)
        finally:
            server.stop()
            runtime.stop()


def test_healthy_reports_every_part(running: Running) -> None:
    answer = running.healthz()
    assert answer.status_code == 200
    body = answer.json()
    assert body["ok"] is True and body["store"] is True and body["scheduler"] is True
    assert body["service"]["ok"] is True and body["service"]["error"] is None


def test_an_unusable_service_makes_it_503_and_says_why(running: Running) -> None:
    running.sandbox.faults.error_rate_5xx = 1.0
    answer = running.healthz()
    assert answer.status_code == 503
    body = answer.json()
    assert body["service"]["ok"] is False and body["service"]["error"]
    assert body["store"] is True and body["scheduler"] is True


def test_a_stopped_scheduler_makes_it_503(running: Running) -> None:
    running.runtime.scheduler.shutdown()
    answer = running.healthz()
    assert answer.status_code == 503
    assert answer.json()["scheduler"] is False


def test_a_closed_store_makes_it_503(running: Running) -> None:
    running.runtime.store.close()
    answer = running.healthz()
    assert answer.status_code == 503
    assert answer.json()["store"] is False


def test_health_reports_carry_no_secret(running: Running) -> None:
    running.sandbox.faults.error_rate_5xx = 1.0
    text = running.healthz().text
    assert ACME.client_secret not in text and "sbx_" not in text


# -- the cached service check ------------------------------------------------------------------
class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_service_is_checked_at_most_once_per_ttl() -> None:
    clock = Clock()
    reads: list[int] = []
    probe = ServiceProbe(lambda: reads.append(1), ttl_s=10.0, clock=clock)
    for _ in range(5):
        assert probe.status()["ok"] is True
    clock.now += 9.9
    probe.status()
    assert len(reads) == 1
    clock.now += 0.1
    assert probe.status()["checked_s_ago"] == 0.0
    assert len(reads) == 2


def test_a_failed_check_is_cached_too_and_reports_the_code() -> None:
    clock = Clock()

    def down() -> None:
        raise ServerError("down", status=503, code="service_unavailable")

    probe = ServiceProbe(down, ttl_s=10.0, clock=clock)
    first, second = probe.status(), probe.status()
    assert first["ok"] is False and first["error"] == "service_unavailable"
    assert second["ok"] is False and probe.checks == 1


def test_concurrent_probes_share_one_check() -> None:
    release = threading.Event()
    entered = threading.Event()

    def slow() -> None:
        entered.set()
        release.wait(10)

    probe = ServiceProbe(slow, ttl_s=10.0, clock=Clock())
    answers: list[bool] = []
    threads = [
        threading.Thread(target=lambda: answers.append(probe.status()["ok"])) for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    entered.wait(10)
    release.set()
    for thread in threads:
        thread.join(10)
    assert answers == [True] * 4 and probe.checks == 1


def test_a_store_that_reads_but_cannot_write_makes_it_503(running: Running) -> None:
    # Another process holds the state file's write lock: reads still work, writes cannot.
    blocker = sqlite3.connect(running.runtime.store.path, isolation_level=None)
    try:
        blocker.execute("BEGIN IMMEDIATE")
        assert running.runtime.store.get("users", "nobody") is None  # reading works
        answer = running.healthz()
        assert answer.status_code == 503
        assert answer.json()["store"] is False
    finally:
        blocker.close()
    # Healthy again once the probe's write, which waited for the lock, has gone through.
    assert _eventually(lambda: running.healthz().json()["store"] is True)


def _eventually(healthy: Callable[[], bool]) -> bool:
    """Probe again (a load balancer's cadence, quickened) until healthy, for up to 15 s."""
    for _ in range(75):
        if healthy():
            return True
        time.sleep(0.2)
    return False


class HangingWrites(MemoryStore):
    """A store whose writes wait until ``release`` is set (a lock another process holds)."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.writes_started = 0

    def put(self, table: str, key: str, value: Record) -> None:
        self.writes_started += 1
        self.release.wait(60)
        super().put(table, key, value)


def test_a_store_that_hangs_on_a_write_is_reported_unhealthy_not_waited_for() -> None:
    """A probe is answered while the store's write still waits (a load balancer's probe
    times out in seconds): the store is not ok, and probes meanwhile start no second write."""
    store = HangingWrites()
    health = Health(store=store, scheduler_running=lambda: True, service=ServiceProbe(lambda: None))
    reports: list[dict[str, object]] = []
    try:
        for _ in range(2):
            probing = threading.Thread(target=lambda: reports.append(health.report()))
            probing.start()
            probing.join(30)  # far above the probe's own limit: only a hang reaches it
            assert not probing.is_alive(), "the probe waited for the store"
        assert [(r["ok"], r["store"]) for r in reports] == [(False, False), (False, False)]
        assert store.writes_started == 1
    finally:
        store.release.set()
    # The write, released, goes through: the next probes are healthy again.
    assert _eventually(lambda: health.report()["store"] is True)
