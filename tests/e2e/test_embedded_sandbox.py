"""``serve`` without CONTENT_API_URL: the sandbox runs inside the app, and a Slack user is
linked to a sandbox user on first use, so a workspace can try the app with no service account."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from suggestbot.asgi_thread import BackgroundServer
from suggestbot.config import Settings
from suggestbot.demo.stage import wait_for
from suggestbot.server.composition import Runtime
from suggestbot.slackapp.http import EVENTS_PATH, build_http_app
from suggestbot.slackapp.manifest import app_manifest
from suggestbot.slackemu import SlackDriver, SlackEmulator
from suggestbot.store import generate_key

SECRET = "embedded-signing-secret-0123456789"


@pytest.fixture
def embedded(tmp_path: Path) -> Iterator[tuple[SlackEmulator, SlackDriver, Runtime, str]]:
    with SlackEmulator(manifest=app_manifest()) as emu:
        user = emu.add_user("U0DANA", "dana")
        channel = emu.add_channel("try-it", members=[user])
        emu.invite_bot(channel)
        settings = Settings(
            _env_file=None,
            slack_bot_token=emu.bot_token,
            slack_signing_secret=SECRET,
            slack_api_url=emu.api_url,
            suggestbot_secret_keys=generate_key(),
            suggestbot_data_dir=tmp_path / "data",
        )
        assert settings.embedded_sandbox
        runtime = Runtime(settings, poll_scale=0.01).start()
        try:
            with BackgroundServer(build_http_app(runtime.app, health=runtime.health)) as server:
                driver = SlackDriver(emu, app_url=server.url + EVENTS_PATH, signing_secret=SECRET)
                try:
                    yield emu, driver, runtime, channel
                finally:
                    driver.close()
        finally:
            runtime.stop()


def test_first_brief_links_the_user_and_runs_on_the_built_in_sandbox(
    embedded: tuple[SlackEmulator, SlackDriver, Runtime, str],
) -> None:
    emu, driver, runtime, channel = embedded
    assert runtime.sandbox is not None  # the service is the in-process sandbox
    driver.slash_command("U0DANA", channel, "brief")
    view = wait_for(
        lambda: (emu.current_view("U0DANA") or {}).get("submit") and emu.current_view("U0DANA"),
        what="the brief modal (not a connect prompt)",
    )
    assert view["callback_id"] == "brief"
    driver.submit_view(
        "U0DANA",
        {"Segment": "Weekend Hikers", "Use case": "Spring Launch", "Brief": "Email: trail days"},
    )
    wait_for(lambda: "are ready" in emu.transcript(channel), what="the result")
    assert emu.ephemerals("U0DANA") == []  # never asked to connect
    root = emu.messages(channel)[0]
    assert len(emu.messages(channel, thread_ts=root["ts"])) == 2
