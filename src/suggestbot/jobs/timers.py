"""The flows' deferred work (:class:`~suggestbot.slackapp.flows.deps.Timers`) on the scheduler.

One job id per request (``request:<id>``): a request is either waiting to be sent or being
watched, never both, and rescheduling replaces its single timer.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from suggestbot.installations.scope import team_scope
from suggestbot.jobs.recovery import resume_one
from suggestbot.jobs.run_watcher import poll
from suggestbot.jobs.scheduler import Scheduler
from suggestbot.slackapp.flows.deps import Deps

log = logging.getLogger(__name__)

# After a job fails unexpectedly (Slack down past its retries, a bug), try again later rather
# than leave the request stranded until the next restart: 30 s, doubling, at most 30 min.
FIRST_RETRY_S = 30.0
MAX_RETRY_S = 1800.0


def job_id(request_id: str) -> str:
    return f"request:{request_id}"


class SchedulerTimers:
    """Schedules polls and delayed sends; ``deps`` is attached once it has been built."""

    def __init__(self, scheduler: Scheduler) -> None:
        self._scheduler = scheduler
        self.deps: Deps | None = None
        self._failures: dict[str, int] = {}
        self._lock = threading.Lock()

    def _run(
        self,
        fn: Callable[[Deps, str], None],
        request_id: str,
        again: Callable[[str, float], None],
    ) -> None:
        deps = self.deps
        if deps is None:
            return
        try:
            # The job acts for the request's workspace (its bot token, its service tenant).
            req = deps.records.requests.get(request_id)
            with team_scope(req.team_id if req else None):
                fn(deps, request_id)
        except Exception:
            with self._lock:
                failures = self._failures.get(request_id, 0) + 1
                self._failures[request_id] = failures
            delay = min(FIRST_RETRY_S * 2 ** (failures - 1), MAX_RETRY_S)
            log.exception(
                "job for request %s failed (%d in a row); trying again in %.0f s",
                request_id,
                failures,
                delay,
            )
            again(request_id, delay * deps.poll_scale)
        else:
            with self._lock:
                self._failures.pop(request_id, None)

    def _poll(self, request_id: str) -> None:
        self._run(poll, request_id, lambda rid, delay: self.watch_run(rid, delay_s=delay))

    def _send(self, request_id: str) -> None:
        self._run(
            resume_one, request_id, lambda rid, delay: self.send_later(rid, at=time.time() + delay)
        )

    def watch_run(self, request_id: str, *, delay_s: float) -> None:
        self._scheduler.at(job_id(request_id), delay_s, self._poll, request_id)

    def send_later(self, request_id: str, *, at: float) -> None:
        self._scheduler.at(job_id(request_id), at - time.time(), self._send, request_id)

    def cancel(self, request_id: str) -> None:
        self._scheduler.cancel(job_id(request_id))
