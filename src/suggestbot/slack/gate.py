"""The one gate every Slack Web API call passes: budgets, priorities, 429s, figures.

A call asks :class:`SlackGate` first. The gate knows the workspace (the caller's scope), the
method's tier (:mod:`~suggestbot.slack.tiers`) and the channel of a post, and holds the call
until Slack's budget (:class:`~suggestbot.slack.budget.Budget`) allows it:

- **urgent** calls (results, failures, answers to a person, modals, workflow steps) wait as
  long as it takes and come first;
- **decoration** (status lines, the Home, permalinks, a root's progress) spends only what is
  left above a reserve, gives way to any urgent call of its method, and is *dropped*
  (:class:`Dropped`) rather than made to wait longer than :data:`DECORATION_WAIT_S`;
- a ``429`` pauses the method in that workspace for every caller until ``Retry-After`` — and,
  with a shared store, for every replica (:class:`SharedPauses`). An urgent call is tried
  again after the pause; decoration is not.

The client never waits out a 429 on its own (the composition root leaves slack_sdk's
rate-limit retry handler out of gated clients): the gate must see every one.
"""

from __future__ import annotations

import contextvars
import enum
import functools
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from slack_sdk.errors import SlackApiError

from suggestbot import metrics
from suggestbot.slack.budget import EPSILON, PROGRESS_RESERVE_SHARE, RESERVE_SHARE, Budget
from suggestbot.slack.shared_minutes import SharedMinutes
from suggestbot.slack.shared_posts import SharedPosts
from suggestbot.slack.tiers import POSTING_METHODS, TIER_NAMES, method_label
from suggestbot.store.marks import SlackPause
from suggestbot.store.records import Table

log = logging.getLogger(__name__)

# The longest decoration waits for budget before it is dropped: a status line or a Home that
# would show minutes late is worth less than the budget it takes from results.
DECORATION_WAIT_S = 5.0
# Methods bound to a trigger that lives 3 s: held at most this long, then sent whatever the
# budget says (Slack's Tier 4 is an "at least" figure with generous bursts; waiting past the
# trigger's life would only make the call useless).
TRIGGER_METHODS = frozenset({"views.open", "views.push"})
TRIGGER_WAIT_S = 2.0
# Urgent calls answered 429 are tried again after the pause, this many times.
MAX_RATE_LIMITED_TRIES = 5
# The longest nap between two looks at the budget (a pause may end, an urgent call may leave).
MAX_NAP_S = 0.25
# The longest nap before asking the replicas' shared minute again (the store is asked before
# then only by calls that found room).
SHARED_NAP_S = 1.0
# How often forgotten entries are swept away, and the one warning per workspace repeats.
PRUNE_EVERY_S = 10.0
WARN_EVERY_S = 60.0
# How long a replica trusts what it read of the shared pauses.
SHARED_REFRESH_S = 1.0


class Priority(enum.Enum):
    URGENT = "urgent"
    DECORATION = "decoration"
    # A root's passing progress: decoration that stops earlier, so a burst of "running" never
    # spends the minute its "ready" needs.
    PROGRESS = "progress"


# Methods that are decoration whoever calls them; chat.update is urgent unless the caller says
# otherwise (a refinement's result is shown by updating its message; a root's progress is not
# something anyone waits for).
DECORATION_METHODS = frozenset(
    {"assistant.threads.setStatus", "views.publish", "chat.getPermalink"}
)

_PRIORITY: contextvars.ContextVar[Priority | None] = contextvars.ContextVar(
    "slack_priority", default=None
)


@contextmanager
def priority(level: Priority) -> Iterator[None]:
    """Calls made inside have ``level``, whatever their method."""
    token = _PRIORITY.set(level)
    try:
        yield
    finally:
        _PRIORITY.reset(token)


def priority_of(method: str) -> Priority:
    chosen = _PRIORITY.get()
    if chosen is not None:
        return chosen
    return Priority.DECORATION if method in DECORATION_METHODS else Priority.URGENT


