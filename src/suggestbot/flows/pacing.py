"""Spacing the app's own posts to one channel: Slack takes about one message per second each.

The ``WebClient`` already waits out a 429 for as long as ``Retry-After`` says; pacing keeps the
app from asking for one in the first place when it has several posts for the same channel
(two digests at the same minute, a share during a wave). Posts to different channels are not
held back.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

# A little over a second, measured from the previous answer, so Slack's own window (which
# starts when it received the previous post, before it answered) has always passed: the answer's
# way back and the next post's way there only add to the gap Slack sees. The 20 ms over a second
# cover the two sides' timers; more would only add to every channel's queue (a channel's 20th
# digest of a minute waits 19 spacings).
POST_SPACING_S = 1.02
# A channel whose next slot is this far in the past is forgotten (it waits for nothing), looked
# for at most this often: a process that runs for weeks posts to ever more channels.
FORGET_AFTER_S = 60.0


class ChannelPacer:
    """Waits, per channel, until ``spacing_s`` has passed since the previous post there.

    Safe to share between threads: a post to a channel reserves its slot before waiting, so two
    threads never take the same second.
    """

    def __init__(
        self,
        *,
        spacing_s: float = POST_SPACING_S,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._spacing = spacing_s
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._next: dict[str, float] = {}
        self._swept_at = clock()

    def __len__(self) -> int:
        """How many channels it remembers."""
        with self._lock:
            return len(self._next)

    def wait(self, channel: str) -> float:
        """Block until ``channel`` may take a post; returns the seconds waited."""
        with self._lock:
            now = self._clock()
            if now - self._swept_at >= FORGET_AFTER_S:
                self._forget_before(now - FORGET_AFTER_S)
                self._swept_at = now
            slot = max(now, self._next.get(channel, now))
            # Reserve the slot now; ``posted`` moves it to one spacing after the real answer.
            self._next[channel] = slot + self._spacing
        delay = slot - now
        if delay > 0:
            self._sleep(delay)
        return max(delay, 0.0)

    def posted(self, channel: str) -> None:
        """Record that a post to ``channel`` was just answered."""
        with self._lock:
            self._next[channel] = max(self._next.get(channel, 0.0), self._clock() + self._spacing)

    def forget(self, older_than_s: float = FORGET_AFTER_S) -> None:
        """Drop channels not posted to recently (``wait`` does it itself every minute)."""
        with self._lock:
            self._forget_before(self._clock() - older_than_s)

    def _forget_before(self, limit: float) -> None:
        for channel in [c for c, at in self._next.items() if at < limit]:
            del self._next[channel]


# One per process: every flow that posts into channels shares it.
PACER = ChannelPacer()
