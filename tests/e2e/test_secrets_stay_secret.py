"""After a whole scenario, no token, client secret or signed image URL is in the logs (at
DEBUG, every library included) or in the app's database file."""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from at_rest import at_rest

from suggestbot.demo.stage import ALICE, SIGNING_SECRET, Stage, wait_for
from suggestbot.logs import configure_logging

# Shapes of every secret in play: sandbox access/user tokens and client secrets, Slack tokens,
# and the query string of a signed image URL (its signature is the credential).
SECRET_SHAPES = re.compile(r"sbx_(?:at|ut|cs)_[A-Za-z0-9_-]{6,}|xox[abp]-[A-Za-z0-9-]{6,}|[?&]sig=")


@pytest.fixture
def debug_log() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    configure_logging(level="DEBUG", stream=stream)
    try:
        yield stream
    finally:
        for handler in list(root.handlers):
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)


def test_a_whole_brief_leaves_no_secret_in_logs_or_database(
    stage: Stage, debug_log: io.StringIO
) -> None:
    token = stage.user_token()
    stage.connect(ALICE, token)
    stage.brief(ALICE, "Instagram post for the autumn trail days", variants=2)
    wait_for(lambda: "are ready" in stage.emu.transcript(stage.channel), what="the result")
    root = stage.emu.messages(stage.channel)[0]
    variant = stage.emu.messages(stage.channel, thread_ts=root["ts"])[2]  # after the gallery
    signed_url = next(b["image_url"] for b in variant["blocks"] if b["type"] == "image")
    stage.slack.press_button(variant, "Refresh preview", user_id=ALICE)
    wait_for(lambda: stage.sandbox.counters.get("POST /v1/assets/urls") == 2, what="re-mint")
    stage.stop_app()

    logs = debug_log.getvalue()
    assert "HTTP Request" in logs and "chat.postMessage" in logs  # DEBUG really was on
    leaks = SECRET_SHAPES.findall(logs)
    assert leaks == []
    for secret in (
        token,
        stage.demo.client_secret,
        stage.emu.bot_token,
        SIGNING_SECRET,
        signed_url,
        signed_url.split("?", 1)[1],
    ):
        assert secret not in logs

    database = at_rest(Path(stage.data_dir) / "suggestbot.sqlite").decode("latin-1")
    assert "requests" in database  # the records are there...
    assert SECRET_SHAPES.findall(database) == []  # ...but no secret of any shape
    assert token not in database and signed_url.split("?", 1)[1] not in database


def test_response_urls_and_trigger_ids_never_reach_the_debug_log(
    stage: Stage, debug_log: io.StringIO
) -> None:
    # Commands, modals and buttons: each hands the app a trigger_id and a response_url, which
    # it uses (views.open, answers through the response_url) while every library logs at DEBUG.
    stage.connect(ALICE)
    stage.brief(ALICE, "Instagram post for the autumn trail days", variants=1)
    wait_for(lambda: "are ready" in stage.emu.transcript(stage.channel), what="the result")
    root = stage.emu.messages(stage.channel)[0]
    variant = stage.emu.messages(stage.channel, thread_ts=root["ts"])[1]
    stage.slack.press_button(variant, "Refresh preview", user_id=ALICE)
    wait_for(lambda: stage.sandbox.counters.get("POST /v1/assets/urls") == 2, what="re-mint")
    stage.stop_app()
    with stage.emu.ws.lock:
        triggers = list(stage.emu.ws.triggers)
        hook_tokens = list(stage.emu.ws.response_urls)

    logs = debug_log.getvalue()
    assert "views.open" in logs and "/hooks/[redacted]" in logs  # both really were logged
    assert len(triggers) >= 3 and len(hook_tokens) >= 3
    leaked = [value for value in triggers + hook_tokens if value in logs]
    assert leaked == []
    assert re.findall(r"hooks/(?:commands|actions|app)/", logs) == []
