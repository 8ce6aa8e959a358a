"""The APScheduler wiring, with every job option chosen on purpose.

- ``coalesce=True``: a job that fell behind runs once, not once per missed fire.
- ``max_instances=1``: one poll of a given run at a time; job ids are per request, so two
  workers never post the same result concurrently.
- ``misfire_grace_time=None``: a late poll still runs however late (a run's result must never
  be dropped because the process was busy or asleep).
- ``replace_existing=True`` with explicit ids: rescheduling a request replaces its one timer.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.jobstores.base import JobLookupError
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger

log = logging.getLogger(__name__)

DEFAULT_WORKERS = 16
# Jobs that keep this process's holds alive run on threads of their own: with every worker
# busy (results waiting for Slack's one post a second in a busy channel), a renewal queued
# behind them ran seconds late, and the holds of work still running here were taken over.
KEEPER = "keepers"
KEEPER_WORKERS = 2


class Scheduler:
    """A small facade over ``BackgroundScheduler``: one-shot timers, interval and minute jobs."""

    def __init__(self, *, workers: int = DEFAULT_WORKERS) -> None:
        self._executor = ThreadPoolExecutor(max_workers=workers)
        self._keepers = ThreadPoolExecutor(max_workers=KEEPER_WORKERS)
        self._scheduler = BackgroundScheduler(
            executors={"default": self._executor, KEEPER: self._keepers},
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None},
            timezone=UTC,
        )

    def start(self) -> None:
        if not self._scheduler.running:
            self._scheduler.start()

    def shutdown(self, *, wait: bool = True) -> None:
        """Stop firing timers; with ``wait``, let the jobs already running finish.

        APScheduler's own ``shutdown(wait=True)`` waits for running jobs while holding its job
        store lock, and a running poll reschedules itself (``add_job`` needs that lock): a
        deadlock. So the scheduler stops without waiting and the worker pool is awaited after.

        It is paused first, and stopped once a pass over due jobs in flight has ended: a pass
        that met the stop half-way looked for the one-shot job it had just started among the
        jobs of a stopped scheduler, did not find it, and died with ``JobLookupError`` on its
        thread (about one stop in five, right as a timer fired).
        """
        if self._scheduler.running:
            self._scheduler.pause()
            self._scheduler.get_jobs()  # takes the job stores' lock, which a pass holds
            self._scheduler.shutdown(wait=False)
        if wait:
            # The pools behind APScheduler's executors; shutting them down again only waits.
            self._executor._pool.shutdown(wait=True)
            self._keepers._pool.shutdown(wait=True)

    @property
    def running(self) -> bool:
        return bool(self._scheduler.running)

    def at(self, job_id: str, delay_s: float, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` once, ``delay_s`` seconds from now (replacing job ``job_id``)."""
        when = datetime.now(UTC) + timedelta(seconds=max(delay_s, 0.0))
        self._scheduler.add_job(
            fn, trigger=DateTrigger(run_date=when), id=job_id, args=args, replace_existing=True
        )

    def every(
        self, job_id: str, seconds: float, fn: Callable[..., Any], *, keeper: bool = False
    ) -> None:
        """Run ``fn`` every ``seconds``; a ``keeper`` (it keeps holds alive) on threads no
        other job takes."""
        self._scheduler.add_job(
            fn,
            trigger=IntervalTrigger(seconds=seconds),
            id=job_id,
            replace_existing=True,
            executor=KEEPER if keeper else "default",
        )

    def each_minute(self, job_id: str, fn: Callable[..., Any], *, now_too: bool = True) -> None:
        """Run ``fn`` at second 0 of every minute on the wall clock, and (``now_too``) once now.

        Minute jobs are due *on* the minute: an interval counted from process start would run
        them up to 59 s late. The extra run at start catches up on the minute a restart missed.
        """
        self._scheduler.add_job(
            fn,
            trigger=CronTrigger(second=0, timezone=UTC),
            id=job_id,
            replace_existing=True,
            **({"next_run_time": datetime.now(UTC)} if now_too else {}),
        )

    def next_fire(self, job_id: str) -> datetime | None:
        """When job ``job_id`` runs next (``None``: no such job, or it is paused)."""
        job = self._scheduler.get_job(job_id)
        return None if job is None else job.next_run_time

    def cancel(self, job_id: str) -> None:
        with contextlib.suppress(JobLookupError):
            self._scheduler.remove_job(job_id)

    def job_ids(self) -> list[str]:
        return [job.id for job in self._scheduler.get_jobs()]
