"""The demo's steps, in order. Each acts as a person in Slack would and checks the outcome."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from suggestbot.demo.session import Session, StepFailed
from suggestbot.stage import ALICE


def _root_status(session: Session, channel: str, index: int = -1) -> str:
    messages = session.stage.emu.messages(channel)
    if not messages:
        return ""
    return str(messages[index].get("text", ""))


def connect(session: Session) -> None:
    stage = session.stage
    session.say("  alice types: /suggest connect, pastes her personal token and submits")
    stage.connect(ALICE)
    session.show(stage.emu.view_transcript(ALICE) or "(modal closed: account connected)")


def brief_three_variants(session: Session) -> None:
    stage = session.stage
    text = "Instagram post for the spring launch of our ultralight tent, upbeat, for hikers"
    session.say(f"  alice types: /suggest brief and asks for 3 variants of “{text}”")
    answer = stage.brief(ALICE, text, variants=3)
    if answer.errors:
        raise StepFailed(f"the brief modal refused the brief: {answer.errors}")
    session.wait(
        lambda: "are ready" in _root_status(session, stage.channel),
        what="three variants",
        progress=lambda: _root_status(session, stage.channel),
    )
    root = stage.emu.messages(stage.channel)[-1]
    replies = stage.emu.messages(stage.channel, thread_ts=root["ts"])[1:]
    if len(replies) != 3:
        raise StepFailed(f"expected 3 variants in the thread, saw {len(replies)}")
    session.show(stage.emu.transcript(stage.channel, thread_ts=root["ts"]))
    session.record(
        "Alice's brief: three variants in a thread", channel=stage.channel, thread_of=root["ts"]
    )


def failure_and_retry(session: Session) -> None:
    stage = session.stage
    stage.sandbox.faults.fail_next_runs = ["generation_failed"]
    session.say("  the service will fail the next run (generation_failed)")
    session.say("  alice types: /suggest brief “Email for our loyalty members about trail days”")
    stage.brief(ALICE, "Email for our loyalty members about trail days")
    session.wait(
        lambda: "failed" in _root_status(session, stage.channel),
        what="the failure",
        progress=lambda: _root_status(session, stage.channel),
    )
    root = stage.emu.messages(stage.channel)[-1]
    session.show(stage.emu.transcript(stage.channel).split("\n\n")[-1])
    session.say("  alice presses [Retry]")
    stage.slack.press_button(root, "Retry", user_id=ALICE)
    session.wait(
        lambda: "are ready" in _root_status(session, stage.channel),
        what="the retried brief",
        progress=lambda: _root_status(session, stage.channel),
    )
    session.show(stage.emu.transcript(stage.channel, thread_ts=root["ts"]))
    session.record(
        "A failed brief, retried with one click", channel=stage.channel, thread_of=root["ts"]
    )


STEPS: list[tuple[str, Callable[[Session], Any]]] = [
    ("Alice connects her account", connect),
    ("Alice sends a brief with three variants", brief_three_variants),
    ("A brief fails, and Alice retries it", failure_and_retry),
]
