"""Socket Mode: Slack's envelopes reach the same listeners, through Bolt's Socket Mode handler.

No WebSocket is opened (that needs Slack): each request the driver would POST is wrapped in the
envelope Slack sends over the socket and handed to the handler's documented entry point,
``handle(client, request)``, with a stand-in for the socket client that records the answers
(``send_socket_mode_response``). Everything past the socket is real: the app, the emulator,
the sandbox.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import httpx
import pytest
from slack_bolt import BoltContext
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse

from suggestbot.asgi_thread import BackgroundServer
from suggestbot.config import Settings
from suggestbot.installations.scope import current_team, enter_team
from suggestbot.sandbox import Sandbox
from suggestbot.sandbox.faults import RunTiming
from suggestbot.sandbox.seed import ACME
from suggestbot.server.composition import Runtime
from suggestbot.server.serve import IsolatedSocketModeHandler, socket_mode_handler
from suggestbot.slackapp.http import EVENTS_PATH, build_http_app
from suggestbot.slackapp.manifest import BOT_SCOPES
from suggestbot.slackemu import AppResponse, SlackDriver, SlackEmulator
from suggestbot.store import generate_key
from suggestbot.ui.messages import t

APP_TOKEN = "xapp-1-A0EMUAPP1-1-socketmodetest"


class SocketClient:
    """Stands in for the Socket Mode client: records what the app answers per envelope."""

    def __init__(self) -> None:
        self.logger = logging.getLogger("tests.socket")
        self.answers: dict[str, SocketModeResponse] = {}
        self.lock = threading.Lock()

    def send_socket_mode_response(self, response: SocketModeResponse | dict[str, Any]) -> None:
        assert isinstance(response, SocketModeResponse)
        with self.lock:
            self.answers[response.envelope_id] = response


def envelope(body: bytes, content_type: str) -> dict[str, Any]:
    """What Slack sends over the socket instead of the HTTP request ``body``."""
    if content_type.startswith("application/json"):
        return {"type": "events_api", "payload": json.loads(body), "retry_attempt": 0}
    fields = dict(parse_qsl(body.decode("utf-8")))
    if "payload" in fields:
        return {"type": "interactive", "payload": json.loads(fields["payload"])}
    return {"type": "slash_commands", "payload": fields}


class SocketModeDriver(SlackDriver):
    """The emulator's driver, delivering over Socket Mode instead of signed HTTP."""

    def __init__(self, emu: SlackEmulator, handler: IsolatedSocketModeHandler) -> None:
        super().__init__(emu, app_url="socket-mode:", signing_secret="unused")
        self.handler = handler
        self.client = SocketClient()

    def send(
        self,
        body: bytes,
        *,
        content_type: str,
        headers: Mapping[str, str] | None = None,
        client: httpx.Client | None = None,
    ) -> AppResponse:
        message = {
            "envelope_id": str(uuid.uuid4()),
            "accepts_response_payload": True,
            **envelope(body, content_type),
        }
        request = SocketModeRequest.from_dict(message)
        assert request is not None
        started = time.perf_counter()
        self.handler.handle(self.client, request)  # type: ignore[arg-type]
        elapsed = time.perf_counter() - started
        answer = self.client.answers.get(request.envelope_id)
        if answer is None:
            return AppResponse(500, "", {}, elapsed)
        payload = answer.payload
        if not payload:
            return AppResponse(200, "", {}, elapsed)
        return AppResponse(200, json.dumps(payload), {"content-type": "application/json"}, elapsed)


class SocketWorld:
    def __init__(self, runtime: Runtime, emu: SlackEmulator, driver: SocketModeDriver) -> None:
        self.runtime, self.emu, self.driver = runtime, emu, driver


@pytest.fixture
def socket_world(tmp_path: Path) -> Iterator[SocketWorld]:
    sandbox = Sandbox(time_factor=0.01)
    sandbox.faults.run_timing = RunTiming(queued_s=1.0, running_s=2.0)
    with sandbox.serve() as sandbox_server, SlackEmulator(scopes=BOT_SCOPES) as emu:
        emu.add_user("U0ALICE", "alice")
        channel = emu.add_channel("marketing", members=["U0ALICE"])
        emu.invite_bot(channel)
        settings = Settings(
            _env_file=None,
            slack_bot_token=emu.bot_token,
            slack_app_token=APP_TOKEN,
            slack_api_url=emu.api_url,
            content_api_url=sandbox_server.url,
            content_client_id=ACME.client_id,
            content_client_secret=ACME.client_secret,
            suggestbot_secret_keys=generate_key(),
            suggestbot_data_dir=tmp_path,
        )
        runtime = Runtime(settings, poll_scale=0.01).start()
        handler = socket_mode_handler(runtime.app, APP_TOKEN)
        driver = SocketModeDriver(emu, handler)
        try:
            yield SocketWorld(runtime, emu, driver)
        finally:
            driver.close()
            handler.close()
            runtime.stop()


