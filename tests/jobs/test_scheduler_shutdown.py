"""Stopping the app while a poll is running must neither hang nor cut the poll short."""

from __future__ import annotations

import threading

import pytest

from suggestbot.jobs.scheduler import Scheduler


def test_shutdown_waits_for_a_running_job_that_reschedules_itself() -> None:
    scheduler = Scheduler(workers=2)
    scheduler.start()
    started, release = threading.Event(), threading.Event()
    finished: list[str] = []

    def poll() -> None:
        started.set()
        release.wait(5)
        scheduler.at("poll", 60, poll)  # a poll schedules the next one, as the watcher does
        finished.append("poll")

    scheduler.at("poll", 0, poll)
    assert started.wait(5)
    stopper = threading.Thread(target=scheduler.shutdown, kwargs={"wait": True})
    stopper.start()
    stopper.join(0.2)
    assert stopper.is_alive()  # it waits for the running poll...
    release.set()
    stopper.join(5)
    assert not stopper.is_alive()  # ...and then returns instead of deadlocking
    assert finished == ["poll"]


def test_stopping_right_as_a_timer_fires_leaves_no_error_on_the_schedulers_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The stop of a replica lands as a timer fires, again and again: the scheduler's own thread
    # must end quietly, not die with a traceback on the operator's console.
    errors: list[str] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: errors.append(repr(args.exc_value)))
    for _ in range(100):
        scheduler = Scheduler(workers=2)
        scheduler.start()
        fired = threading.Event()
        scheduler.at("poll", 0, fired.set)
        assert fired.wait(5)
        scheduler.shutdown(wait=True)
    assert errors == []
