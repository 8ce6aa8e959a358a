"""Everything between the flows and Slack's Web API, built once per process."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from suggestbot.slack.coalesce import Coalescer
from suggestbot.slack.gate import SlackGate
from suggestbot.slack.permalinks import Permalinks

# A root's progress shown only once it has lasted this long (a run that is queued for a
# second and then running never shows "queued").
ROOT_SETTLE_S = 3.0
# A Home published at most this often per person (the last state wins).
HOME_SETTLE_S = 3.0
# A status line is set again with the same text only this long after it was last set: less
# than the renewal job's minute, so each renewal still sets it before Slack lets it lapse
# (two minutes), while the same line shown twice within seconds costs one call.
STATUS_RENEW_S = 50.0
# Lines past STATUS_RENEW_S are dropped from memory this often (a stale one is never fresh).
PURGE_EVERY_S = 10.0


@dataclass
class StatusLines:
    """The status line last set per thread, so the same line is not set twice a minute.
    Entries older than :data:`STATUS_RENEW_S` are forgotten (looked for at most every
    :data:`PURGE_EVERY_S`: a renewal pass records thousands of lines, and a look at every
    entry on each record made it quadratic)."""

    clock: Callable[[], float] = time.monotonic
    _set: dict[tuple[str, str], tuple[str, float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _purged_at: float = float("-inf")

    def fresh(self, channel: str, thread_ts: str, text: str | None) -> bool:
        """True when the same line (any line: ``text`` None) was set here less than
        :data:`STATUS_RENEW_S` ago."""
        with self._lock:
            known = self._set.get((channel, thread_ts))
            if known is None or (text is not None and known[0] != text):
                return False
            return self.clock() - known[1] < STATUS_RENEW_S

    def record(self, channel: str, thread_ts: str, text: str) -> None:
        with self._lock:
            now = self.clock()
            if now - self._purged_at >= PURGE_EVERY_S:
                self._purged_at = now
                for key in [k for k, (_, at) in self._set.items() if now - at >= STATUS_RENEW_S]:
                    del self._set[key]
            if text:
                self._set[(channel, thread_ts)] = (text, now)
            else:
                self._set.pop((channel, thread_ts), None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._set)


@dataclass
class Outbound:
    """The gate and what spares its budget: coalesced roots and Homes, cached permalinks,
    status lines set once per text."""

    gate: SlackGate
    roots: Coalescer = field(
        default_factory=lambda: Coalescer(name="root-updates", settle_s=ROOT_SETTLE_S)
    )
    homes: Coalescer = field(
        default_factory=lambda: Coalescer(name="home-publishes", settle_s=HOME_SETTLE_S)
    )
    permalinks: Permalinks = field(default_factory=Permalinks)
    status_lines: StatusLines = field(default_factory=StatusLines)
    home_hashes: dict[tuple[str, str], str] = field(default_factory=dict)

    def stop(self) -> None:
        self.roots.stop()
        self.homes.stop()