_RESERVES = {
    Priority.URGENT: 0.0,
    Priority.DECORATION: RESERVE_SHARE,
    Priority.PROGRESS: PROGRESS_RESERVE_SHARE,
}


class Dropped(Exception):
    """Decoration not sent: Slack's budget for its method is short. Nothing to tell anyone;
    the gate logs one line a minute per workspace."""

    def __init__(self, method: str, retry_in: float | None = None) -> None:
        super().__init__(f"{method} not sent: Slack's budget for it is short")
        self.method = method
        self.retry_in = retry_in  # when the budget should allow it again, if known


class Closed(ConnectionError):
    """The process is stopping and the call would have had to wait for Slack's budget: it is
    not sent. A ``ConnectionError`` (an ``OSError``), so every flow treats it as Slack being
    out of reach from here: the work stays recorded and is taken up again by the next start
    or by another replica, instead of holding the shutdown for as long as the budget says."""

    def __init__(self, method: str) -> None:
        super().__init__(f"{method} not sent: the app is stopping")
        self.method = method


class SharedPauses:
    """Slack's 429s written to the store, so every replica waits them out.

    Args:
        table: the store's ``slack_pauses``.
        wall_clock: epoch seconds (shared between replicas, unlike a monotonic clock).
    """

    def __init__(
        self, table: Table[SlackPause], *, wall_clock: Callable[[], float] = time.time
    ) -> None:
        self._table = table
        self._wall = wall_clock
        self._lock = threading.Lock()
        self._read: dict[str, tuple[float, float]] = {}  # key -> (read at, until)

    def note(self, workspace: str, method: str, until: float) -> None:
        key = f"{workspace}|{method}"
        try:
            self._table.put(key, SlackPause(until=until))
        except Exception as exc:  # the pause still holds in this replica
            log.warning("could not share a Slack pause with the other replicas (%s)", exc)
        with self._lock:
            self._read[key] = (self._wall(), until)

    def until(self, workspace: str, method: str) -> float:
        """When the method's shared pause ends (epoch; 0 when none), read at most once a
        second per method and workspace."""
        key = f"{workspace}|{method}"
        now = self._wall()
        with self._lock:
            cached = self._read.get(key)
            if cached is not None and now - cached[0] < SHARED_REFRESH_S:
                return cached[1]
            for stale in [k for k, (at, _) in self._read.items() if now - at > WARN_EVERY_S]:
                del self._read[stale]
        try:
            record = self._table.get(key)
        except Exception:
            record = None
        until = record.until if record is not None else 0.0
        with self._lock:
            self._read[key] = (now, until)
        return until


