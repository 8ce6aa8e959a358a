"""Fewer calls for what only shows a state: the newest state replaces one not yet sent.

A :class:`Coalescer` keeps at most one pending send per target (a root message, a person's
Home). :meth:`Coalescer.later` files the newest state to go once it has lasted ``settle_s``
(a state replaced sooner is never shown); :meth:`Coalescer.now` sends at once in the
caller's thread, dropping any older state still pending, so an old state can never overwrite
a newer one. One thread sends what has settled, in the context (workspace) it was filed in.

Bounded: one entry per target with something pending; an entry leaves when it is sent.
"""

from __future__ import annotations

import contextvars
import logging
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from suggestbot.slack.gate import Dropped

log = logging.getLogger(__name__)

# A dropped send is filed again this much later, at most this many times.
RETRY_DROPPED_S = 5.0
MAX_RETRY_S = 60.0
MAX_DROPPED = 3


@dataclass
class _Pending:
    due: float
    send: Callable[[], None]
    context: contextvars.Context
    version: int
    dropped: int = 0
    final: bool = False


class Coalescer:
    """Latest-wins sends per target. ``stop`` ends its thread (pending sends are dropped:
    they only show states, and the next change shows the newest again).

    Args:
        name: for the thread's name and log lines.
        settle_s: how long a state must last before it is shown.
        clock: monotonic seconds.
    """

    def __init__(
        self, *, name: str, settle_s: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.name = name
        self.settle_s = settle_s
        self._clock = clock
        self._cond = threading.Condition()
        self._pending: dict[Hashable, _Pending] = {}
        self._sending: dict[Hashable, threading.Lock] = {}
        self._versions: dict[Hashable, int] = {}  # last version sent per target with work
        self._busy: dict[Hashable, int] = {}  # sends taken out and not yet finished
        self._next_version = 0
        self._thread: threading.Thread | None = None
        self._stopping = False

    def later(self, target: Hashable, send: Callable[[], None]) -> None:
        """Show this state once it has lasted ``settle_s`` (unless a newer one comes)."""
        with self._cond:
            if self._stopping:
                return
            self._next_version += 1
            due = self._clock() + self.settle_s
            self._pending[target] = _Pending(
                due, send, contextvars.copy_context(), self._next_version
            )
            self._start()
            self._cond.notify_all()

    def final(self, target: Hashable, send: Callable[[], None]) -> None:
        """Send the target's last state as soon as it may go, tried again (every
        :data:`RETRY_DROPPED_S`) until it was sent: dropped for lack of budget, or failed
        (Slack unavailable), it is filed again, never given up while the process runs."""
        with self._cond:
            if self._stopping:
                return
            self._next_version += 1
            self._pending[target] = _Pending(
                self._clock(), send, contextvars.copy_context(), self._next_version, final=True
            )
            self._start()
            self._cond.notify_all()

    def now(self, target: Hashable, send: Callable[[], None]) -> None:
        """Send at once in this thread; an older state still pending is dropped."""
        with self._cond:
            self._next_version += 1
            version = self._next_version
            self._pending.pop(target, None)
            lock = self._sending.setdefault(target, threading.Lock())
            self._busy[target] = self._busy.get(target, 0) + 1
        with lock:
            try:
                send()
            finally:
                self._sent(target, version)

    def drop(self, target: Hashable) -> None:
        """Forget the target's state not yet sent: the work it showed was stopped (its
        workspace's token died), so it must not be sent. One already being sent finishes."""
        with self._cond:
            self._pending.pop(target, None)
            if not self._busy.get(target):
                self._versions.pop(target, None)
                self._sending.pop(target, None)

    def pending(self) -> int:
        with self._cond:
            return len(self._pending)

    def stop(self) -> None:
        with self._cond:
            self._stopping = True
            self._pending.clear()
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(timeout=10)

    # -- the sending thread -----------------------------------------------------------------
    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name=f"suggestbot-{self.name}", daemon=True
            )
            self._thread.start()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stopping:
                    now = self._clock()
                    due = [(p.due, t) for t, p in self._pending.items() if p.due <= now]
                    if due:
                        target = min(due, key=lambda d: d[0])[1]
                        item = self._pending.pop(target)
                        lock = self._sending.setdefault(target, threading.Lock())
                        self._busy[target] = self._busy.get(target, 0) + 1
                        break
                    soonest = min((p.due for p in self._pending.values()), default=now + 1.0)
                    self._cond.wait(max(0.01, min(soonest - now, 1.0)))
                else:
                    return
            with lock:
                if self._versions.get(target, 0) > item.version:
                    self._sent(target, item.version)
                    continue  # a newer state went meanwhile
                try:
                    item.context.run(item.send)
                except Dropped as dropped:
                    self._again(target, item, dropped.retry_in)
                except Exception as exc:
                    log.warning("%s: a state was not shown (%s)", self.name, type(exc).__name__)
                    if item.final:
                        self._again(target, item)
                finally:
                    self._sent(target, item.version)

    def _again(self, target: Hashable, item: _Pending, retry_in: float | None = None) -> None:
        with self._cond:
            given_up = not item.final and item.dropped + 1 >= MAX_DROPPED
            if target in self._pending or given_up or self._stopping:
                return
            item.dropped += 1
            # Filed again for when the gate said its budget comes back (a dropped call knows),
            # so a final state does not ask the gate every moment meanwhile.
            again = RETRY_DROPPED_S if retry_in is None else min(max(retry_in, 0.5), MAX_RETRY_S)
            item.due = self._clock() + again
            self._pending[target] = item
            self._cond.notify_all()

    def _sent(self, target: Hashable, version: int) -> None:
        with self._cond:
            self._versions[target] = max(self._versions.get(target, 0), version)
            busy = self._busy.get(target, 0) - 1
            if busy > 0:
                self._busy[target] = busy
            else:
                self._busy.pop(target, None)
            if busy <= 0 and target not in self._pending:
                self._versions.pop(target, None)
                self._sending.pop(target, None)
