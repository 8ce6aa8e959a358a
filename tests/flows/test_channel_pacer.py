"""Posts to one channel are spaced a second apart; other channels are not held back."""

from __future__ import annotations

import threading

from suggestbot.flows.pacing import ChannelPacer


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 3))
        self.now += seconds


def test_same_channel_waits_other_channels_do_not() -> None:
    clock = FakeClock()
    pacer = ChannelPacer(spacing_s=1.05, clock=clock, sleep=clock.sleep)
    assert pacer.wait("C1") == 0.0
    clock.now += 0.2  # the post took 0.2 s
    pacer.posted("C1")
    assert pacer.wait("C2") == 0.0
    pacer.posted("C2")
    # Spacing is counted from the previous answer, not the previous request.
    assert round(pacer.wait("C1"), 3) == 1.05
    assert clock.slept == [1.05]


def test_concurrent_posts_to_one_channel_take_separate_slots() -> None:
    clock = FakeClock()
    lock = threading.Lock()
    slots: list[float] = []

    def sleep(seconds: float) -> None:
        with lock:
            slots.append(round(seconds, 3))

    pacer = ChannelPacer(spacing_s=1.0, clock=clock, sleep=sleep)
    threads = [threading.Thread(target=pacer.wait, args=("C1",)) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Three posts asked at the same instant: one now, one after 1 s, one after 2 s.
    assert sorted(slots) == [1.0, 2.0]


def test_forget_drops_quiet_channels() -> None:
    clock = FakeClock()
    pacer = ChannelPacer(spacing_s=1.0, clock=clock, sleep=clock.sleep)
    pacer.posted("C1")
    clock.now += 120
    pacer.forget(older_than_s=60)
    assert pacer.wait("C1") == 0.0


def test_a_long_running_pacer_forgets_channels_it_no_longer_posts_to() -> None:
    clock = FakeClock()
    pacer = ChannelPacer(spacing_s=1.0, clock=clock, sleep=clock.sleep)
    for number in range(500):  # a day of digests into ever new channels
        pacer.wait(f"C{number}")
        pacer.posted(f"C{number}")
    assert len(pacer) == 500
    clock.now += 120.0
    pacer.wait("C-new")  # nothing but the next post
    assert len(pacer) == 1
