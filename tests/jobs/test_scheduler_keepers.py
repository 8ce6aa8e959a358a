"""A job that keeps this process's holds alive runs on time while every worker is busy (results
waiting for Slack's budget): queued behind them, holds of live work ran out and were taken."""

from __future__ import annotations

import threading
import time

from suggestbot.jobs.scheduler import Scheduler


def _busy_workers(scheduler: Scheduler, count: int, release: threading.Event) -> None:
    started = threading.Barrier(count + 1)

    def work() -> None:
        started.wait(5)
        release.wait(10)

    for n in range(count):
        scheduler.at(f"work:{n}", 0, work)
    started.wait(5)


def _runs_of_every(scheduler: Scheduler, *, keeper: bool) -> list[float]:
    runs: list[float] = []
    scheduler.every("renew", 0.05, lambda: runs.append(time.monotonic()), keeper=keeper)
    time.sleep(0.5)
    scheduler.cancel("renew")
    return runs


def test_a_keeper_job_runs_while_every_worker_is_busy() -> None:
    scheduler = Scheduler(workers=2)
    scheduler.start()
    release = threading.Event()
    try:
        _busy_workers(scheduler, 2, release)
        assert len(_runs_of_every(scheduler, keeper=True)) >= 5
        # the same job on the shared workers waits for them (what keepers are for)
        assert _runs_of_every(scheduler, keeper=False) == []
    finally:
        release.set()
        scheduler.shutdown(wait=True)
