"""The emulator's server starts on an ephemeral loopback port and shuts down cleanly."""

from __future__ import annotations

import threading

import httpx
import pytest
from slack_sdk import WebClient

from suggestbot.slackemu import SlackDriver, SlackEmulator


def _emulator_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "slack-emulator"]


def test_the_server_stops_and_its_port_is_released() -> None:
    before = len(_emulator_threads())
    emu = SlackEmulator()
    with emu.serve() as running:
        url = running.api_url
        assert url.startswith("http://127.0.0.1:") and url.endswith("/api/")
        assert WebClient(token=emu.bot_token, base_url=url).auth_test()["ok"]
        assert len(_emulator_threads()) == before + 1

    assert len(_emulator_threads()) == before
    with pytest.raises(httpx.ConnectError):
        httpx.post(f"{url}auth.test", timeout=2)
    with pytest.raises(RuntimeError):
        _ = emu.api_url


def test_two_emulators_run_side_by_side_on_different_ports() -> None:
    with SlackEmulator() as one, SlackEmulator() as two:
        assert one.url != two.url
        assert one.bot_token != two.bot_token
        with pytest.raises(Exception, match="invalid_auth"):
            WebClient(token=one.bot_token, base_url=two.api_url).auth_test()


def test_a_driver_can_be_closed_and_reports_nothing_secret() -> None:
    with SlackEmulator() as emu:
        driver = SlackDriver(emu, app_url="http://127.0.0.1:9/none", signing_secret="s3cr3t")
        assert "s3cr3t" not in repr(driver) and emu.bot_token not in repr(emu)
        driver.close()
