"""The flows' deferred work (:class:`~suggestbot.slackapp.flows.deps.Timers`) on the scheduler.

One job id per request (``request:<id>``): a request is either waiting to be sent or being
watched, never both, and rescheduling replaces its single timer.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from suggestbot.jobs.scheduler import Scheduler
from suggestbot.slackapp.flows.deps import Deps

log = logging.getLogger(__name__)


def job_id(request_id: str) -> str:
    return f"request:{request_id}"


class SchedulerTimers:
    """Schedules polls and delayed sends; ``deps`` is attached once it has been built."""

    def __init__(self, scheduler: Scheduler) -> None:
        self._scheduler = scheduler
        self.deps: Deps | None = None

    def _run(self, fn: Callable[[Deps, str], None], request_id: str) -> None:
        deps = self.deps
        if deps is None:
            return
        try:
            fn(deps, request_id)
        except Exception:
            # Logged with its traceback; the request stays in its state and is resumed at the
            # next start, so nothing is lost even when a job dies.
            log.exception("job for request %s failed", request_id)

    def _poll(self, request_id: str) -> None:
        from suggestbot.jobs.run_watcher import poll

        self._run(poll, request_id)

    def _send(self, request_id: str) -> None:
        from suggestbot.jobs.recovery import resume_one

        self._run(resume_one, request_id)

    def watch_run(self, request_id: str, *, delay_s: float) -> None:
        self._scheduler.at(job_id(request_id), delay_s, self._poll, request_id)

    def send_later(self, request_id: str, *, at: float) -> None:
        self._scheduler.at(job_id(request_id), at - time.time(), self._send, request_id)

    def cancel(self, request_id: str) -> None:
        self._scheduler.cancel(job_id(request_id))