def _wait(condition: Any, what: str) -> Any:
    deadline = time.monotonic() + 20
    while not (result := condition()):
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited for {what}")
        time.sleep(0.02)
    return result


def test_a_slash_command_envelope_is_acked_and_handled(socket_world: SocketWorld) -> None:
    emu, driver = socket_world.emu, socket_world.driver
    channel = next(iter(emu.ws.channels))
    answer = driver.slash_command("U0ALICE", channel, "help")
    assert answer.status == 200  # the envelope was acknowledged
    _wait(lambda: "/suggest brief" in emu.ephemeral_transcript("U0ALICE"), "the help text")


def test_a_slash_command_that_mentions_payload_is_handled_over_socket_mode(
    socket_world: SocketWorld,
) -> None:
    # Over the socket Slack sends the command's fields as a JSON object, which Bolt takes as
    # it is: its form-body misreading (see slackapp/bolt_body.py) cannot happen here.
    emu, driver = socket_world.emu, socket_world.driver
    emu.add_user("U0PAYLOAD", "payload.pete")
    channel = emu.add_channel("payload-team", members=["U0PAYLOAD"])
    emu.invite_bot(channel)
    answer = driver.slash_command("U0PAYLOAD", channel, "help payload")
    assert answer.status == 200
    _wait(lambda: "/suggest brief" in emu.ephemeral_transcript("U0PAYLOAD"), "the help text")


def test_revocation_events_are_acknowledged_over_socket_mode(socket_world: SocketWorld) -> None:
    driver = socket_world.driver
    assert driver.revoke_tokens(user_ids=("U0ALICE",)).status == 200
    assert driver.revoke_tokens(bot=True).status == 200


def test_a_brief_runs_end_to_end_over_socket_mode(socket_world: SocketWorld) -> None:
    emu, driver = socket_world.emu, socket_world.driver
    channel = next(iter(emu.ws.channels))
    driver.slash_command("U0ALICE", channel, "connect")
    _wait(lambda: emu.current_view("U0ALICE"), "the connect modal")
    driver.submit_view("U0ALICE", {t("connect.label", "en"): ACME.user_token})
    _wait(lambda: "account is connected" in emu.ephemeral_transcript("U0ALICE"), "the link")

    driver.slash_command("U0ALICE", channel, "brief")
    _wait(lambda: (emu.current_view("U0ALICE") or {}).get("submit"), "the brief modal")
    submitted = driver.submit_view(
        "U0ALICE",
        {
            t("brief.segment", "en"): next(iter(ACME.segments)),
            t("brief.use_case", "en"): next(iter(ACME.use_cases)),
            t("brief.text", "en"): "Rain jackets for spring",
            t("brief.variants", "en"): "2",
        },
    )
    assert submitted.errors == {}
    _wait(
        lambda: any(
            # the gallery of both variants, then each in full
            "are ready" in m.get("text", "") and m.get("reply_count") == 3
            for m in emu.messages(channel)
        ),
        "two variants (and their gallery) posted in the thread",
    )


def test_an_events_api_envelope_reaches_the_event_listeners(socket_world: SocketWorld) -> None:
    emu, driver = socket_world.emu, socket_world.driver
    assert driver.app_home_opened("U0ALICE").status == 200
    _wait(lambda: emu.home_view("U0ALICE"), "the published Home")


def test_each_envelope_runs_outside_any_workspace_left_on_the_worker_thread(
    socket_world: SocketWorld,
) -> None:
    seen: list[str | None] = []

    def record(context: BoltContext, next: Any) -> None:
        seen.append(current_team())
        next()

    socket_world.runtime.app.middleware(record)
    enter_team("T0LEFTOVER")  # as a previous envelope on this reused thread might have
    try:
        assert socket_world.driver.app_home_opened("U0ALICE").status == 200
    finally:
        enter_team(None)
    assert seen == [None]


def test_in_socket_mode_http_serves_health_but_not_slack_events(
    socket_world: SocketWorld,
) -> None:
    runtime = socket_world.runtime
    with BackgroundServer(
        build_http_app(runtime.app, health=runtime.health, events=False)
    ) as server:
        assert httpx.post(server.url + EVENTS_PATH, content=b"{}").status_code == 404
        assert httpx.get(server.url + "/healthz").status_code == 200


def test_serve_socket_mode_without_an_app_token_exits_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "suggestbot", "serve", "--socket-mode"],
        env={"SUGGESTBOT_DATA_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "SLACK_APP_TOKEN" in done.stderr


def test_serve_in_http_mode_without_a_signing_secret_exits_2(tmp_path: Path) -> None:
    # Without it the app could not tell Slack's requests from anyone else's.
    done = subprocess.run(
        [sys.executable, "-m", "suggestbot", "serve", "--port", "0"],
        env={
            "SUGGESTBOT_DATA_DIR": str(tmp_path),
            "PATH": "/usr/bin:/bin",
            "SLACK_BOT_TOKEN": "xoxb-not-used-0000",
        },
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "SLACK_SIGNING_SECRET" in done.stderr
    assert "Traceback" not in done.stderr