class SlackGate:
    """Holds every Web API call until Slack's budget allows it (see the module docstring).

    Args:
        workspace: whose budget a call spends (the team, or the enterprise of an org-wide
            install); None for a single-workspace install.
        shares: how many replicas share the budget (their heartbeats); 1 on SQLite.
        shared: the store's pauses, with several replicas.
        minutes: every method's minute in the store, with several replicas: each call is
            counted there for all of them, so a replica may spend what the others leave
            (fair shares by ``shares`` only while the store does not answer).
        posts: each channel's post slots in the store, with several replicas (their posts
            into one channel keep to one a second together).
        clock, wall_clock, sleep: monotonic seconds, epoch seconds and waiting (tests pass
            their own).
        decoration_wait_s: the longest decoration waits before it is dropped.
    """

    def __init__(
        self,
        *,
        workspace: Callable[[], str | None] = lambda: None,
        shares: Callable[[], int] = lambda: 1,
        shared: SharedPauses | None = None,
        posts: SharedPosts | None = None,
        minutes: SharedMinutes | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
        decoration_wait_s: float = DECORATION_WAIT_S,
    ) -> None:
        self._workspace = workspace
        self._shared = shared
        self._posts = posts
        self._minutes = minutes
        self._clock = clock
        self._wall = wall_clock
        self._sleep = sleep
        self._decoration_wait_s = decoration_wait_s
        self._lock = threading.Lock()
        self.budget = Budget(clock=clock, shares=self._own_share(shares))
        self._pruned_at = clock()
        self._drops: dict[str, tuple[float, int]] = {}  # workspace -> (warned at, dropped since)
        self._closed = threading.Event()
        for tier in TIER_NAMES:
            metrics.SLACK_BUDGET_LEFT.labels(tier=tier).set_function(
                functools.partial(self.left, tier)
            )

    def _own_share(self, shares: Callable[[], int]) -> Callable[[], int]:
        """How many replicas this process's own count divides a minute by: none while the
        store counts every replica's calls (the whole minute is the store's to ration)."""
        minutes = self._minutes
        if minutes is None:
            return shares
        return lambda: 1 if minutes.healthy() else shares()

    def close(self) -> None:
        """The process is stopping: from now on no call waits for Slack's budget. One that
        may go at once still goes (work in flight finishes when Slack allows it now); one
        that would wait, or is waiting, raises :class:`Closed` (decoration: :class:`Dropped`).
        A modal's call still goes at once: its trigger would not outlive a wait."""
        self._closed.set()

    def left(self, tier: str) -> float:
        with self._lock:
            return self.budget.left_share(tier, self._clock())

    # -- one call ---------------------------------------------------------------------------
    def send(self, method: str, channel: str | None, call: Callable[[], Any]) -> Any:
        """Send ``call`` (one Web API call of ``method``) once Slack's budget allows it.

        Raises:
            Dropped: decoration that could not go in time.
            Closed: the process is stopping and the call would have had to wait.
            SlackApiError: Slack's answer, a 429 included once the tries are spent.
        """
        level = priority_of(method)
        workspace = self._workspace() or "-"
        label = method_label(method)
        for attempt in range(1, MAX_RATE_LIMITED_TRIES + 1):
            self._admit(workspace, method, channel, level)
            try:
                answer = call()
            except SlackApiError as exc:
                status = exc.response.status_code
                if status != 429:
                    metrics.SLACK_CALLS.labels(method=label, outcome="error").inc()
                    raise
                metrics.SLACK_CALLS.labels(method=label, outcome="rate_limited").inc()
                metrics.SLACK_RATE_LIMITED.inc()
                self._rate_limited(workspace, method, _retry_after(exc))
                if level is not Priority.URGENT or attempt == MAX_RATE_LIMITED_TRIES:
                    raise
                log.info("Slack answered 429 to %s; trying again after its pause", method)
                continue
            except Exception:
                metrics.SLACK_CALLS.labels(method=label, outcome="failed").inc()
                raise
            metrics.SLACK_CALLS.labels(method=label, outcome="ok").inc()
            if channel and method in POSTING_METHODS:
                with self._lock:
                    self.budget.posted(workspace, channel, self._clock())
            return answer
        raise AssertionError("unreachable")  # pragma: no cover

    def _admit(self, workspace: str, method: str, channel: str | None, level: Priority) -> None:
        urgent = level is Priority.URGENT
        start = self._clock()
        self._take_shared_minute(workspace, method, level, start)
        waiting = False
        try:
            while True:
                self._sync_shared(workspace, method)
                with self._lock:
                    now = self._clock()
                    if now - self._pruned_at >= PRUNE_EVERY_S:
                        self.budget.prune(now)
                        self._pruned_at = now
                    wait = self.budget.wait_for(
                        workspace, method, channel, urgent=urgent, now=now, reserve=_RESERVES[level]
                    )
                    trigger_ends = method in TRIGGER_METHODS and now - start + wait > TRIGGER_WAIT_S
                    closed = self._closed.is_set()
                    trigger = method in TRIGGER_METHODS and (trigger_ends or closed)
                    if wait <= EPSILON or (urgent and trigger):
                        self.budget.take(workspace, method, channel, now)
                        break
                    if closed:
                        if not urgent:
                            raise Dropped(method, wait)
                        raise Closed(method)
                    if not urgent and now - start + wait > self._decoration_wait_s:
                        self._dropped(workspace, method, now)
                        raise Dropped(method, wait)
                    if urgent and not waiting:
                        self.budget.urgent_waiting(workspace, method, +1)
                        waiting = True
                self._sleep(min(max(wait, 0.001), MAX_NAP_S))
            if channel and method in POSTING_METHODS and self._posts is not None:
                self._wait_for_slot(self._posts.reserve(workspace, channel), method, urgent)
        finally:
            if waiting:
                with self._lock:
                    self.budget.urgent_waiting(workspace, method, -1)
        metrics.SLACK_QUEUED_SECONDS.labels(priority=level.value).observe(self._clock() - start)

    def _take_shared_minute(
        self, workspace: str, method: str, level: Priority, start: float
    ) -> None:
        """Count the call in the replicas' shared minute, waiting for room as the process's
        own budget would: urgent calls as long as it takes, decoration dropped rather than
        held past :data:`DECORATION_WAIT_S`, a trigger's call never held."""
        if self._minutes is None:
            return
        urgent = level is Priority.URGENT
        keep = 0.0 if urgent else _RESERVES[level]
        while True:
            wait = self._minutes.take(workspace, method, keep=keep, force=method in TRIGGER_METHODS)
            if wait <= EPSILON:
                return
            if self._closed.is_set():
                raise Closed(method) if urgent else Dropped(method, wait)
            if not urgent and self._clock() - start + wait > self._decoration_wait_s:
                with self._lock:
                    self._dropped(workspace, method, self._clock())
                raise Dropped(method, wait)
            self._sleep(min(wait, SHARED_NAP_S))

    def _wait_for_slot(self, at: float, method: str, urgent: bool) -> None:
        """Wait until ``at`` (epoch), the channel's post slot the replicas handed this call."""
        while (left := at - self._wall()) > EPSILON:
            if self._closed.is_set():
                raise Closed(method) if urgent else Dropped(method, left)
            self._sleep(min(left, MAX_NAP_S))

    def _sync_shared(self, workspace: str, method: str) -> None:
        if self._shared is None:
            return
        until = self._shared.until(workspace, method)
        left = until - self._wall()
        if left > 0:
            with self._lock:
                self.budget.pause(workspace, method, self._clock() + left)

    def _rate_limited(self, workspace: str, method: str, retry_after: float) -> None:
        with self._lock:
            self.budget.pause(workspace, method, self._clock() + retry_after)
        if self._shared is not None:
            self._shared.note(workspace, method, self._wall() + retry_after)
        log.warning(
            "Slack answered 429 to %s: every call of it waits %.0f s (Retry-After)",
            method,
            retry_after,
        )

    def _dropped(self, workspace: str, method: str, now: float) -> None:
        """Count a dropped decoration; one WARNING a minute per workspace, none per call."""
        metrics.SLACK_CALLS.labels(method=method_label(method), outcome="dropped").inc()
        warned_at, since = self._drops.get(workspace, (float("-inf"), 0))
        since += 1
        if now - warned_at >= WARN_EVERY_S:
            log.warning(
                "Slack's budget is short in workspace %s: %d status line, Home or permalink "
                "call(s) dropped in the last minute so that results go first",
                workspace,
                since,
            )
            warned_at, since = now, 0
        self._drops[workspace] = (warned_at, since)
        for gone in [w for w, (at, _) in self._drops.items() if now - at > 2 * WARN_EVERY_S]:
            del self._drops[gone]


def _retry_after(exc: SlackApiError) -> float:
    headers = exc.response.headers or {}
    for name in ("Retry-After", "retry-after"):
        value = headers.get(name)
        if value is not None:
            try:
                return max(0.0, float(value[0] if isinstance(value, list) else value))
            except ValueError:
                break
    return 1.0
