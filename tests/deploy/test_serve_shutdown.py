"""SIGTERM to ``suggestbot serve`` mid-run: it stops taking work, finishes what is in flight,
exits 0; started again, it posts the result once and nothing is lost."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serve_process import ServeProcess

from suggestbot.sandbox import Sandbox
from suggestbot.sandbox.faults import RunTiming
from suggestbot.sandbox.seed import ACME
from suggestbot.sandbox.server import SandboxServer
from suggestbot.slackapp.http import EVENTS_PATH
from suggestbot.slackapp.manifest import BOT_SCOPES
from suggestbot.slackemu import SlackDriver, SlackEmulator
from suggestbot.store import SqliteStore, generate_key
from suggestbot.store.sqlite import DB_FILENAME
from suggestbot.ui.messages import t

SIGNING_SECRET = "serve-signing-secret-0123456789"
ALICE = "U0ALICE"
# Long enough that the run creation is still in flight when the signal arrives.
CREATE_RUN_LATENCY_S = 3.0
# apscheduler's own words when a job is due while its previous run is still going.
OVERRUN_WARNING = "skipped: maximum number of running instances reached"


class Outside:
    """The sandbox and the Slack emulator, served in the test process."""

    def __init__(self, sandbox: Sandbox, server: SandboxServer, emu: SlackEmulator, data: Path):
        self.sandbox, self.server, self.emu, self.data = sandbox, server, emu, data
        self.channel = emu.add_channel("marketing", members=[emu.add_user(ALICE, "alice")])
        emu.invite_bot(self.channel)
        self.keys = generate_key()

    def link(self, driver: SlackDriver) -> None:
        """Alice connects her service account through the connect modal."""
        driver.slash_command(ALICE, self.channel, "connect")
        _wait(lambda: self.emu.current_view(ALICE), "the connect modal")
        driver.submit_view(ALICE, {t("connect.label", "en"): ACME.user_token})
        _wait(lambda: "account is connected" in self.emu.ephemeral_transcript(ALICE), "the link")

    def brief_by_modal(self, driver: SlackDriver, *, text: str, variants: int) -> None:
        """Alice sends a brief through the modal (its segment and use case are then kept)."""
        driver.slash_command(ALICE, self.channel, "brief")
        _wait(lambda: (self.emu.current_view(ALICE) or {}).get("submit"), "the brief modal")
        submitted = driver.submit_view(
            ALICE,
            {
                t("brief.segment", "en"): next(iter(ACME.segments)),
                t("brief.use_case", "en"): next(iter(ACME.use_cases)),
                t("brief.text", "en"): text,
                t("brief.variants", "en"): str(variants),
            },
        )
        assert submitted.errors == {}

    def ready_roots(self) -> list[dict[str, Any]]:
        """The channel's root messages that say their results are ready."""
        return [m for m in self.emu.messages(self.channel) if "are ready" in m.get("text", "")]

    def env(self, **extra: str) -> dict[str, str]:
        return {
            "SLACK_BOT_TOKEN": self.emu.bot_token,
            "SLACK_SIGNING_SECRET": SIGNING_SECRET,
            "SLACK_API_URL": self.emu.api_url,
            "CONTENT_API_URL": self.server.url,
            "CONTENT_CLIENT_ID": ACME.client_id,
            "CONTENT_CLIENT_SECRET": ACME.client_secret,
            "SUGGESTBOT_SECRET_KEYS": self.keys,
            "SUGGESTBOT_DATA_DIR": str(self.data),
            "SUGGESTBOT_POLL_SCALE": "0.01",
            "PORT": "0",
            # No load balancer here: the port closes as soon as a signal comes.
            "SUGGESTBOT_DRAIN_SECONDS": "0",
            **extra,
        }

    def serve(self, cwd: Path, **extra: str) -> ServeProcess:
        return ServeProcess(self.env(**extra), cwd=cwd).start()


@pytest.fixture
def outside(tmp_path: Path) -> Iterator[Outside]:
    sandbox = Sandbox(time_factor=0.01)
    # 3 s queued and 2 s running, in real time.
    sandbox.faults.run_timing = RunTiming(queued_s=300.0, running_s=200.0)
    with sandbox.serve() as server, SlackEmulator(scopes=BOT_SCOPES) as emu:
        yield Outside(sandbox, server, emu, tmp_path / "data")


def _wait(condition: Any, what: str, *, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (result := condition()):
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited for {what}")
        time.sleep(0.02)
    return result


def _refuses_connections(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return False
    except OSError:
        return True


def _requests(data: Path) -> list[dict[str, Any]]:
    store = SqliteStore(data / DB_FILENAME)
    try:
        return [record for _, record in store.items("requests")]
    finally:
        store.close()


def test_sigterm_mid_run_finishes_in_flight_work_and_a_restart_posts_once(
    outside: Outside, tmp_path: Path
) -> None:
    emu = outside.emu
    first = outside.serve(tmp_path)
    driver = SlackDriver(emu, app_url="", signing_secret=SIGNING_SECRET)
    try:
        driver.app_url = first.url + EVENTS_PATH
        outside.link(driver)

        outside.sandbox.faults.latency_s = {"POST /v1/generation-runs": CREATE_RUN_LATENCY_S}
        outside.brief_by_modal(driver, text="Waterproof boots for autumn", variants=2)
        # The root is posted before the run is created: the creation is in flight now.
        _wait(lambda: emu.messages(outside.channel), "the root message")
        port = first.port

        first.send_sigterm()
        # No new work: the port closes while the run creation is still under way.
        _wait(lambda: _refuses_connections(port), "the HTTP server to stop accepting")
        assert first.alive(), "exited before the work in flight finished"
        assert first.wait(timeout=60) == 0
        assert "shutting down" in first.output and "stopped" in first.output
        # At INFO, the scheduler's routine lines (two per poll) are kept out of the log. (Its
        # warning that a tick was skipped because the one before was still running is not
        # routine, but it does come on a busy machine: this test ticks every 0.2 s.)
        assert [
            line
            for line in first.output.splitlines()
            if " apscheduler" in line and OVERRUN_WARNING not in line
        ] == []
    finally:
        first.kill()
        driver.close()

    # The work in flight finished: the run exists, once, and the request waits for it.
    stored = _requests(outside.data)
    assert [r["state"] for r in stored] == ["submitted"]
    assert stored[0]["run_id"]
    assert outside.sandbox.counters.get("POST /v1/generation-runs") == 1
    assert not outside.ready_roots()

    outside.sandbox.faults.latency_s = {}
    second = outside.serve(tmp_path)
    try:
        assert second.port > 0  # it started
        root = _wait(
            lambda: next(iter(outside.ready_roots()), None), "the results after the restart"
        )
        assert root["reply_count"] == 3  # the gallery of both variants, then each in full
        thread = emu.messages(outside.channel, thread_ts=root["ts"])
        payloads = [(m.get("metadata") or {}).get("event_payload") or {} for m in thread[1:]]
        assert [p.get("role") for p in payloads] == ["gallery", "variant", "variant"]
        numbers = sorted(p["variant_no"] for p in payloads if p.get("role") == "variant")
        assert numbers == [1, 2]
        assert len(emu.messages(outside.channel)) == 1  # one root, nothing posted twice
        assert outside.sandbox.counters.get("POST /v1/generation-runs") == 1
        assert second.terminate() == 0
    finally:
        second.kill()
    assert [r["state"] for r in _requests(outside.data)] == ["done"]
