"""Fixtures for the emulator's own tests: a served workspace, a slack_sdk client pointed at it,
a fake clock, and a stand-in "app" that records what Slack (the driver) sends it."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from slack_sdk import WebClient
from slackemu_helpers import SIGNING_SECRET, EmuSetup, FakeClock, RecordingApp
from starlette.applications import Starlette
from starlette.routing import Route

from suggestbot.asgi_thread import BackgroundServer
from suggestbot.slackemu import SlackDriver, SlackEmulator


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def ws(clock: FakeClock) -> Iterator[EmuSetup]:
    # The emulator's own feature tests call it many times on a clock that never moves, so they
    # need unlimited calls: rationing off here, and on in test_slackemu_rationing.py.
    with SlackEmulator(clock=clock, rationing=False) as emu:
        alice = emu.add_user("U0ALICE", "alice", locale="de-DE", tz="Europe/Berlin")
        bob = emu.add_user("U0BOB", "bob", locale="en-GB", is_admin=True)
        general = emu.add_channel("general", members=[alice, bob])
        emu.invite_bot(general)
        random = emu.add_channel("random", members=[alice])
        secret = emu.add_channel("secret", members=[alice], is_private=True)
        client = WebClient(token=emu.bot_token, base_url=emu.api_url)
        setup = EmuSetup(emu, client, alice, bob, general, random, secret, clock)
        try:
            yield setup
        finally:
            emu.stop()
            for thread in setup.stopping:
                thread.join()


@pytest.fixture
def recording_app(ws: EmuSetup) -> Iterator[RecordingApp]:
    app = RecordingApp()
    asgi = Starlette(routes=[Route("/slack/events", app.endpoint, methods=["POST"])])
    server = BackgroundServer(asgi, name="recording-app").start()
    app.url = f"{server.url}/slack/events"
    try:
        yield app
    finally:
        stopper = threading.Thread(target=server.stop, name="recording-app-stop")
        stopper.start()
        ws.stopping.append(stopper)


@pytest.fixture
def driver(ws: EmuSetup, recording_app: RecordingApp) -> Iterator[SlackDriver]:
    with SlackDriver(ws.emu, app_url=recording_app.url, signing_secret=SIGNING_SECRET) as d:
        yield d
