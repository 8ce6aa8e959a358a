"""The background thread that moves runs and ready-made generations along."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from suggestbot.sandbox import runs
from suggestbot.sandbox.env import Env

logger = logging.getLogger(__name__)

# Upper bound on one sleep: with an injected clock the real time to the next transition is
# unknown, so the worker looks again at least this often.
_MAX_SLEEP_S = 0.05
_MIN_SLEEP_S = 0.001


class Worker:
    """Calls :func:`runs.advance` whenever something may be due; ``start``/``stop`` idempotent."""

    def __init__(self, env: Env, *, after_tick: Callable[[], None]) -> None:
        self._env = env
        self._after_tick = after_tick
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        with self._lock:
            if self.running:
                return
            self._stop.clear()
            self._thread = threading.Thread(target=self._loop, name="sandbox-worker", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        with self._lock:
            thread, self._thread = self._thread, None
            self._stop.set()
            self._env.wake.set()
        if thread is not None:
            thread.join(timeout=10)

    def _loop(self) -> None:
        env = self._env
        while not self._stop.is_set():
            try:
                _, next_due = runs.advance(env)
                self._after_tick()
            except Exception:
                logger.exception("sandbox worker tick failed")
                next_due = None
            sleep = _MAX_SLEEP_S
            if next_due is not None:
                seconds = (next_due - env.now()).total_seconds()
                sleep = min(_MAX_SLEEP_S, max(_MIN_SLEEP_S, seconds))
            env.wake.wait(sleep)
            env.wake.clear()
