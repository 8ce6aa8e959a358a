"""Each periodic pass (forgetting old state) runs on one replica at a time: of replicas looking
at the same moment one runs it, it runs again only once its period is over, and a pass whose
replica died while running it is run by another once the lease runs out."""

from __future__ import annotations

import logging
import threading

import pytest

from suggestbot.jobs import maintenance
from suggestbot.jobs.maintenance import Pass
from suggestbot.slack.gate import SlackGate
from suggestbot.store import Store
from suggestbot.store.records import Records

NOW = 1_800_000_000.0


class Counted:
    def __init__(self) -> None:
        self.runs = 0
        self._lock = threading.Lock()

    def __call__(self) -> None:
        with self._lock:
            self.runs += 1


def test_replicas_looking_at_once_run_each_pass_once_per_period(store: Store) -> None:
    queue = Records(store).maintenance
    hourly, often = Counted(), Counted()
    passes = [Pass("hourly", 3600.0, hourly), Pass("often", 600.0, often)]
    for p in passes:
        queue.schedule(p.name, due_at=NOW, if_absent=True)

    ran: list[list[str]] = []
    lock = threading.Lock()

    def replica(owner: str, now: float) -> None:
        got = maintenance.run_due(queue, passes, owner=owner, now=now)
        with lock:
            ran.append(got)

    def look_all(now: float) -> None:
        threads = [threading.Thread(target=replica, args=(f"r{n}", now)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    look_all(NOW)
    assert (hourly.runs, often.runs) == (1, 1)
    look_all(NOW + 60)  # a minute later: nothing due
    assert (hourly.runs, often.runs) == (1, 1)
    look_all(NOW + 601)
    assert (hourly.runs, often.runs) == (1, 2)
    look_all(NOW + 3601)
    assert (hourly.runs, often.runs) == (2, 3)
    assert sorted(name for got in ran for name in got) == sorted(["hourly"] * 2 + ["often"] * 3)
    # A pass starting again where it was: another start writes it down only if absent.
    queue.schedule("hourly", due_at=NOW, if_absent=True)
    assert maintenance.run_due(queue, passes, owner="r9", now=NOW + 3700) == []


def test_a_pass_whose_replica_died_is_run_by_another_after_its_lease(store: Store) -> None:
    queue = Records(store).maintenance
    prune = Counted()
    passes = [Pass("prune", 3600.0, prune)]
    queue.schedule("prune", due_at=NOW)
    # The first replica claims it and dies before it has run it to the end (never released).
    assert [
        c.key
        for c in queue.claim_due(
            owner="dead", now=NOW, due_by=NOW, lease_s=maintenance.LEASE_S, limit=1
        )
    ] == ["prune"]
    assert maintenance.run_due(queue, passes, owner="alive", now=NOW + 60) == []
    assert prune.runs == 0
    later = NOW + maintenance.LEASE_S + 1
    assert maintenance.run_due(queue, passes, owner="alive", now=later) == ["prune"]
    assert prune.runs == 1


def test_a_failing_pass_runs_again_at_its_next_time(store: Store) -> None:
    queue = Records(store).maintenance

    def broken() -> None:
        raise RuntimeError("boom")

    passes = [Pass("broken", 600.0, broken)]
    queue.schedule("broken", due_at=NOW)
    assert maintenance.run_due(queue, passes, owner="a", now=NOW) == ["broken"]
    assert maintenance.run_due(queue, passes, owner="b", now=NOW + 300) == []
    assert maintenance.run_due(queue, passes, owner="b", now=NOW + 601) == ["broken"]


def test_a_pass_the_stop_refuses_is_one_quiet_line_and_a_broken_pass_an_error(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """Stopping while a pass waits on Slack's budget is the graceful stop at work, not a fault:
    no ERROR line (operators page on those), no traceback. A pass with a bug still logs one."""
    queue = Records(store).maintenance
    gate = SlackGate()
    gate.close()

    def waits_on_slack() -> None:
        for _ in range(4):  # a channel's burst is three posts: the fourth waits
            gate.send("chat.postMessage", "C1", lambda: None)

    def broken() -> None:
        raise KeyError("a bug")

    passes = [Pass("stopping", 600.0, waits_on_slack), Pass("broken", 600.0, broken)]
    for p in passes:
        queue.schedule(p.name, due_at=NOW, if_absent=True)
    with caplog.at_level(logging.INFO, logger="suggestbot.jobs"):
        ran = maintenance.run_due(queue, passes, owner="r1", now=NOW)
    assert sorted(ran) == ["broken", "stopping"]
    by_pass = {
        name: [r for r in caplog.records if f"the {name} pass failed" in r.getMessage()]
        for name in ("stopping", "broken")
    }
    [quiet] = by_pass["stopping"]
    assert quiet.levelno == logging.INFO and _traceback(quiet) == ""
    assert "the app is stopping" in quiet.getMessage()
    [loud] = by_pass["broken"]
    assert loud.levelno == logging.ERROR and "KeyError: 'a bug'" in _traceback(loud)


def _traceback(record: logging.LogRecord) -> str:
    """The traceback a record carries: as its exception, or as the text the app's redacting
    log filter leaves in its place (installed by any test of this worker that configured the
    app's logging), or "" for none."""
    if record.exc_info:
        return logging.Formatter().formatException(record.exc_info)
    return record.exc_text or ""
