"""Two replicas on one PostgreSQL: a 429 one of them met pauses the method for the other too,
they draw from one minute per workspace and method (a fair share each while the database is
away), and their posts into one channel keep to Slack's one a second together."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web import SlackResponse

from suggestbot.slack import Priority, SlackGate, priority
from suggestbot.slack.budget import POST_SPACING_S
from suggestbot.slack.gate import Dropped, SharedPauses
from suggestbot.slack.shared_minutes import BUCKET_S, SharedMinutes
from suggestbot.slack.shared_posts import FORGET_AFTER_S, SharedPosts
from suggestbot.slack.stale_sweep import SWEEP_EVERY_S
from suggestbot.store import open_app_store
from suggestbot.store.records import Records


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def limited(retry_after: int) -> Any:
    def call() -> Any:
        response = SlackResponse(
            client=None,
            http_verb="POST",
            api_url="https://slack.test/api/chat.update",
            req_args={},
            data={"ok": False, "error": "ratelimited"},
            headers={"retry-after": str(retry_after)},
            status_code=429,
        )
        raise SlackApiError("ratelimited", response)

    return call


def test_a_429_met_by_one_replica_pauses_the_other(tmp_path: Path, postgres_url: str) -> None:
    clock = Clock()
    with (
        open_app_store(data_dir=tmp_path / "a", database_url=postgres_url) as one,
        open_app_store(data_dir=tmp_path / "b", database_url=postgres_url) as two,
    ):
        gates = [
            SlackGate(
                workspace=lambda: "T1",
                shares=lambda: 2,
                shared=SharedPauses(Records(store).slack_pauses, wall_clock=clock),
                clock=clock,
                wall_clock=clock,
                sleep=clock.sleep,
            )
            for store in (one, two)
        ]
        with pytest.raises(SlackApiError), priority(Priority.DECORATION):
            gates[0].send("chat.update", None, limited(20))
        start = clock.now
        gates[1].send("chat.update", None, lambda: {"ok": True})
        assert 19.5 <= clock.now - start <= 20.5  # the other replica waited the pause out
        # Fair shares: two live replicas, 25 of Tier 3's 50 a minute each.
        start = clock.now
        for _ in range(24):
            gates[1].send("chat.delete", None, lambda: {"ok": True})
        gates[1].send("chat.delete", None, lambda: {"ok": True})
        assert clock.now == start
        gates[1].send("chat.delete", None, lambda: {"ok": True})
        assert clock.now - start >= 60


def test_replicas_posting_into_one_channel_keep_to_one_post_a_second_together(
    tmp_path: Path, postgres_url: str
) -> None:
    """Each replica paces its own posts; without the shared slots a channel whose briefs two
    replicas took got two posts a second, and Slack answered 429."""
    clock = Clock()
    with (
        open_app_store(data_dir=tmp_path / "a", database_url=postgres_url) as one,
        open_app_store(data_dir=tmp_path / "b", database_url=postgres_url) as two,
    ):
        gates = [
            SlackGate(
                workspace=lambda: "T1",
                shares=lambda: 2,
                posts=SharedPosts(Records(store).slack_post_slots, wall_clock=clock),
                clock=clock,
                wall_clock=clock,
                sleep=clock.sleep,
            )
            for store in (one, two)
        ]
        start = clock.now
        sent: list[tuple[int, float]] = []
        for replica in (0, 1, 0, 1, 1, 0):
            gates[replica].send("chat.postMessage", "C1", lambda: {"ok": True})
            sent.append((replica, round(clock.now - start, 2)))
        # Slack's burst of three, whoever sends it, then one a second for both together.
        spacing = POST_SPACING_S
        assert [at for _, at in sent] == [
            0.0,
            0.0,
            0.0,
            round(spacing, 2),
            round(2 * spacing, 2),
            round(3 * spacing, 2),
        ]
        # Another channel is not held back by the first one's queue.
        before = clock.now
        gates[1].send("chat.postMessage", "C2", lambda: {"ok": True})
        assert clock.now == before
        slots = Records(one).slack_post_slots
        assert slots.get("T1|C1") is not None
        # A minute later the slots are in the past: the next post sweeps them away.
        clock.now += FORGET_AFTER_S + SWEEP_EVERY_S + 1
        gates[0].send("chat.postMessage", "C3", lambda: {"ok": True})
        assert slots.get("T1|C1") is None and slots.get("T1|C2") is None
        assert slots.get("T1|C3") is not None


@contextmanager
def two_replicas_sharing_minutes(
    tmp_path: Path, postgres_url: str, clock: Clock
) -> Iterator[tuple[SlackGate, SlackGate]]:
    """Two replicas' gates on one PostgreSQL, counting every call in the shared minutes."""
    with (
        open_app_store(data_dir=tmp_path / "a", database_url=postgres_url) as one,
        open_app_store(data_dir=tmp_path / "b", database_url=postgres_url) as two,
    ):
        first, second = (
            SlackGate(
                workspace=lambda: "T1",
                shares=lambda: 2,
                minutes=SharedMinutes(Records(store).slack_minutes, wall_clock=clock),
                clock=clock,
                wall_clock=clock,
                sleep=clock.sleep,
            )
            for store in (one, two)
        )
        yield first, second


def ok() -> dict[str, bool]:
    return {"ok": True}


def test_the_replica_doing_the_work_spends_the_minute_the_others_leave(
    tmp_path: Path, postgres_url: str
) -> None:
    """A workspace's results are settled by the replica holding its polls: with fair shares it
    had half of chat.update's minute here while the other half went unused. Counted together,
    it may spend the whole minute, and then neither replica sends more before it has room."""
    clock = Clock()
    with two_replicas_sharing_minutes(tmp_path, postgres_url, clock) as (busy, idle):
        start = clock.now
        for _ in range(50):  # Tier 3: 50 a minute, for both replicas together
            busy.send("chat.update", None, ok)
        assert clock.now == start
        idle.send("chat.update", None, ok)
        assert 60 <= clock.now - start <= 61 + BUCKET_S
        # Another method's minute is its own.
        before = clock.now
        idle.send("chat.delete", None, ok)
        assert clock.now == before


def test_decoration_leaves_the_shared_minute_s_reserve_to_what_people_wait_for(
    tmp_path: Path, postgres_url: str
) -> None:
    clock = Clock()
    with two_replicas_sharing_minutes(tmp_path, postgres_url, clock) as (first, second):
        start = clock.now
        for _ in range(40):  # a fifth of the minute is kept from decoration
            first.send("chat.update", None, ok)
        with pytest.raises(Dropped), priority(Priority.DECORATION):
            second.send("chat.update", None, ok)
        for _ in range(10):  # what people wait for takes the rest at once
            second.send("chat.update", None, ok)
        assert clock.now == start


class Unreachable:
    """A table whose database does not answer."""

    def upsert(self, key: str, change: Any) -> Any:
        raise ConnectionError("database away")


def test_while_the_store_does_not_answer_each_replica_keeps_to_its_fair_share() -> None:
    clock = Clock()
    minutes = SharedMinutes(Unreachable(), wall_clock=clock)
    gate = SlackGate(
        shares=lambda: 2, minutes=minutes, clock=clock, wall_clock=clock, sleep=clock.sleep
    )
    start = clock.now
    for _ in range(25):
        gate.send("chat.update", None, ok)
    assert clock.now == start and not minutes.healthy()
    gate.send("chat.update", None, ok)  # half of Tier 3's 50: the 26th waits for the minute
    assert clock.now - start >= 60
