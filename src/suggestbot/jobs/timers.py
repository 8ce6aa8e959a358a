"""The flows' deferred work (:class:`~suggestbot.flows.deps.Timers`).

- **Sends** (a brief waiting to be sent, or to be sent again) are one-shot jobs on the
  scheduler, one job id per request (``request:<id>``).
- **Polls** of submitted runs live in a :class:`~suggestbot.jobs.watch_list.WatchList`. One
  watch thread takes out what is due (plus what falls due within a short horizon), groups it by
  workspace and hands each group to a sweeper (:func:`~suggestbot.jobs.run_watcher.sweep`);
  while a workspace's sweep runs, its newly due polls wait for it and go into the next sweep
  together. Runs that finished or moved are settled on the scheduler's workers.

A request is either waiting to be sent or being watched, never both: each of ``watch_run`` and
``send_later`` replaces the other.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from suggestbot.contentapi import GenerationRun
from suggestbot.flows.deps import Deps
from suggestbot.flows.requests import first_poll_delay
from suggestbot.installations.scope import team_scope
from suggestbot.jobs import run_watcher
from suggestbot.jobs.recovery import resume_one
from suggestbot.jobs.scheduler import Scheduler
from suggestbot.jobs.watch_list import Due, WatchList

log = logging.getLogger(__name__)

# After a job fails unexpectedly (Slack down past its retries, a bug), try again later rather
# than leave the request stranded until the next restart: 30 s, doubling, at most 30 min.
FIRST_RETRY_S = 30.0
MAX_RETRY_S = 1800.0
# Early tolerance: a poll due within this share of the shortest poll interval joins the sweep
# being started (1 s at the contract's 10 s), so that one listing sweep serves every run due
# in the next second instead of one sweep each. It is the only way a run is read before its
# poll is due, and never by more: with the next poll counted from when this one was due or
# read, whichever is later (``run_watcher``), the service never sees a run polled less than
# 90 % of the guidance's interval after its previous poll — within the jitter any client's
# timer has, and a tenth of an interval of lag saved for every run of the sweep.
EARLY_SHARE = 0.1
# A sweep stops paging after this share of the interval; what it has not met by then is polled
# alone, side by side on the scheduler's workers (a slow listing degrades to single polls).
SWEEP_BUDGET_SHARE = 0.5
# Workspaces swept at the same time.
SWEEPERS = 4
# The watch thread looks at the list at least this often (also how fast it notices a stop).
IDLE_WAKE_S = 1.0


def job_id(request_id: str) -> str:
    return f"request:{request_id}"


class SchedulerTimers:
    """Schedules polls and delayed sends; ``deps`` is attached once it has been built."""

    def __init__(self, scheduler: Scheduler, *, sweepers: int = SWEEPERS) -> None:
        self._scheduler = scheduler
        self.deps: Deps | None = None
        self.watching = WatchList()
        self._failures: dict[str, int] = {}
        self._lock = threading.Lock()
        self._sweepers = ThreadPoolExecutor(
            max_workers=sweepers, thread_name_prefix="suggestbot-sweep"
        )
        self._sweeping: set[str | None] = set()  # workspaces with a sweep running
        self._held: dict[str | None, list[Due]] = {}  # their polls that fell due meanwhile
        # Run id -> watched request id (and back), to act on finished runs a sweep meets.
        self._request_of_run: dict[str, str] = {}
        self._run_of_request: dict[str, str] = {}
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    # --- the Timers protocol ----------------------------------------------------------------

    def watch_run(self, request_id: str, *, delay_s: float) -> None:
        self._scheduler.cancel(job_id(request_id))
        self.watching.put(request_id, time.time() + max(delay_s, 0.0))

    def send_later(self, request_id: str, *, at: float) -> None:
        self.watching.discard(request_id)
        self._scheduler.at(job_id(request_id), at - time.time(), self._send, request_id)

    def cancel(self, request_id: str) -> None:
        self.watching.discard(request_id)
        self._scheduler.cancel(job_id(request_id))

    # --- life cycle -------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._watch_loop, name="suggestbot-watch", daemon=True
            )
            self._thread.start()

    def stop(self, *, wait: bool = True) -> None:
        """Stop taking polls out; with ``wait``, let the sweeps running finish. Polls not yet
        taken are forgotten: the next start rebuilds them from the store."""
        self._stopping.set()
        self.watching.wake()
        if wait and self._thread is not None:
            self._thread.join()
        self._sweepers.shutdown(wait=wait, cancel_futures=not wait)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # --- polls ------------------------------------------------------------------------------

    def _watch_loop(self) -> None:
        while not self._stopping.is_set():
            deps = self.deps
            if deps is not None:
                now = time.time()
                due = self.watching.take(until=now + self._horizon(deps), once_due=now)
                if due:
                    try:
                        self._dispatch(deps, due)
                    except Exception:
                        log.exception("handing out %d polls failed; retrying them", len(due))
                        self._retry_later(deps, due)
                        self.watching.release(item.request_id for item in due)
            self.watching.wait(now=time.time(), at_most_s=IDLE_WAKE_S)

    def _horizon(self, deps: Deps) -> float:
        return EARLY_SHARE * first_poll_delay(deps)

    def _dispatch(self, deps: Deps, due: list[Due]) -> None:
        by_team: dict[str | None, list[Due]] = {}
        for item in due:
            req = deps.records.requests.get(item.request_id)
            by_team.setdefault(req.team_id if req else None, []).append(item)
            if req is not None and req.run_id is not None:
                with self._lock:
                    self._request_of_run[req.run_id] = req.id
                    self._run_of_request[req.id] = req.run_id
        with self._lock:
            for team, items in by_team.items():
                if team in self._sweeping:
                    self._held.setdefault(team, []).extend(items)
                    continue
                self._sweeping.add(team)
                self._sweepers.submit(self._sweep_team, deps, team, items)

    def _sweep_team(self, deps: Deps, team: str | None, due: list[Due]) -> None:
        """Sweep ``due``, then whatever fell due for the same workspace meanwhile."""
        while True:
            self._sweep(deps, team, due)
            with self._lock:
                held = self._held.pop(team, None)
                if not held or self._stopping.is_set():
                    self._sweeping.discard(team)
                    if held:
                        self.watching.release(item.request_id for item in held)
                    return
            due = held

    def _sweep(self, deps: Deps, team: str | None, due: list[Due]) -> None:
        handed: set[str] = set()
        try:
            with team_scope(team):
                handed = run_watcher.sweep(
                    deps,
                    due,
                    hand_over=self._hand_over,
                    claim_finished=self._claim_finished,
                    poll_alone=self._poll_alone,
                    time_budget_s=SWEEP_BUDGET_SHARE * first_poll_delay(deps),
                )
        except Exception:
            log.exception("polling %d runs failed; trying again later", len(due))
            self._retry_later(deps, due)
        finally:
            done = [item.request_id for item in due if item.request_id not in handed]
            self.watching.release(done)
            self._forget_ended(done)

    def _claim_finished(self, run_id: str) -> str | None:
        with self._lock:
            request_id = self._request_of_run.get(run_id)
        if request_id is None or not self.watching.claim(request_id):
            return None
        return request_id

    def _forget_ended(self, request_ids: list[str]) -> None:
        """Requests no longer watched (their run ended) leave the run index."""
        for request_id in request_ids:
            if self.watching.due_at(request_id) is None:
                with self._lock:
                    run_id = self._run_of_request.pop(request_id, None)
                    if run_id is not None:
                        self._request_of_run.pop(run_id, None)

    def _hand_over(self, request_id: str, run: GenerationRun) -> None:
        """Settle a finished or moved run on a scheduler worker; it stays busy until then."""
        self._on_worker(request_id, lambda deps, rid: run_watcher.settle(deps, rid, run))

    def _poll_alone(self, request_id: str, due_at: float) -> None:
        """Poll a run the sweep did not meet on a scheduler worker (busy until done)."""
        self._on_worker(request_id, lambda deps, rid: run_watcher.poll(deps, rid, due_at=due_at))

    def _on_worker(self, request_id: str, fn: Callable[[Deps, str], None]) -> None:
        def job(deps: Deps, rid: str) -> None:
            try:
                fn(deps, rid)
            finally:
                self.watching.release([rid])
                self._forget_ended([rid])

        self._scheduler.at(
            f"watch:{request_id}",
            0,
            self._run,
            job,
            request_id,
            self._watch_again,
        )

    def _watch_again(self, request_id: str, delay_s: float) -> None:
        """A worker's poll failed: poll again later. Released first, since a job that failed
        before its poll began (its request could not even be read, the store being away) never
        released it, and a busy request's next poll would wait for that release for good."""
        self.watching.release([request_id])
        self.watch_run(request_id, delay_s=delay_s)

    def _retry_later(self, deps: Deps, due: list[Due]) -> None:
        """Polls that failed unexpectedly, and were not rescheduled, come back in a while
        (once released: they are still busy here)."""
        for item in due:
            if self.watching.due_at(item.request_id) is None:
                self.watching.put(item.request_id, time.time() + FIRST_RETRY_S * deps.poll_scale)

    # --- sends ------------------------------------------------------------------------------

    def _send(self, request_id: str) -> None:
        self._run(
            resume_one, request_id, lambda rid, delay: self.send_later(rid, at=time.time() + delay)
        )

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
            delay = min(FIRST_RETRY_S * 2 ** (failures - 1), MAX_RETRY_S) * deps.poll_scale
            log.exception(
                "job for request %s failed (%d in a row); trying again in %.1f s",
                request_id,
                failures,
                delay,
            )
            again(request_id, delay)
        else:
            with self._lock:
                self._failures.pop(request_id, None)
