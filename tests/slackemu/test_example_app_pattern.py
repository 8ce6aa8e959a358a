"""The pattern the app's own tests follow, on a ten-line Bolt app.

1. start the emulator and set up the workspace;
2. build the Bolt app against it (its WebClient's ``base_url`` is ``emu.api_url``);
3. serve the app over loopback with Bolt's own ASGI adapter;
4. drive it the way Slack does and read what people see in the transcript.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from slack_bolt import App
from slack_bolt.adapter.asgi import SlackRequestHandler
from slack_sdk import WebClient

from suggestbot.asgi_thread import BackgroundServer
from suggestbot.slackemu import SlackDriver, SlackEmulator

SIGNING_SECRET = "example-signing-secret"


def build_example_app(client: WebClient) -> App:
    # Only `client` carries the token: Bolt ignores (and warns about) a second `token=`.
    app = App(client=client, signing_secret=SIGNING_SECRET)

    @app.command("/suggest")
    def suggest(ack: Callable[..., Any], command: dict[str, Any], client: WebClient) -> None:
        ack("Got it, working on your brief.")
        client.chat_postMessage(
            channel=command["channel_id"],
            text=f"Brief queued: {command['text']}",
            blocks=[
                {
                    "type": "section",
                    "text": {"type": "mrkdwn", "text": f"*Brief queued:* {command['text']}"},
                },
                {
                    "type": "actions",
                    "elements": [
                        {
                            "type": "button",
                            "text": {"type": "plain_text", "text": "Cancel"},
                            "action_id": "cancel",
                        }
                    ],
                },
            ],
        )

    return app


@dataclass
class Harness:
    emu: SlackEmulator
    driver: SlackDriver
    alice: str
    channel: str


@pytest.fixture
def harness() -> Iterator[Harness]:
    with SlackEmulator() as emu:
        alice = emu.add_user("U0ALICE", "alice")
        channel = emu.add_channel("marketing", members=[alice])
        emu.invite_bot(channel)
        app = build_example_app(WebClient(token=emu.bot_token, base_url=emu.api_url))
        with BackgroundServer(SlackRequestHandler(app), name="bolt-app") as server:
            url = f"{server.url}/slack/events"
            driver = SlackDriver(emu, app_url=url, signing_secret=SIGNING_SECRET)
            try:
                yield Harness(emu, driver, alice, channel)
            finally:
                driver.close()


def wait_for(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    """Bolt acks first and runs the listener after; wait for its effect to appear."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.01)


def test_slash_command_acks_in_time_and_posts_the_brief(harness: Harness) -> None:
    answer = harness.driver.slash_command(harness.alice, harness.channel, "spring sale for runners")

    assert answer.acked_in_time
    wait_for(lambda: bool(harness.emu.messages(harness.channel)))
    assert harness.emu.transcript(harness.channel) == (
        "#marketing\nsuggestbot (app):\n    *Brief queued:* spring sale for runners\n    [Cancel]"
    )
    assert harness.emu.ephemeral_transcript(harness.alice) == (
        "Only visible to alice\nsuggestbot (app) in #marketing: Got it, working on your brief."
    )
    assert harness.emu.warnings == []
