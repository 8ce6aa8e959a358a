"""The wait every end-to-end test leans on: the app acks first and works after, so a test
waits for what it expects to see."""

from __future__ import annotations

import pytest

from suggestbot.demo.stage import wait_for


def test_a_wait_for_records_read_as_an_iterator_is_refused_not_ended_at_once() -> None:
    # An empty iterator is true: waiting on one would go on before anything was recorded.
    with pytest.raises(TypeError, match="the digest"):
        wait_for(lambda: iter([]), what="the digest")


def test_a_wait_ends_with_what_it_waited_for_once_it_is_there() -> None:
    seen: list[int] = []

    def arrived() -> list[int]:
        seen.append(1)
        return seen if len(seen) >= 3 else []

    assert wait_for(arrived, timeout=5, what="the third look") == [1, 1, 1]


def test_a_wait_that_runs_out_says_what_it_waited_for_and_what_it_saw() -> None:
    with pytest.raises(TimeoutError, match=r"the digest; saw:\nnothing yet"):
        wait_for(lambda: [], timeout=0.05, what="the digest", detail=lambda: "nothing yet")
