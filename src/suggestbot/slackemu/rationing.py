"""Slack's rate limits, enforced as Slack enforces them, per workspace (one emulator).

Slack docs, "Rate limits" (https://docs.slack.dev/apis/web-api/rate-limits): every method
has a tier — Tier 1 1+ a minute, Tier 2 20+, Tier 3 50+, Tier 4 100+ — per app per workspace;
each method's reference page names its tier (the table below). Posting messages is special:
"1 per second" per channel, "short bursts > 1 allowed", under a workspace-wide limit Slack does
not publish (taken here as 600 a minute). Past a limit Slack answers ``HTTP 429`` with
``Retry-After`` (seconds) and ``{"ok": false, "error": "ratelimited"}``.

Here a minute is a sliding 60 s of *accepted* calls per method; the burst is a bucket of
:data:`CHANNEL_BURST` posts refilled at one a second. A method not in the table is Tier 2.
On by default (``SlackEmulator(rationing=False)`` or :meth:`Rationing.off` for a test that
needs unlimited calls, which it then says). What was accepted is kept for a minute only, and
the highest count per method in any minute is kept for benchmarks (:meth:`Rationing.peaks`).
"""

from __future__ import annotations

import math
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

WINDOW_S = 60.0
TIER_1, TIER_2, TIER_3, TIER_4 = 1, 20, 50, 100
POST_WORKSPACE_PER_MINUTE = 600
CHANNEL_BURST = 3
CHANNEL_PER_S = 1.0

# Each method's tier, from its reference page (https://docs.slack.dev/reference/methods/...).
TIERS: dict[str, int] = {
    "auth.test": TIER_4,  # Special; Tier 4 here
    "chat.postMessage": POST_WORKSPACE_PER_MINUTE,  # Special: also one a second per channel
    "chat.postEphemeral": TIER_4,
    "chat.update": TIER_3,
    "chat.delete": TIER_3,
    "chat.getPermalink": TIER_4,  # Special; Tier 4 here
    "conversations.info": TIER_3,
    "conversations.open": TIER_3,
    "conversations.history": TIER_3,
    "conversations.replies": TIER_3,
    "users.info": TIER_4,
    "views.open": TIER_4,
    "views.push": TIER_4,
    "views.update": TIER_4,
    "views.publish": TIER_4,
    "files.getUploadURLExternal": TIER_4,
    "files.completeUploadExternal": TIER_4,
    "files.info": TIER_4,
    "assistant.threads.setStatus": TIER_3,
    "assistant.threads.setSuggestedPrompts": TIER_3,
    "assistant.threads.setTitle": TIER_3,
    "functions.completeSuccess": TIER_4,
    "functions.completeError": TIER_4,
}
POSTING = frozenset({"chat.postMessage"})


@dataclass(frozen=True)
class Refusal:
    """A 429: how long to wait, and which rule said no (for benchmarks and tests)."""

    retry_after: int
    rule: str


@dataclass
class _Bucket:
    tokens: float
    at: float


class Rationing:
    """Slack's budget for one workspace. Thread-safe.

    Args:
        clock: monotonic seconds (the emulator's clock).
        on: enforce from the start.
    """

    def __init__(self, *, clock: Callable[[], float], on: bool = True) -> None:
        self._clock = clock
        self._on = on
        self._lock = threading.Lock()
        self._calls: dict[str, deque[float]] = {}
        self._channels: dict[str, _Bucket] = {}
        self._peaks: dict[str, int] = {}
        self.refused: dict[str, int] = {}

    @property
    def on(self) -> bool:
        return self._on

    def off(self) -> None:
        """Unlimited calls from now on (a test that needs them says so by calling this)."""
        with self._lock:
            self._on = False

    def enable(self) -> None:
        with self._lock:
            self._on = True

    def limit(self, method: str) -> int:
        return TIERS.get(method, TIER_2)

    def check(self, method: str, channel: str | None) -> Refusal | None:
        """Count the call if Slack would take it now, else say why not."""
        with self._lock:
            now = self._clock()
            calls = self._calls.setdefault(method, deque())
            while calls and calls[0] <= now - WINDOW_S:
                calls.popleft()
            if self._on:
                if len(calls) >= self.limit(method):
                    wait = calls[len(calls) - self.limit(method)] + WINDOW_S - now
                    return self._refuse(method, Refusal(max(1, math.ceil(wait)), "tier"))
                if method in POSTING and channel:
                    bucket = self._bucket(channel, now)
                    if bucket.tokens < 1:
                        wait = (1 - bucket.tokens) / CHANNEL_PER_S
                        return self._refuse(method, Refusal(max(1, math.ceil(wait)), "channel"))
                    bucket.tokens -= 1
            calls.append(now)
            self._peaks[method] = max(self._peaks.get(method, 0), len(calls))
            self._forget(now)
            return None

    def peaks(self) -> dict[str, int]:
        """The most calls of each method accepted within any 60 s."""
        with self._lock:
            return dict(self._peaks)

    def _refuse(self, method: str, refusal: Refusal) -> Refusal:
        self.refused[method] = self.refused.get(method, 0) + 1
        return refusal

    def _bucket(self, channel: str, now: float) -> _Bucket:
        bucket = self._channels.get(channel)
        if bucket is None:
            bucket = self._channels[channel] = _Bucket(float(CHANNEL_BURST), now)
        else:
            bucket.tokens = min(CHANNEL_BURST, bucket.tokens + (now - bucket.at) * CHANNEL_PER_S)
            bucket.at = now
        return bucket

    def _forget(self, now: float) -> None:
        for channel in [
            c
            for c, b in self._channels.items()
            if b.tokens + (now - b.at) * CHANNEL_PER_S >= CHANNEL_BURST
        ]:
            del self._channels[channel]
        for method in [m for m, calls in self._calls.items() if not calls]:
            del self._calls[method]
