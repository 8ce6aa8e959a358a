"""``serve``'s logs: configured from LOG_LEVEL/LOG_JSON, redacted in every library's lines
(slack_sdk's DEBUG lines of real calls included), the scheduler quiet unless debugging."""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serve_process import ServeProcess

from suggestbot.sandbox import Sandbox
from suggestbot.sandbox.seed import ACME
from suggestbot.server.serve import CHATTY_LOGGERS, tame_library_loggers
from suggestbot.slackapp.http import EVENTS_PATH
from suggestbot.slackapp.manifest import BOT_SCOPES
from suggestbot.slackemu import SlackDriver, SlackEmulator
from suggestbot.store import generate_key
from suggestbot.ui.messages import t

SIGNING_SECRET = "logging-signing-secret-0123456789"
SECRET_SHAPES = re.compile(r"xox[abposre]-[A-Za-z0-9]|xapp-[A-Za-z0-9]|sbx_(?:at|ut|cs)_")


@pytest.fixture
def restore_library_levels() -> Iterator[None]:
    saved = {name: logging.getLogger(name).level for name in CHATTY_LOGGERS}
    yield
    for name, level in saved.items():
        logging.getLogger(name).setLevel(level)


def test_the_scheduler_is_quiet_unless_debugging(restore_library_levels: None) -> None:
    tame_library_loggers("INFO")
    assert not logging.getLogger("apscheduler.executors.default").isEnabledFor(logging.INFO)
    assert logging.getLogger("apscheduler").isEnabledFor(logging.WARNING)
    tame_library_loggers("debug")
    assert logging.getLogger("apscheduler").level == logging.NOTSET


def _wait(condition: Any, what: str) -> Any:
    deadline = time.monotonic() + 60
    while not (result := condition()):
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited for {what}")
        time.sleep(0.02)
    return result


def test_debug_json_logs_of_a_real_session_hold_no_secret(tmp_path: Path) -> None:
    sandbox = Sandbox(time_factor=0.001)
    keys = generate_key()
    with sandbox.serve() as server, SlackEmulator(scopes=BOT_SCOPES) as emu:
        channel = emu.add_channel("marketing", members=[emu.add_user("U0ALICE", "alice")])
        emu.invite_bot(channel)
        process = ServeProcess(
            {
                "SLACK_BOT_TOKEN": emu.bot_token,
                "SLACK_SIGNING_SECRET": SIGNING_SECRET,
                "SLACK_API_URL": emu.api_url,
                "CONTENT_API_URL": server.url,
                "CONTENT_CLIENT_ID": ACME.client_id,
                "CONTENT_CLIENT_SECRET": ACME.client_secret,
                "SUGGESTBOT_SECRET_KEYS": keys,
                "SUGGESTBOT_DATA_DIR": str(tmp_path / "data"),
                "SUGGESTBOT_POLL_SCALE": "0.01",
                "PORT": "0",
                "LOG_LEVEL": "DEBUG",
                "LOG_JSON": "true",
            },
            cwd=tmp_path,
        ).start()
        try:
            port = int(process.wait_for_output(re.compile(r"127\.0\.0\.1:(\d+)/slack/events"))[1])
            with SlackDriver(
                emu, app_url=f"http://127.0.0.1:{port}{EVENTS_PATH}", signing_secret=SIGNING_SECRET
            ) as driver:
                driver.slash_command("U0ALICE", channel, "connect")
                _wait(lambda: emu.current_view("U0ALICE"), "the connect modal")
                driver.submit_view("U0ALICE", {t("connect.label", "en"): ACME.user_token})
                _wait(lambda: "connected" in emu.ephemeral_transcript("U0ALICE"), "the link")
                driver.slash_command("U0ALICE", channel, "brief")
                _wait(lambda: (emu.current_view("U0ALICE") or {}).get("submit"), "the modal")
                driver.submit_view(
                    "U0ALICE",
                    {
                        t("brief.segment", "en"): next(iter(ACME.segments)),
                        t("brief.use_case", "en"): next(iter(ACME.use_cases)),
                        t("brief.text", "en"): "Gloves for cold mornings",
                        t("brief.variants", "en"): "1",
                    },
                )
                _wait(
                    lambda: any("are ready" in m.get("text", "") for m in emu.messages(channel)),
                    "the result",
                )
            assert process.terminate() == 0
        finally:
            process.kill()

    lines = process.lines
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    loggers = {r["logger"] for r in records}
    messages = "\n".join(r["message"] for r in records)
    # The lines that would carry secrets were logged, at DEBUG, and came out redacted.
    assert "slack_sdk.web.base_client" in loggers
    assert "Sending a request" in messages and "Received the following response" in messages
    assert any(name.startswith("apscheduler") for name in loggers)  # not tamed at DEBUG
    text = "\n".join(lines)
    for secret in (emu.bot_token, SIGNING_SECRET, ACME.client_secret, ACME.user_token, keys):
        assert secret not in text
    assert SECRET_SHAPES.search(text) is None, SECRET_SHAPES.search(text)
