"""What Slack still allows, per workspace and method, and per channel for posts.

- **A minute per method**: the calls of the last minute (a little more, see
  :data:`WINDOW_S`) per workspace and method; at the tier's figure the next call waits until
  the oldest leaves the window. Replicas whose calls the store does not count together
  (:mod:`~suggestbot.slack.shared_minutes`: only while the database is away) take fair
  shares: the figure is divided by the live replicas ``shares()`` counts (their heartbeats).
- **Headroom for what people wait for**: decoration (status lines, Home, permalinks) may
  spend a method's minute only down to :data:`RESERVE_SHARE` of it, and never while a call a
  person waits for is queued for the same method.
- **A bucket per channel for posts**: one post a second with a burst of
  :data:`~suggestbot.slack.tiers.POST_CHANNEL_BURST`. A full bucket is the same as none, so
  it is dropped: only channels posted to in the last few seconds are kept.
- **Pauses**: a ``429`` stops the method in that workspace until its ``Retry-After``.

Every entry expires (:meth:`Budget.prune`), so a long-running app keeps state only for what
it called in the last minute.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from suggestbot.slack.tiers import (
    POST_CHANNEL_BURST,
    POST_PER_CHANNEL_PER_S,
    POSTING_METHODS,
    tier_of,
)

# A minute and a second: Slack counts from when it received a call, which is a little after
# the app counted it, so the app's window is the longer one.
WINDOW_S = 61.0
# A little over a second between a channel's posts, for the same reason.
POST_SPACING_S = 1.02 / POST_PER_CHANNEL_PER_S
# Decoration stops when less than this share of a method's minute is left; a root's passing
# progress (queued, running) already at half, leaving the rest for its final state.
RESERVE_SHARE = 0.2
PROGRESS_RESERVE_SHARE = 0.5

# Waits shorter than this are no wait (a clock's rounding must not keep a call waiting).
EPSILON = 1e-6

Key = tuple[str, str]  # (workspace, method)


@dataclass
class _Bucket:
    tokens: float
    at: float


class Budget:
    """The calls Slack still allows; not thread-safe (the gate holds its lock around it).

    Args:
        clock: monotonic seconds.
        shares: how many replicas share one workspace's budget (1 on SQLite).
        channel_burst: posts a channel takes back to back.
    """

    def __init__(
        self,
        *,
        clock: Callable[[], float],
        shares: Callable[[], int] = lambda: 1,
        channel_burst: int = POST_CHANNEL_BURST,
    ) -> None:
        self._clock = clock
        self._shares = shares
        self._burst = channel_burst
        self._calls: dict[Key, deque[float]] = {}
        self._channels: dict[tuple[str, str], _Bucket] = {}
        self._paused: dict[Key, float] = {}
        self._urgent_waiting: dict[Key, int] = {}

    # -- the figures ------------------------------------------------------------------------
    def limit(self, method: str) -> int:
        """This replica's share of the method's minute."""
        return max(1, tier_of(method).per_minute // max(1, self._shares()))

    def used(self, workspace: str, method: str, now: float) -> int:
        calls = self._calls.get((workspace, method))
        if not calls:
            return 0
        while calls and calls[0] <= now - WINDOW_S:
            calls.popleft()
        return len(calls)

    def left_share(self, tier_name: str, now: float) -> float:
        """The smallest share of a minute left for any method of the tier in any workspace
        (1.0 when none was called in the last minute)."""
        lowest = 1.0
        for workspace, method in list(self._calls):
            if tier_of(method).name != tier_name:
                continue
            limit = self.limit(method)
            lowest = min(lowest, max(0.0, 1 - self.used(workspace, method, now) / limit))
        return lowest

    # -- waiting ----------------------------------------------------------------------------
    def wait_for(
        self,
        workspace: str,
        method: str,
        channel: str | None,
        *,
        urgent: bool,
        now: float,
        reserve: float = RESERVE_SHARE,
    ) -> float:
        """Seconds until the call may go (0: now). Calls that are not ``urgent`` leave
        ``reserve`` (a share of the minute) to those that are."""
        key = (workspace, method)
        wait = max(0.0, self._paused.get(key, 0.0) - now)
        limit = self.limit(method)
        if not urgent:
            if self._urgent_waiting.get(key):
                wait = max(wait, 0.05)
            limit = max(1, limit - math.ceil(limit * reserve))
        used = self.used(workspace, method, now)
        if used >= limit:
            calls = self._calls[key]
            wait = max(wait, calls[used - limit] + WINDOW_S - now)
        if channel and method in POSTING_METHODS:
            bucket = self._bucket(workspace, channel, now)
            if bucket.tokens < 1 - EPSILON:
                wait = max(wait, (1 - bucket.tokens) * POST_SPACING_S)
        return wait

    def take(self, workspace: str, method: str, channel: str | None, now: float) -> None:
        """Count a call that goes now."""
        self._calls.setdefault((workspace, method), deque()).append(now)
        if channel and method in POSTING_METHODS:
            bucket = self._bucket(workspace, channel, now)
            bucket.tokens -= 1
            self._channels[(workspace, channel)] = bucket

    def posted(self, workspace: str, channel: str, now: float) -> None:
        """A post's answer came back: the next post's second starts from here, not from when
        it was sent (Slack counts from when it received the post)."""
        bucket = self._channels.get((workspace, channel))
        if bucket is not None:
            bucket.at = max(bucket.at, now)

    def _bucket(self, workspace: str, channel: str, now: float) -> _Bucket:
        bucket = self._channels.get((workspace, channel))
        if bucket is None:
            return _Bucket(float(self._burst), now)
        if now > bucket.at:
            bucket.tokens = min(self._burst, bucket.tokens + (now - bucket.at) / POST_SPACING_S)
            bucket.at = now
        return bucket

    def urgent_waiting(self, workspace: str, method: str, delta: int) -> None:
        key = (workspace, method)
        count = self._urgent_waiting.get(key, 0) + delta
        if count > 0:
            self._urgent_waiting[key] = count
        else:
            self._urgent_waiting.pop(key, None)

    def pause(self, workspace: str, method: str, until: float) -> None:
        """Slack said 429: nothing more of ``method`` in ``workspace`` before ``until``."""
        key = (workspace, method)
        self._paused[key] = max(self._paused.get(key, 0.0), until)

    def paused_until(self, workspace: str, method: str) -> float:
        return self._paused.get((workspace, method), 0.0)

    # -- forgetting -------------------------------------------------------------------------
    def prune(self, now: float) -> None:
        """Forget what no longer limits anything: minutes that emptied, channels whose bucket
        is full again, pauses that ended."""
        for key in [k for k in self._calls if self.used(*k, now) == 0]:
            del self._calls[key]
        for where, bucket in list(self._channels.items()):
            if bucket.tokens + (now - bucket.at) / POST_SPACING_S >= self._burst:
                del self._channels[where]
        for key in [k for k, until in self._paused.items() if until <= now]:
            del self._paused[key]

    def size(self) -> int:
        """Entries kept (for tests: the state stays bounded)."""
        return len(self._calls) + len(self._channels) + len(self._paused)
