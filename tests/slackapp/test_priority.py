"""Acks first: post-ack work waits while Slack's requests are in flight, bounded, and a request
is never held up by its own gate.

Over real loopback HTTP: the app's ``build_http_app`` with a gate, a Bolt app whose listener
the test holds before its ack, and the Slack emulator as Slack.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from slack_bolt import Ack, App
from slack_sdk import WebClient

from suggestbot.asgi_thread import BackgroundServer
from suggestbot.installations.scope import ContextExecutor
from suggestbot.slackapp.http import EVENTS_PATH, build_http_app
from suggestbot.slackapp.manifest import BOT_SCOPES
from suggestbot.slackapp.priority import (
    PriorityGate,
    YieldingExecutor,
    in_foreground,
    yield_before_calls,
)
from suggestbot.slackemu import SlackEmulator
from suggestbot.slackemu.signing import signed_headers

# Over loopback HTTP with the Slack emulator: not part of the unit tier.
pytestmark = pytest.mark.loopback

SECRET = "priority-signing-secret-0123456789"
# Long enough that a test which waited for it would fail on its HTTP timeout instead.
FOREVER_S = 60.0
HTTP_TIMEOUT_S = 20.0


@dataclass
class Edge:
    """The served app: a listener held before its ack until ``release`` is set."""

    url: str
    gate: PriorityGate
    slack: WebClient
    background: YieldingExecutor
    entered: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    before_ack: list[Callable[[], Any]] = field(default_factory=list)
    seen: list[Any] = field(default_factory=list)

    def send(self, text: str = "help") -> Future[httpx.Response]:
        """POST a signed ``/suggest`` on a thread of its own; the answer comes as a future."""
        body = urlencode(
            {
                "command": "/suggest",
                "text": text,
                "team_id": "T1",
                "user_id": "U1",
                "channel_id": "C1",
                "trigger_id": "1.2.3",
                "response_url": "http://127.0.0.1:9/hooks/x",
            }
        ).encode()
        headers = signed_headers(signing_secret=SECRET, timestamp=int(time.time()), body=body)
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        pool = ThreadPoolExecutor(max_workers=1)
        try:
            return pool.submit(
                httpx.post, self.url, content=body, headers=headers, timeout=HTTP_TIMEOUT_S
            )
        finally:
            pool.shutdown(wait=False)


@pytest.fixture
def edge(request: pytest.FixtureRequest) -> Iterator[Edge]:
    max_wait_s = getattr(request, "param", FOREVER_S)
    with SlackEmulator(scopes=BOT_SCOPES) as emu:
        gate = PriorityGate(max_wait_s=max_wait_s)
        slack = yield_before_calls(WebClient(token=emu.bot_token, base_url=emu.api_url), gate=gate)
        app = App(
            client=slack,
            signing_secret=SECRET,
            process_before_response=False,
            listener_executor=ContextExecutor(max_workers=4, thread_name_prefix="test-listener"),
        )
        background = YieldingExecutor(gate=gate, max_workers=2, thread_name_prefix="test-work")
        server = BackgroundServer(build_http_app(app, gate=gate), port=0, name="priority-test")
        with server:
            got = Edge(url=server.url + EVENTS_PATH, gate=gate, slack=slack, background=background)

            @app.command("/suggest")
            def held(ack: Ack) -> None:
                got.seen += [step() for step in got.before_ack]
                got.entered.set()
                got.release.wait(HTTP_TIMEOUT_S)
                ack()

            try:
                yield got
            finally:
                got.release.set()
                background.shutdown(wait=True)
                app.listener_runner.listener_executor.shutdown(wait=True)


def test_background_work_waits_for_the_ack_in_flight_then_runs(edge: Edge) -> None:
    started = threading.Event()
    answer = edge.send()
    assert edge.entered.wait(HTTP_TIMEOUT_S)
    assert edge.gate.in_flight == 1

    task = edge.background.submit(started.set)

    assert not started.wait(0.5), "post-ack work started while Slack waited for an ack"
    edge.release.set()
    assert answer.result().status_code == 200
    task.result(timeout=HTTP_TIMEOUT_S)
    assert started.is_set()
    assert edge.gate.in_flight == 0


def test_a_listener_that_calls_out_before_its_ack_is_not_held_by_its_own_request(
    edge: Edge,
) -> None:
    """The gate waits 60 s here: a listener held by it would miss the test's HTTP timeout."""
    edge.release.set()
    edge.before_ack += [
        in_foreground,
        edge.gate.yield_to_requests,
        lambda: edge.slack.auth_test()["ok"],  # a Web API call through the gated client
    ]

    answer = edge.send()

    assert answer.result().status_code == 200
    assert edge.seen == [True, 0.0, True]


def test_work_handed_over_by_a_listener_runs_in_the_background(edge: Edge) -> None:
    """A listener's context marks it foreground; the pool it hands work to must not pass that
    mark on, or post-ack work would never yield."""
    ran_in_foreground: list[bool] = []
    edge.before_ack.append(
        lambda: edge.background.submit(lambda: ran_in_foreground.append(in_foreground()))
    )
    answer = edge.send()
    assert edge.entered.wait(HTTP_TIMEOUT_S)
    (handed,) = edge.seen
    assert not handed.done()  # waiting for the ack in flight (the gate waits 60 s here)

    edge.release.set()
    assert answer.result().status_code == 200
    handed.result(timeout=HTTP_TIMEOUT_S)
    assert ran_in_foreground == [False]


@pytest.mark.parametrize("edge", [0.3], indirect=True)
def test_post_ack_work_still_runs_when_acks_never_stop(edge: Edge) -> None:
    """Requests in flight without a break (one held open here) delay each step of the work
    by the gate's bound, never more: a task starts, and its call to Slack goes out."""
    answer = edge.send()
    assert edge.entered.wait(HTTP_TIMEOUT_S)

    def step_by_step() -> tuple[int, bool]:
        in_flight = edge.gate.in_flight
        return in_flight, bool(edge.slack.auth_test()["ok"])

    task = edge.background.submit(step_by_step)
    assert task.result(timeout=HTTP_TIMEOUT_S) == (1, True)
    assert edge.gate.in_flight == 1  # the request was in flight the whole time
    edge.release.set()
    assert answer.result().status_code == 200


def test_each_wait_is_bounded_by_the_gates_bound() -> None:
    gate = PriorityGate(max_wait_s=0.2)
    with gate.serving():
        waited = gate.yield_to_requests()
    assert waited >= 0.2
    assert gate.yield_to_requests() == 0.0  # nothing in flight: no wait at all


def test_waiting_work_goes_on_as_soon_as_the_last_request_is_answered() -> None:
    gate = PriorityGate(max_wait_s=FOREVER_S)
    serving = gate.serving()
    serving.__enter__()
    waits: list[float] = []
    waiter = threading.Thread(target=lambda: waits.append(gate.yield_to_requests()))
    waiter.start()
    _wait_until(lambda: gate.waiting == 1)
    serving.__exit__(None, None, None)
    waiter.join(HTTP_TIMEOUT_S)
    assert not waiter.is_alive()
    assert waits and waits[0] < FOREVER_S
    assert gate.waiting == 0


def _wait_until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + HTTP_TIMEOUT_S
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)
