"""Each brief makes one run and each result is posted once: across doubled Slack deliveries
and across the app being killed at the worst moments and started again."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from suggestbot.demo.stage import ALICE, BRUNO, Stage, wait_for


class Killed(BaseException):
    """Stands for the process dying: not an Exception, so nothing in the app catches it."""


class KillAt:
    """A crash point that kills the app the first time the flow reaches ``point``."""

    def __init__(self, point: str) -> None:
        self.point = point
        self.fired = False

    def __call__(self, name: str) -> None:
        if name == self.point and not self.fired:
            self.fired = True
            raise Killed(name)


@contextmanager
def staged(tmp_path: Path, point: str) -> Iterator[tuple[Stage, KillAt]]:
    kill = KillAt(point)
    with Stage(data_dir=tmp_path / "data", crash_point=kill) as stage:
        yield stage, kill


def thread_of(stage: Stage) -> list[dict[str, Any]]:
    root = stage.emu.messages(stage.channel)[0]
    return stage.emu.messages(stage.channel, thread_ts=root["ts"])


def variant_numbers(stage: Stage) -> list[str]:
    """The thread's variants in order, after the gallery that shows several side by side
    (which must be there once)."""
    gallery, *variants = thread_of(stage)[1:]
    assert gallery["blocks"][0]["type"] == "carousel"
    return [m["blocks"][0]["text"]["text"].split(" · ")[0] for m in variants]


@pytest.mark.parametrize(
    "point",
    ["run_succeeded", "before_post_variant", "variant_posted_not_recorded", "after_create_run"],
)
def test_killed_then_restarted_posts_every_variant_exactly_once(tmp_path: Path, point: str) -> None:
    with staged(tmp_path, point) as (stage, kill):
        stage.connect(ALICE)
        stage.brief(ALICE, "Three variants, whatever happens", variants=3)
        wait_for(lambda: kill.fired, what=f"the app to die at {point}")
        stage.restart_app(graceful=False)
        wait_for(
            lambda: "are ready" in stage.emu.transcript(stage.channel),
            what="the result after the restart",
            detail=lambda: stage.emu.transcript(stage.channel),
        )
        assert variant_numbers(stage) == ["Variant 1 of 3", "Variant 2 of 3", "Variant 3 of 3"]
        assert len(stage.emu.messages(stage.channel)) == 1  # one root
        assert stage.sandbox.counters.get("POST /v1/generation-runs") == 1  # one run


def test_a_slash_command_delivered_twice_creates_one_run(stage: Stage, monkeypatch) -> None:
    stage.connect(ALICE)
    stage.brief(ALICE, "Remember my choices")  # remembers segment and use case
    wait_for(lambda: "are ready" in stage.emu.transcript(stage.channel), what="first result")
    sent: list[tuple[bytes, dict[str, Any]]] = []
    send = stage.slack.send

    def spy(body: bytes, **kwargs: Any) -> Any:
        sent.append((body, kwargs))
        return send(body, **kwargs)

    monkeypatch.setattr(stage.slack, "send", spy)
    stage.slack.slash_command(ALICE, stage.channel, "brief Straight to a run, sent twice")
    body, kwargs = sent[-1]
    again = send(body, **kwargs)  # the very same delivery once more
    assert again.status == 200
    wait_for(
        lambda: stage.emu.transcript(stage.channel).count("are ready") == 2,
        what="the second result",
    )
    assert stage.sandbox.counters.get("POST /v1/generation-runs") == 2  # not 3
    assert len(stage.emu.messages(stage.channel)) == 2


def test_a_modal_submission_delivered_twice_creates_one_run(stage: Stage, monkeypatch) -> None:
    stage.connect(ALICE)
    sent: list[tuple[bytes, dict[str, Any]]] = []
    send = stage.slack.send

    def spy(body: bytes, **kwargs: Any) -> Any:
        sent.append((body, kwargs))
        return send(body, **kwargs)

    monkeypatch.setattr(stage.slack, "send", spy)
    stage.brief(ALICE, "Submitted twice")
    body, kwargs = sent[-1]
    send(body, **kwargs)
    wait_for(lambda: "are ready" in stage.emu.transcript(stage.channel), what="the result")
    assert stage.sandbox.counters.get("POST /v1/generation-runs") == 1
    assert len(stage.emu.messages(stage.channel)) == 1


def test_a_quick_brief_after_a_restart_is_still_answered_in_the_workspaces_language(
    stage: Stage,
) -> None:
    stage.set_channel_language("de")  # an admin picked German for the channels
    stage.connect(BRUNO)
    stage.brief(BRUNO, "Herbstangebote für Trailrunner")  # remembers segment and use case
    wait_for(lambda: "sind fertig" in stage.emu.transcript(stage.channel), what="first result")
    stage.restart_app()  # the app no longer knows Bruno's language when the command comes
    stage.connect(ALICE)
    stage.brief(ALICE, "Autumn offers for trail runners")  # the catalog is known again
    wait_for(
        lambda: stage.emu.transcript(stage.channel).count("sind fertig") == 2,
        what="alice's result, in the channel's German",
    )

    # straight to a run: recorded before the ack, with no time to ask Slack for the language
    stage.slack.slash_command(BRUNO, stage.channel, "brief Noch einmal, direkt zum Lauf")

    wait_for(
        lambda: stage.emu.transcript(stage.channel).count("sind fertig") == 3,
        what="the second result, in German",
        detail=lambda: stage.emu.transcript(stage.channel),
    )
