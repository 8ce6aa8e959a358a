"""The run polling schedule."""

from __future__ import annotations

import pytest

from suggestbot.contentapi import DEFAULT_POLL_CAP_S, next_poll_delay


@pytest.mark.parametrize(
    ("elapsed", "delay"),
    [
        (0, 10),
        (179.9, 10),
        (180, 30),
        (479.9, 30),
        (480, 60),
        (1259.9, 60),
        (1260, 300),
        (DEFAULT_POLL_CAP_S - 1, 300),
    ],
)
def test_schedule_steps(elapsed: float, delay: float) -> None:
    assert next_poll_delay(elapsed) == delay


def test_polling_stops_at_the_cap() -> None:
    assert next_poll_delay(DEFAULT_POLL_CAP_S) is None
    assert next_poll_delay(7200, cap_s=7200) is None
    assert next_poll_delay(7199, cap_s=7200) == 300
    assert next_poll_delay(300, cap_s=240) is None


def test_a_whole_run_follows_the_contract_guidance() -> None:
    elapsed = 0.0
    polls: list[float] = []
    while (delay := next_poll_delay(elapsed, cap_s=1260)) is not None:
        elapsed += delay
        polls.append(elapsed)
    # 18 polls in the first 3 minutes, 10 in the next 5, 13 in the next 13.
    assert sum(1 for t in polls if t <= 180) == 18
    assert sum(1 for t in polls if 180 < t <= 480) == 10
    assert sum(1 for t in polls if 480 < t <= 1260) == 13
    assert polls[-1] == 1260
