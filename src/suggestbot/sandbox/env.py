"""What every part of the sandbox shares: state, clock, ids, knobs, counters."""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from suggestbot.sandbox.faults import Faults
from suggestbot.sandbox.ids import Clock, IdFactory
from suggestbot.sandbox.images import UrlSigner
from suggestbot.sandbox.state import State


class RequestCounters:
    """Requests served per endpoint, keyed ``"METHOD /route/{template}"``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()

    def add(self, key: str) -> None:
        with self._lock:
            self._counts[key] += 1

    def get(self, key: str) -> int:
        with self._lock:
            return self._counts.get(key, 0)

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self._counts)

    def reset(self) -> None:
        with self._lock:
            self._counts.clear()


@dataclass
class Env:
    state: State
    ids: IdFactory
    clock: Clock
    faults: Faults
    # Fixed for the sandbox's life: the worker's kept next move (State.next_move_at) includes
    # attempt limits scaled by it.
    time_factor: float
    signer: UrlSigner = field(default_factory=UrlSigner)
    counters: RequestCounters = field(default_factory=RequestCounters)
    # Set by the worker so that new runs and knob changes are picked up without waiting.
    wake: threading.Event = field(default_factory=threading.Event)

    def now(self) -> datetime:
        return self.clock()

    def scaled(self, seconds: float) -> timedelta:
        """A nominal duration of the service, shortened (or lengthened) by ``time_factor``."""
        return timedelta(seconds=seconds * self.time_factor)
