"""Interactions that start work survive the app dying after their ack: carried out once at the
next start, whether the work had not begun or was half done; what was kept is encrypted."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from at_rest import at_rest

from suggestbot.demo.stage import ALICE, Stage, wait_for
from suggestbot.sandbox.faults import RunTiming


class Killed(BaseException):
    """Stands for the process dying: not an Exception, so nothing in the app catches it."""


class KillAt:
    """Kills the app the first time the flow reaches ``point`` once armed."""

    def __init__(self) -> None:
        self.point: str | None = None
        self.fired = False

    def __call__(self, name: str) -> None:
        if name == self.point and not self.fired:
            self.fired = True
            raise Killed(name)


@pytest.fixture
def staged(tmp_path: Path) -> Iterator[tuple[Stage, KillAt]]:
    kill = KillAt()
    timing = RunTiming(queued_s=2.0, running_s=5.0, precompute_s=2.0)
    with Stage(data_dir=tmp_path / "data", crash_point=kill, run_timing=timing) as stage:
        yield stage, kill


def brief_thread(stage: Stage) -> str:
    stage.connect(ALICE)
    stage.brief(ALICE, "Email for the autumn trail days")
    wait_for(lambda: "are ready" in stage.emu.transcript(stage.channel), what="the brief")
    return str(stage.emu.messages(stage.channel)[0]["ts"])


def refinement_runs(stage: Stage, instruction: str) -> int:
    state = stage.sandbox.env.state
    with state.lock:
        return sum(1 for r in state.runs.values() if r.request.get("instruction") == instruction)


def status_replies(stage: Stage, ts: str) -> int:
    thread = stage.emu.messages(stage.channel, thread_ts=ts)[1:]
    roles = [((m.get("metadata") or {}).get("event_payload") or {}).get("role") for m in thread]
    return roles.count("root")


@pytest.mark.parametrize("point", ["interaction_acked", "before_create_run"])
def test_a_thread_reply_is_refined_once_after_a_crash(
    staged: tuple[Stage, KillAt], point: str
) -> None:
    stage, kill = staged
    ts = brief_thread(stage)
    kill.point = point
    posted = stage.slack.post_user_message(ALICE, stage.channel, "shorter, please", thread_ts=ts)
    assert posted.delivery is not None and posted.delivery.status == 200
    wait_for(lambda: kill.fired, what=f"the app to die at {point}")
    stage.restart_app(graceful=False)
    wait_for(
        lambda: refinement_runs(stage, "shorter, please") == 1 and status_replies(stage, ts) == 1,
        what="the refinement after the restart",
        detail=lambda: stage.emu.transcript(stage.channel, thread_ts=ts),
    )
    assert stage.runtime is not None
    wait_for(lambda: stage.runtime.deps.deliveries.unfinished() == [], what="the work to end")
    # Nothing more comes: one run and one status reply for the one reply.
    assert refinement_runs(stage, "shorter, please") == 1
    assert status_replies(stage, ts) == 1


def brief_runs(stage: Stage, text: str) -> int:
    state = stage.sandbox.env.state
    with state.lock:
        return sum(1 for r in state.runs.values() if r.request.get("steering_text") == text)


@pytest.mark.parametrize("point", ["interaction_acked", "before_create_run"])
def test_a_brief_written_in_the_messages_tab_is_sent_once_after_a_crash(
    staged: tuple[Stage, KillAt], point: str
) -> None:
    stage, kill = staged
    stage.connect(ALICE)
    kill.point = point
    text = "Teaser for the autumn trail days"
    posted = stage.slack.message_in_messages_tab(ALICE, text)
    assert posted.delivery is not None and posted.delivery.status == 200
    wait_for(lambda: kill.fired, what=f"the app to die at {point}")
    stage.restart_app(graceful=False)
    dm = stage.emu.dm_channel(ALICE)
    wait_for(
        lambda: "are ready" in stage.emu.transcript(dm, thread_ts=None),
        what="the brief after the restart",
        detail=lambda: stage.emu.transcript(dm),
    )
    assert stage.runtime is not None
    wait_for(lambda: stage.runtime.deps.deliveries.unfinished() == [], what="the work to end")
    # One run and one root for the one message.
    assert brief_runs(stage, text) == 1
    roots = [m for m in stage.emu.messages(dm) if text in str(m["blocks"]) and m.get("bot_id")]
    assert len(roots) == 1


def test_a_connect_submission_links_after_a_crash_and_keeps_no_clear_token(
    staged: tuple[Stage, KillAt],
) -> None:
    stage, kill = staged
    kill.point = "interaction_acked"
    token = stage.user_token()
    stage.slack.slash_command(ALICE, stage.channel, "connect")
    wait_for(lambda: stage.emu.current_view(ALICE) is not None, what="the connect modal")
    view = stage.emu.current_view(ALICE) or {}
    label = next(b["label"]["text"] for b in view["blocks"] if b["type"] == "input")
    answer = stage.slack.submit_view(ALICE, {label: token})
    assert answer.response.status == 200 and answer.errors == {}
    wait_for(lambda: kill.fired, what="the app to die straight after the ack")
    # The submission is kept until its work is done, sealed: the token is not in the file.
    assert token.encode() not in at_rest(stage.data_dir / "suggestbot.sqlite")
    stage.restart_app(graceful=False)
    wait_for(
        lambda: "account is connected" in stage.emu.ephemeral_transcript(ALICE),
        what="the link after the restart",
    )
    assert stage.emu.ephemeral_transcript(ALICE).count("account is connected") == 1


def test_a_submission_with_errors_still_gets_them_and_starts_nothing(
    staged: tuple[Stage, KillAt],
) -> None:
    stage, _ = staged
    stage.slack.slash_command(ALICE, stage.channel, "connect")
    wait_for(lambda: stage.emu.current_view(ALICE) is not None, what="the connect modal")
    view = stage.emu.current_view(ALICE) or {}
    label = next(b["label"]["text"] for b in view["blocks"] if b["type"] == "input")
    answer = stage.slack.submit_view(ALICE, {label: "   "})
    assert list(answer.errors.values()) != []
    stage.restart_app(graceful=False)  # the kept submission is checked again, and dropped
    assert stage.runtime is not None
    wait_for(lambda: stage.runtime.deps.deliveries.unfinished() == [], what="the replay")
    assert stage.emu.ephemerals(ALICE) == []
