"""Acks first: work that follows an ack yields to requests Slack is still waiting on.

Every listener acks in milliseconds, but the work each brief starts after its ack (the root
post, creating the run, polls, the result posts) runs in the same interpreter, and under a
burst of commands that work competes with the next acks for the one interpreter lock. The
HTTP edge therefore counts the Slack requests in flight (:meth:`PriorityGate.serving`), and
post-ack work waits at a few points — before a task of the background pool starts, before each
call to the service or to Slack — while any are in flight.

Two rules keep the gate safe:

- **Bounded**: a wait ends after ``max_wait_s`` even if requests never stop, so post-ack work
  is slowed by a burst, never starved by one (it goes on at one step per bound and thread).
- **Foreground never waits**: the thread serving a request, and the listener threads it hands
  the request to (they copy its context), pass every gate at once; a listener that calls out
  before its ack is never held up by its own request being in flight. Background pools reset
  the mark for the tasks they run (:class:`YieldingExecutor`).
"""

from __future__ import annotations

import contextvars
import functools
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from typing import Any, ParamSpec, TypeVar

from slack_sdk import WebClient
from slack_sdk.web import SlackResponse

from suggestbot.installations.scope import ContextExecutor

P = ParamSpec("P")
T = TypeVar("T")

# Long enough that a burst of commands (a hundred acks take about half a second at 20 at a
# time) is answered before the work it started goes on; short enough that a result is never
# held up by more than a few of these while commands keep arriving.
MAX_WAIT_S = 0.5

_FOREGROUND: contextvars.ContextVar[bool] = contextvars.ContextVar("foreground", default=False)


class PriorityGate:
    """Counts Slack requests in flight; lets post-ack work wait (bounded) until there are none.

    Args:
        max_wait_s: the longest one call of :meth:`yield_to_requests` waits.
        clock: monotonic seconds (tests may pass their own).
    """

    def __init__(
        self, *, max_wait_s: float = MAX_WAIT_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.max_wait_s = max_wait_s
        self._clock = clock
        self._in_flight = 0
        self._waiting = 0
        self._changed = threading.Condition()

    @property
    def in_flight(self) -> int:
        with self._changed:
            return self._in_flight

    @property
    def waiting(self) -> int:
        """Threads of post-ack work waiting for the requests in flight right now."""
        with self._changed:
            return self._waiting

    @contextmanager
    def serving(self) -> Iterator[None]:
        """Around one Slack request, from its arrival to its answer: counted in flight."""
        with self._changed:
            self._in_flight += 1
        try:
            yield
        finally:
            with self._changed:
                self._in_flight -= 1
                if self._in_flight == 0:
                    self._changed.notify_all()

    def yield_to_requests(self) -> float:
        """Wait while requests are in flight, at most ``max_wait_s``; at once in the foreground.
        Returns the seconds waited."""
        if _FOREGROUND.get():
            return 0.0
        with self._changed:
            if self._in_flight == 0:
                return 0.0
            start = self._clock()
            deadline = start + self.max_wait_s
            self._waiting += 1
            try:
                while self._in_flight > 0:
                    remaining = deadline - self._clock()
                    if remaining <= 0:
                        break
                    self._changed.wait(remaining)
            finally:
                self._waiting -= 1
            return self._clock() - start


def mark_foreground() -> None:
    """This context serves a Slack request (and so do the listener threads that copy it)."""
    _FOREGROUND.set(True)


def in_foreground() -> bool:
    return _FOREGROUND.get()


class YieldingExecutor(ContextExecutor):
    """The pool for work after the ack: each task runs in the background (whoever submitted
    it) and starts only once the gate lets it, at most ``gate.max_wait_s`` late."""

    def __init__(self, *, gate: PriorityGate, max_workers: int, thread_name_prefix: str) -> None:
        super().__init__(max_workers=max_workers, thread_name_prefix=thread_name_prefix)
        self.gate = gate

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        gate = self.gate

        def run() -> T:
            _FOREGROUND.set(False)  # in the task's own copy of the submitter's context
            gate.yield_to_requests()
            return fn(*args, **kwargs)

        return super().submit(run)


def yield_before_calls(client: WebClient, *, gate: PriorityGate) -> WebClient:
    """Make every Web API call of ``client`` pass ``gate`` first (a no-op in the foreground).

    Wraps the one method every ``WebClient`` method goes through, on this instance only, so it
    works for any ``WebClient`` (the single workspace's, or one that picks each workspace's
    token); Bolt's per-request clients, used by listeners before their ack, stay as they are.
    """
    call = client.api_call

    @functools.wraps(call)
    def api_call(*args: Any, **kwargs: Any) -> SlackResponse:
        gate.yield_to_requests()
        return call(*args, **kwargs)

    client.api_call = api_call  # type: ignore[method-assign]
    return client
