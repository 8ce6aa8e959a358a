"""Two replicas on one PostgreSQL: a 429 one of them met pauses the method for the other too,
and each takes a fair share of the workspace's minute."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web import SlackResponse

from suggestbot.slack import Priority, SlackGate, priority
from suggestbot.slack.gate import SharedPauses
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
