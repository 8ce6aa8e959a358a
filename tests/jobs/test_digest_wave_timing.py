"""The digest wave runs on the minute: at start, then at second 0 of every minute.

A digest is due at a minute of the subscriber's day; an interval counted from process start
ran the wave up to 59 s after that minute.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

from jobs_helpers import store_only_deps

from suggestbot.jobs import digest_wave
from suggestbot.jobs.scheduler import Scheduler


def test_a_minute_job_runs_at_start_and_then_at_second_zero() -> None:
    scheduler = Scheduler(workers=2)
    ran = threading.Event()
    scheduler.each_minute("tick", ran.set)
    scheduler.start()
    try:
        assert ran.wait(10), "the minute job did not run at start"
        after_start = datetime.now(UTC)
        nxt = scheduler.next_fire("tick")
        assert nxt is not None
        assert (nxt.second, nxt.microsecond) == (0, 0)
        assert after_start < nxt <= after_start + timedelta(seconds=60)
    finally:
        scheduler.shutdown(wait=True)


def test_a_minute_job_without_a_start_run_waits_for_the_minute() -> None:
    scheduler = Scheduler(workers=2)
    scheduler.each_minute("tick", lambda: None, now_too=False)
    scheduler.start()
    try:
        nxt = scheduler.next_fire("tick")
        assert nxt is not None and (nxt.second, nxt.microsecond) == (0, 0)
    finally:
        scheduler.shutdown(wait=True)


def test_the_digest_wave_is_scheduled_on_the_minute() -> None:
    scheduler = Scheduler(workers=2)
    deps = store_only_deps()
    digest_wave.schedule(scheduler, deps)
    scheduler.start()
    try:
        nxt = scheduler.next_fire(digest_wave.JOB_ID)
        assert nxt is not None
        # The start run has been taken or is about to be; either way the wave fires on a minute.
        deadline = datetime.now(UTC) + timedelta(seconds=10)
        while nxt is not None and (nxt.second, nxt.microsecond) != (0, 0):
            assert datetime.now(UTC) < deadline, "the wave never settled on the minute"
            time.sleep(0.05)
            nxt = scheduler.next_fire(digest_wave.JOB_ID)
        assert nxt is not None and (nxt.second, nxt.microsecond) == (0, 0)
    finally:
        scheduler.shutdown(wait=True)
