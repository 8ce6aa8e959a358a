"""The one ack-then-work helper (``listeners/ack.py``), through a Bolt app served on loopback
and driven by the Slack emulator: the press is acked, its work runs with the press, and work
that fails is told to the person with the reference of its log line."""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from slack_bolt import App
from slack_bolt.adapter.asgi import SlackRequestHandler
from slack_sdk import WebClient

from suggestbot.asgi_thread import BackgroundServer
from suggestbot.flows.common.deps import Deps
from suggestbot.slackapp.listeners.ack import on_button
from suggestbot.slackemu import SlackDriver, SlackEmulator
from suggestbot.store import MemoryStore, TokenVault, generate_key
from suggestbot.store.records import Records
from suggestbot.ui.messages import t
from suggestbot.ui.payloads import action_value, button_place

# Over loopback HTTP with the Slack emulator: not part of the unit tier.
pytestmark = pytest.mark.loopback

SIGNING_SECRET = "ack-test-signing-secret"


@dataclass
class Pressed:
    emu: SlackEmulator
    driver: SlackDriver
    alice: str
    channel: str
    seen: list[tuple[str, str | None]] = field(default_factory=list)
    done: threading.Event = field(default_factory=threading.Event)


def _work(world: Pressed) -> Callable[[Deps, dict[str, Any]], None]:
    def work(deps: Deps, body: dict[str, Any]) -> None:
        world.seen.append((action_value(body), button_place(body).channel))
        world.done.set()

    return work


def _fail(deps: Deps, body: dict[str, Any]) -> None:
    raise RuntimeError("the flow broke")


@pytest.fixture
def pressed() -> Iterator[Pressed]:
    with SlackEmulator() as emu:
        alice = emu.add_user("U0ALICE", "alice")
        channel = emu.add_channel("marketing", members=[alice])
        emu.invite_bot(channel)
        client = WebClient(token=emu.bot_token, base_url=emu.api_url)
        deps = Deps(
            records=Records(MemoryStore()),
            vault=TokenVault([generate_key()]),
            content=None,  # type: ignore[arg-type]
            slack=client,
            timers=None,  # type: ignore[arg-type]
        )
        app = App(client=client, signing_secret=SIGNING_SECRET)
        with BackgroundServer(SlackRequestHandler(app), name="ack-test-app") as server:
            driver = SlackDriver(
                emu, app_url=f"{server.url}/slack/events", signing_secret=SIGNING_SECRET
            )
            world = Pressed(emu, driver, alice, channel)
            on_button(app, deps=deps, action="do_it", work=_work(world))
            on_button(app, deps=deps, action=re.compile(r"^break\.\d+$"), work=_fail)
            on_button(app, deps=deps, action=re.compile(r"^gone\.\w+$"), work=_on_gone)
            client.chat_postMessage(
                channel=channel,
                text="two buttons",
                blocks=[
                    {
                        "type": "actions",
                        "elements": [
                            _button("Do it", "do_it", "req-7"),
                            _button("Break", "break.1", "req-8"),
                            _button("Message", "gone.message", "message"),
                            _button("Thread", "gone.thread", "thread"),
                            _button("View", "gone.view", "view"),
                        ],
                    }
                ],
            )
            try:
                yield world
            finally:
                driver.close()


def _on_gone(deps: Deps, body: dict[str, Any]) -> None:
    """Act on something deleted (or closed) in Slack meanwhile, as Slack answers it."""
    channel = str(button_place(body).channel)
    what = action_value(body)
    if what == "view":
        deps.slack.views_update(
            view_id="V0CLOSED",
            view={"type": "modal", "title": {"type": "plain_text", "text": "x"}, "blocks": []},
        )
        return
    posted: Any = deps.slack.chat_postMessage(channel=channel, text="soon gone")
    deps.slack.chat_delete(channel=channel, ts=posted["ts"])
    if what == "message":
        deps.slack.chat_update(channel=channel, ts=posted["ts"], text="refreshed")
    else:
        deps.slack.conversations_replies(channel=channel, ts=posted["ts"])


def _button(label: str, action_id: str, value: str) -> dict[str, Any]:
    return {
        "type": "button",
        "text": {"type": "plain_text", "text": label},
        "action_id": action_id,
        "value": value,
    }


def _wait(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, "the work after the ack never showed"
        time.sleep(0.01)


def test_a_press_is_acked_and_its_work_runs_with_the_press(pressed: Pressed) -> None:
    [message] = pressed.emu.messages(pressed.channel)
    answer = pressed.driver.press_button(message, "Do it", user_id=pressed.alice)
    assert answer.acked_in_time and answer.status == 200
    assert pressed.done.wait(10)
    assert pressed.seen == [("req-7", pressed.channel)]
    assert pressed.emu.ephemerals(pressed.alice) == []


def test_failed_work_is_told_with_the_reference_of_its_log_line(
    pressed: Pressed, caplog: pytest.LogCaptureFixture
) -> None:
    [message] = pressed.emu.messages(pressed.channel)
    with caplog.at_level(logging.ERROR, logger="suggestbot.slackapp.listeners.ack"):
        answer = pressed.driver.press_button(message, "Break", user_id=pressed.alice)
        assert answer.acked_in_time and answer.status == 200
        _wait(lambda: bool(pressed.emu.ephemerals(pressed.alice)))
    told = pressed.emu.ephemeral_transcript(pressed.alice)
    [ref] = re.findall(r"`([0-9a-f]{8})`", told)
    assert t("error.generic", "en", ref=ref) in told
    assert "the flow broke" not in told and "Traceback" not in told
    [record] = [r for r in caplog.records if "background work failed" in r.getMessage()]
    assert ref in record.getMessage()


@pytest.mark.parametrize("what", ["message", "thread", "view"])
def test_work_on_what_no_longer_exists_is_told_in_plain_words(
    pressed: Pressed, what: str, caplog: pytest.LogCaptureFixture
) -> None:
    [message] = [m for m in pressed.emu.messages(pressed.channel) if m["text"] == "two buttons"]
    with caplog.at_level(logging.WARNING):
        answer = pressed.driver.press_button(message, what.title(), user_id=pressed.alice)
        assert answer.status == 200
        _wait(lambda: bool(pressed.emu.ephemerals(pressed.alice)))
    told = pressed.emu.ephemeral_transcript(pressed.alice)
    assert t(f"gone.{what}", "en") in told
    assert t("error.generic", "en", ref="x").split("(")[0] not in told
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert any(f"the {what} no longer exists" in r.getMessage() for r in caplog.records)
