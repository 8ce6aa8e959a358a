"""Failures Slack produces on its own schedule, produced here on demand.

- ``rate_limit``: HTTP 429 with ``Retry-After`` and ``{"ok": false, "error": "ratelimited"}``
  (shape: Slack docs, "Rate limits" — "HTTP 429 Too Many Requests … Retry-After header").
- ``enforce_post_rate``: Slack allows about one ``chat.postMessage`` per second per channel
  (Slack docs, "Rate limits", special rate limits for posting messages); anything faster gets
  the same 429.
- ``server_error``: 5xx with Slack's JSON error body.
- ``latency``: the method answers late, to exercise timeouts and ack deadlines.

The per-channel rate window uses the emulator's clock (monotonic by default, injectable), and
every ``chat.postMessage`` attempt is recorded so tests and benchmarks can read the highest
rate the app ever tried per channel.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class _RateLimitRule:
    method: str
    channel: str | None
    retry_after: int
    remaining: int


@dataclass
class _ServerErrorRule:
    method: str
    status: int
    remaining: int


@dataclass(frozen=True)
class FaultDecision:
    """What the server must answer instead of running the method."""

    status: int
    body: dict[str, object]
    headers: dict[str, str]


class Faults:
    """Fault injection and post-rate observation for one emulator."""

    def __init__(self, *, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._rate_limits: list[_RateLimitRule] = []
        self._server_errors: list[_ServerErrorRule] = []
        self._latency: dict[str, float] = {}
        self._post_rate_per_s: float | None = None
        self._post_attempts: dict[str, list[float]] = defaultdict(list)
        self._post_accepted: dict[str, list[float]] = defaultdict(list)

    # -- configuration --------------------------------------------------------------------
    def rate_limit(
        self, method: str, *, channel: str | None = None, retry_after: int = 1, times: int = 1
    ) -> None:
        """Answer the next ``times`` calls of ``method`` (in ``channel``, if given) with 429.

        ``channel`` is a conversation id; calls naming the channel or the DM's user are
        matched through it.
        """
        if retry_after < 0 or times < 1:
            raise ValueError("retry_after must be >= 0 and times >= 1")
        with self._lock:
            self._rate_limits.append(_RateLimitRule(method, channel, retry_after, times))

    def enforce_post_rate(self, per_second: float = 1.0) -> None:
        """Refuse ``chat.postMessage`` faster than ``per_second`` per channel with 429."""
        if per_second <= 0:
            raise ValueError("per_second must be positive")
        with self._lock:
            self._post_rate_per_s = per_second

    def server_error(self, method: str, *, times: int = 1, status: int = 500) -> None:
        """Answer the next ``times`` calls of ``method`` with a 5xx status."""
        if not 500 <= status <= 599 or times < 1:
            raise ValueError("status must be 5xx and times >= 1")
        with self._lock:
            self._server_errors.append(_ServerErrorRule(method, status, times))

    def latency(self, method: str, seconds: float) -> None:
        """Delay every answer of ``method`` by ``seconds`` (0 removes the delay)."""
        with self._lock:
            if seconds > 0:
                self._latency[method] = seconds
            else:
                self._latency.pop(method, None)

    def clear(self) -> None:
        with self._lock:
            self._rate_limits.clear()
            self._server_errors.clear()
            self._latency.clear()
            self._post_rate_per_s = None

    # -- observation ----------------------------------------------------------------------
    def max_post_rate(self, channel: str, *, accepted_only: bool = False) -> int:
        """Most ``chat.postMessage`` calls to ``channel`` seen within any 1-second window."""
        with self._lock:
            source = self._post_accepted if accepted_only else self._post_attempts
            return _max_in_window(source.get(channel, []), 1.0)

    def max_post_rates(self, *, accepted_only: bool = False) -> dict[str, int]:
        """``max_post_rate`` for every channel that received a post."""
        with self._lock:
            source = self._post_accepted if accepted_only else self._post_attempts
            return {cid: _max_in_window(times, 1.0) for cid, times in source.items()}

    # -- used by the server ---------------------------------------------------------------
    def delay_for(self, method: str) -> float:
        with self._lock:
            return self._latency.get(method, 0.0)

    def before_call(self, method: str, channel: str | None) -> FaultDecision | None:
        """Decide whether this call fails by injection; consumes one use of a matching rule."""
        with self._lock:
            now = self._clock()
            if method == "chat.postMessage" and channel:
                self._post_attempts[channel].append(now)
            for rule in self._server_errors:
                if rule.method == method and rule.remaining > 0:
                    rule.remaining -= 1
                    error = "service_unavailable" if rule.status == 503 else "internal_error"
                    return FaultDecision(rule.status, {"ok": False, "error": error}, {})
            for rl in self._rate_limits:
                if rl.method == method and rl.remaining > 0 and rl.channel in (None, channel):
                    rl.remaining -= 1
                    return _ratelimited(rl.retry_after)
            if method == "chat.postMessage" and channel and self._post_rate_per_s:
                accepted = self._post_accepted.get(channel)
                window = 1.0 / self._post_rate_per_s
                if accepted and now - accepted[-1] < window:
                    return _ratelimited(max(1, int(window)))
            return None

    def after_post(self, channel: str, ok: bool) -> None:
        if not ok:
            return
        with self._lock:
            self._post_accepted[channel].append(self._clock())


def _ratelimited(retry_after: int) -> FaultDecision:
    return FaultDecision(
        429, {"ok": False, "error": "ratelimited"}, {"Retry-After": str(retry_after)}
    )


def _max_in_window(times: list[float], window: float) -> int:
    best = 0
    start = 0
    ordered = sorted(times)
    for end, t in enumerate(ordered):
        while t - ordered[start] >= window:
            start += 1
        best = max(best, end - start + 1)
    return best
