"""Builders and test doubles shared by the emulator's tests (imported by name, not a conftest,
so the module name cannot clash with other test folders)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio.to_thread
from slack_sdk import WebClient
from starlette.requests import Request
from starlette.responses import Response

from suggestbot.slackemu import SlackEmulator

SIGNING_SECRET = "emu-test-signing-secret"


class FakeClock:
    """A monotonic clock that only moves when told to."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class EmuSetup:
    emu: SlackEmulator
    client: WebClient
    alice: str
    bob: str
    general: str  # public: alice, bob and the bot
    random: str  # public: alice only, no bot
    secret: str  # private: alice only, no bot
    clock: FakeClock
    # Servers of other fixtures stop in these threads while the emulator stops; joined at
    # teardown. Stopping a uvicorn server takes ~0.2 s, so overlapping them halves the wait.
    stopping: list[threading.Thread] = field(default_factory=list)


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes


@dataclass
class RecordingApp:
    """An app that records each request and answers with ``reply`` -> (status, body, type)."""

    url: str = ""
    received: list[Received] = field(default_factory=list)
    reply: Callable[[Received], tuple[int, str, str]] = lambda r: (200, "", "text/plain")
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def endpoint(self, request: Request) -> Response:
        item = Received(dict(request.headers), await request.body())
        with self.lock:
            self.received.append(item)
        # The reply may block (to keep a delivery "running"), so it runs off the event loop.
        status, body, media_type = await anyio.to_thread.run_sync(self.reply, item)
        return Response(body, status_code=status, media_type=media_type)


def section(text: str, **extra: Any) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}, **extra}


def button(text: str, action_id: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": "button",
        "text": {"type": "plain_text", "text": text},
        "action_id": action_id,
        **extra,
    }


def modal(blocks: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    view: dict[str, Any] = {
        "type": "modal",
        "callback_id": "brief",
        "title": {"type": "plain_text", "text": "New brief"},
        "submit": {"type": "plain_text", "text": "Send"},
        "close": {"type": "plain_text", "text": "Cancel"},
        "blocks": blocks,
    }
    view.update(extra)
    return view


def text_input(label: str, block_id: str, **element: Any) -> dict[str, Any]:
    return {
        "type": "input",
        "block_id": block_id,
        "label": {"type": "plain_text", "text": label},
        "element": {"type": "plain_text_input", "action_id": "value", **element},
    }


def options(*texts: str) -> list[dict[str, Any]]:
    return [
        {"text": {"type": "plain_text", "text": t}, "value": t.lower().replace(" ", "-")}
        for t in texts
    ]


def agent_manifest(**app_home: Any) -> dict[str, Any]:
    """A manifest for an app with Slack's AI-app surfaces: the agent view, a writable
    Messages tab, a message shortcut and one workflow step."""
    return {
        "display_information": {"name": "suggestbot"},
        "features": {
            "app_home": {
                "home_tab_enabled": True,
                "messages_tab_enabled": True,
                "messages_tab_read_only_enabled": False,
                **app_home,
            },
            "agent_view": {"agent_description": "Content suggestions from your brief"},
            "bot_user": {"display_name": "suggestbot"},
            "shortcuts": [
                {
                    "name": "Turn into a brief",
                    "type": "message",
                    "callback_id": "turn_into_brief",
                    "description": "Start a brief from this message",
                }
            ],
        },
        "oauth_config": {
            "scopes": {"bot": ["chat:write", "im:write", "im:history", "assistant:write"]}
        },
        "settings": {
            "event_subscriptions": {"bot_events": ["app_home_opened", "message.im"]},
            "interactivity": {"is_enabled": True},
        },
        "functions": {
            "generate_suggestions": {
                "title": "Generate content suggestions",
                "description": "Sends a brief and posts the variants",
                "input_parameters": {
                    "properties": {
                        "brief": {"type": "string", "title": "Brief"},
                        "variant_count": {"type": "integer", "title": "Variants"},
                        "channel": {"type": "slack#/types/channel_id", "title": "Channel"},
                    },
                    "required": ["brief", "channel"],
                },
                "output_parameters": {
                    "properties": {
                        "permalink": {"type": "string", "title": "Permalink"},
                        "first_variant": {"type": "string", "title": "First variant"},
                    },
                    "required": ["permalink", "first_variant"],
                },
            }
        },
    }


@contextmanager
def agent_workspace(clock: FakeClock, manifest: dict[str, Any] | None = None) -> Iterator[EmuSetup]:
    """A served workspace whose app has the manifest (default :func:`agent_manifest`):
    alice and bob in #general with the bot, #random without it."""
    with SlackEmulator(clock=clock, manifest=manifest or agent_manifest()) as emu:
        alice = emu.add_user("U0ALICE", "alice")
        bob = emu.add_user("U0BOB", "bob")
        general = emu.add_channel("general", members=[alice, bob])
        emu.invite_bot(general)
        random = emu.add_channel("random", members=[alice])
        client = WebClient(token=emu.bot_token, base_url=emu.api_url)
        setup = EmuSetup(emu, client, alice, bob, general, random, random, clock)
        try:
            yield setup
        finally:
            emu.stop()
            for thread in setup.stopping:
                thread.join()
