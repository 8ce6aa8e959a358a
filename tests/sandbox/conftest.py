"""Fixtures for the sandbox conformance suite: a fresh sandbox per test on a fake clock,
served over real loopback HTTP by one server per session.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sandbox_helpers import TIME_FACTOR, Api, FakeClock, fast_timing

from suggestbot.asgi_thread import BackgroundServer
from suggestbot.sandbox import Sandbox


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def sandbox(clock: FakeClock) -> Sandbox:
    box = Sandbox(time_factor=TIME_FACTOR, clock=clock, admin_key="test-admin-key")
    box.faults.run_timing = fast_timing()
    return box


class _Switch:
    """An ASGI app that forwards to the current test's sandbox.

    One loopback server then serves the whole session, and each test still gets a fresh
    sandbox (starting and stopping uvicorn per test would dominate the suite's run time).
    """

    def __init__(self) -> None:
        self.target: Any = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.target(scope, receive, send)


@pytest.fixture(scope="session")
def _switch() -> Iterator[tuple[_Switch, str]]:
    switch = _Switch()
    with BackgroundServer(switch, name="sandbox-tests") as server:
        yield switch, server.url


@pytest.fixture
def api(sandbox: Sandbox, clock: FakeClock, _switch: tuple[_Switch, str]) -> Iterator[Api]:
    switch, url = _switch
    switch.target = sandbox.app
    client = Api(sandbox=sandbox, clock=clock, url=url)
    try:
        yield client
    finally:
        client.http.close()
        switch.target = None
