"""A root or a Home has at most one pending send; the newest state wins; a state replaced
within the settle time is never shown; a send at once is never overwritten by an older one."""

from __future__ import annotations

import threading
import time

from suggestbot.slack.coalesce import Coalescer
from suggestbot.slack.permalinks import Permalinks


def wait_until(condition, timeout: float = 5.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_a_state_replaced_before_it_settles_is_never_shown() -> None:
    shown: list[str] = []
    roots = Coalescer(name="test", settle_s=0.3)
    try:
        for state in ("queued", "running", "retrying"):
            roots.later("root-1", lambda s=state: shown.append(s))
        roots.later("root-2", lambda: shown.append("other"))
        wait_until(lambda: len(shown) == 2)
        time.sleep(0.4)
        assert sorted(shown) == ["other", "retrying"]
        assert roots.pending() == 0
    finally:
        roots.stop()


def test_a_final_state_sent_at_once_drops_the_older_pending_one() -> None:
    shown: list[str] = []
    roots = Coalescer(name="test", settle_s=0.2)
    try:
        roots.later("root", lambda: shown.append("running"))
        roots.now("root", lambda: shown.append("done"))
        time.sleep(0.4)
        assert shown == ["done"]
    finally:
        roots.stop()


def test_a_dropped_target_never_shows_its_pending_state_and_others_still_do() -> None:
    """A workspace whose token died: its roots' progress not yet shown is never sent."""
    shown: list[str] = []
    roots = Coalescer(name="test", settle_s=0.2)
    try:
        roots.later("stopped-root", lambda: shown.append("queued"))
        roots.later("other-root", lambda: shown.append("other"))
        roots.drop("stopped-root")
        wait_until(lambda: shown == ["other"])
        time.sleep(0.3)
        assert shown == ["other"] and roots.pending() == 0
    finally:
        roots.stop()


def test_an_older_state_in_flight_never_lands_after_a_newer_one() -> None:
    shown: list[str] = []
    started = threading.Event()
    release = threading.Event()

    def slow_running() -> None:
        started.set()
        release.wait(5)
        shown.append("running")

    roots = Coalescer(name="test", settle_s=0.0)
    try:
        roots.later("root", slow_running)
        started.wait(5)
        done = threading.Thread(target=roots.now, args=("root", lambda: shown.append("done")))
        done.start()
        time.sleep(0.1)
        release.set()
        done.join(5)
        assert shown == ["running", "done"]  # "done" waited for the send in flight
    finally:
        roots.stop()


def test_the_sending_thread_stops_and_keeps_no_state() -> None:
    roots = Coalescer(name="test", settle_s=0.0)
    for n in range(200):
        roots.later(f"root-{n}", lambda: None)
    wait_until(lambda: roots.pending() == 0)
    roots.stop()
    assert not any(t.name == "suggestbot-test" for t in threading.enumerate())
    assert roots._versions == {} and roots._sending == {}


def test_a_permalink_is_asked_for_once() -> None:
    asked: list[str] = []
    links = Permalinks(max_links=2)

    def fetch() -> str:
        asked.append("x")
        return "https://emu.slack.com/archives/C1/p1"

    for _ in range(3):
        links.get(workspace="T", channel="C1", ts="1.0", fetch=fetch)
    assert len(asked) == 1
    for ts in ("2.0", "3.0", "4.0"):
        links.get(workspace="T", channel="C1", ts=ts, fetch=fetch)
    assert len(links) == 2  # bounded: the least recently used left


def test_a_final_state_is_tried_again_until_it_is_sent(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import suggestbot.slack.coalesce as coalesce
    from suggestbot.slack import Dropped

    monkeypatch.setattr(coalesce, "RETRY_DROPPED_S", 0.05)
    tries: list[int] = []

    def send() -> None:
        tries.append(1)
        if len(tries) < 6:  # more than a passing state's tries
            raise Dropped("chat.update") if len(tries) % 2 else ConnectionError("down")

    roots = Coalescer(name="test", settle_s=1.0)
    try:
        roots.final("root", send)
        wait_until(lambda: len(tries) == 6)
        time.sleep(0.2)
        assert len(tries) == 6 and roots.pending() == 0
    finally:
        roots.stop()
