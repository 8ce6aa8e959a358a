"""The schedule of polls: what is due comes out once, earliest first, and never twice at once."""

from __future__ import annotations

import threading
import time

from suggestbot.jobs.watch_list import Due, WatchList


def test_due_entries_come_out_earliest_first_and_later_ones_stay() -> None:
    watching = WatchList()
    watching.put("b", 20.0)
    watching.put("a", 10.0)
    watching.put("later", 100.0)

    assert watching.take(until=50.0) == [Due("a", 10.0), Due("b", 20.0)]
    assert watching.take(until=50.0) == []
    assert watching.due_at("later") == 100.0


def test_a_new_wish_replaces_the_earlier_one() -> None:
    watching = WatchList()
    watching.put("a", 10.0)
    watching.put("a", 30.0)

    assert watching.take(until=20.0) == []
    assert watching.take(until=30.0) == [Due("a", 30.0)]


def test_a_discarded_request_is_not_polled() -> None:
    watching = WatchList()
    watching.put("a", 10.0)
    watching.discard("a")

    assert watching.take(until=100.0) == []
    assert len(watching) == 0


def test_a_request_being_polled_is_not_handed_out_again_until_released() -> None:
    watching = WatchList()
    watching.put("a", 10.0)
    assert watching.take(until=10.0) == [Due("a", 10.0)]

    watching.put("a", 11.0)  # e.g. its poller scheduling the next poll, or a flow asking
    assert watching.take(until=100.0) == []
    assert watching.due_at("a") == 11.0

    watching.release(["a"])
    assert watching.take(until=100.0) == [Due("a", 11.0)]


def test_released_without_a_new_wish_means_no_longer_watched() -> None:
    watching = WatchList()
    watching.put("a", 10.0)
    watching.take(until=10.0)
    watching.release(["a"])

    assert watching.take(until=1e9) == []
    assert watching.due_at("a") is None


def test_wait_returns_when_an_earlier_poll_is_added() -> None:
    watching = WatchList()
    watching.put("far", time.time() + 60)
    woke = threading.Event()

    def waiter() -> None:
        watching.wait(now=time.time(), at_most_s=30)
        woke.set()

    thread = threading.Thread(target=waiter)
    thread.start()
    try:
        watching.put("soon", time.time())
        assert woke.wait(5)
    finally:
        watching.wake()
        thread.join(5)


def test_a_watched_request_can_be_claimed_before_it_is_due_but_only_once() -> None:
    watching = WatchList()
    watching.put("a", 100.0)

    assert watching.claim("a") is True
    assert watching.claim("a") is False  # busy now
    assert watching.take(until=1e9) == []
    assert watching.claim("not-watched") is False


def test_polls_due_soon_wait_until_one_is_due_and_then_go_together() -> None:
    watching = WatchList()
    for name, at in (("a", 10.0), ("b", 10.5), ("c", 10.9), ("d", 12.0)):
        watching.put(name, at)

    # at 9.5 nothing is due yet: "a" and "b" are not taken out on their own
    assert watching.take(until=10.5, once_due=9.5) == []
    # at 10.0 "a" is due, and everything due within the next second joins it
    assert watching.take(until=11.0, once_due=10.0) == [
        Due("a", 10.0),
        Due("b", 10.5),
        Due("c", 10.9),
    ]
