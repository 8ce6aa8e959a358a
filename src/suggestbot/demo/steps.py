"""The demo's steps, in order. Each acts as a person in Slack would and checks the outcome."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from suggestbot.demo.session import Session, StepFailed
from suggestbot.demo.stage import ALICE, CAROL
from suggestbot.demo.steps_results import feedback_and_usage, gallery_copy_text, workflow_step
from suggestbot.flows.digests.wave import run_wave
from suggestbot.sandbox.faults import RunTiming
from suggestbot.ui.messages import ENABLED, language_name

DEMO_TZ = "Europe/Berlin"
# The values of the sentence that confirms a digest.
_ADDED = ("id", "segment", "use_case", "channel", "time", "tz", "days", "next")


def _root_status(session: Session, channel: str, index: int = -1) -> str:
    messages = session.stage.emu.messages(channel)
    if not messages:
        return ""
    return str(messages[index].get("text", ""))


def _ready(
    session: Session, text: str, *, count: int | None = None, reader: str | None = None
) -> bool:
    """Whether a root says its ``count`` (else 1 to 3) variants are ready, as ``reader``
    (None: the channel) reads it."""
    says = session.stage.says_n
    counts = [count] if count else [1, 2, 3]
    return any(text == says(reader, "root.ready", count=n, user=ALICE) for n in counts)


def _prefix(sentence: str) -> str:
    """What a sentence says before its first value (``\x00`` stands for the values)."""
    return sentence.split("\x00", 1)[0]


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
        lambda: _ready(session, _root_status(session, stage.channel), count=3),
        what="three variants",
        progress=lambda: _root_status(session, stage.channel),
    )
    root = stage.emu.messages(stage.channel)[-1]
    replies = stage.emu.messages(stage.channel, thread_ts=root["ts"])[1:]
    if len(replies) != 4:  # the gallery of all three, then each in full
        raise StepFailed(f"expected a gallery and 3 variants in the thread, saw {len(replies)}")
    session.show(stage.emu.transcript(stage.channel, thread_ts=root["ts"]))
    session.record(
        "Alice's brief: three variants in a thread", channel=stage.channel, thread_of=root["ts"]
    )


def _thread(session: Session) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The brief's root (the first message in the channel) and its replies."""
    stage = session.stage
    root = stage.emu.messages(stage.channel)[0]
    return root, stage.emu.messages(stage.channel, thread_ts=root["ts"])[1:]


def _header(message: dict[str, Any]) -> str:
    blocks = message.get("blocks") or []
    return str(blocks[0]["text"]["text"]) if blocks and blocks[0]["type"] == "header" else ""


def _turn(session: Session, number: int) -> dict[str, Any] | None:
    _, replies = _thread(session)
    start = _prefix(session.stage.says(None, "turn.header", n=number, kind="\x00"))
    return next((m for m in replies if _header(m).startswith(start)), None)


def refine_by_reply(session: Session) -> None:
    stage = session.stage
    root, _ = _thread(session)
    text = "2: shorter, and end with a call to action"
    session.say(f"  alice replies in the thread: “{text}”")
    stage.slack.post_user_message(ALICE, stage.channel, text, thread_ts=root["ts"])
    turn = session.wait(
        lambda: _turn(session, 2),
        what="turn 2",
        progress=lambda: next(
            (
                str(m.get("text", ""))
                for m in reversed(_thread(session)[1])
                if m.get("bot_id") and not _header(m)
            ),
            "",
        ),
    )
    session.show_message(turn)
    if "call to action" not in str(turn).lower() and "shorter" not in str(turn).lower():
        raise StepFailed("turn 2 does not say which instruction it followed")


def regenerate_image(session: Session) -> None:
    stage = session.stage
    before = _turn(session, 2)
    if before is None:
        raise StepFailed("there is no turn 2 to work on")
    old = [b.get("image_url") for b in before["blocks"] if b["type"] == "image"]
    session.say("  alice presses [Refine…] on turn 2, asks for warmer colours and a new image")
    stage.slack.press_button(before, stage.says(None, "refine.button"), user_id=ALICE)
    session.wait(
        lambda: (stage.emu.current_view(ALICE) or {}).get("submit"), what="the refine modal"
    )
    stage.slack.submit_view(
        ALICE,
        {
            stage.says(ALICE, "refine.instruction"): "warmer colours",
            stage.says(ALICE, "refine.image"): stage.says(ALICE, "refine.image_regenerate"),
        },
    )
    turn = session.wait(lambda: _turn(session, 3), what="turn 3")
    new = [b.get("image_url") for b in turn["blocks"] if b["type"] == "image"]
    if not new or new == old:
        raise StepFailed("turn 3 does not show a new image")
    session.show_message(turn)
    root, _ = _thread(session)
    session.record(
        "Refined twice by reply and Refine…, with a new image",
        channel=stage.channel,
        thread_of=root["ts"],
    )


def rename_thread(session: Session) -> None:
    stage = session.stage
    root, _ = _thread(session)
    session.say("  alice presses [Rename thread] on the root and types “  Tent   launch  ”")
    stage.slack.press_button(root, stage.says(None, "thread.rename"), user_id=ALICE)
    session.wait(
        lambda: (stage.emu.current_view(ALICE) or {}).get("callback_id") == "rename_thread",
        what="the rename modal",
    )
    stage.slack.submit_view(ALICE, {stage.says(ALICE, "rename.label"): "  Tent   launch  "})
    session.wait(
        lambda: "*Tent launch*" in stage.emu.transcript(stage.channel),
        what="the stored name on the root",
    )
    session.show(stage.emu.ephemeral_transcript(ALICE).splitlines()[-1])
    session.record(
        "The thread, renamed", channel=stage.channel, thread_of=root["ts"], replies=False
    )


def share_inspiration(session: Session) -> None:
    stage = session.stage
    session.say("  carol types: /suggest inspire weekend spring")
    stage.slack.slash_command(CAROL, stage.channel, "inspire weekend spring")
    share = stage.says(CAROL, "inspire.share_button", n=2)
    answer = session.wait(
        lambda: next((e for e in reversed(stage.emu.ephemerals(CAROL)) if share in str(e)), None),
        what="the ready-made content",
    )
    before = len(stage.emu.messages(stage.channel))
    session.say("  carol presses [Share #2 to channel]")
    stage.slack.press_button(answer, share, user_id=CAROL)
    session.wait(lambda: len(stage.emu.messages(stage.channel)) > before, what="the shared post")
    shared = stage.emu.messages(stage.channel)[-1]
    session.show_message(shared)
    session.record(
        "Ready-made inspiration shared to the channel",
        channel=stage.channel,
        thread_of=shared["ts"],
    )


def digest_now(session: Session) -> None:
    stage = session.stage
    zone = ZoneInfo(DEMO_TZ)
    fire = (datetime.now(zone) + timedelta(minutes=2)).replace(second=0, microsecond=0)
    hhmm = fire.strftime("%H:%M")
    session.say(f"  alice types: /suggest digest add — daily at {hhmm} {DEMO_TZ}")
    stage.slack.slash_command(ALICE, stage.channel, "digest add")
    session.wait(
        lambda: (stage.emu.current_view(ALICE) or {}).get("callback_id") == "digest_add",
        what="the digest modal",
    )
    answer = stage.slack.submit_view(
        ALICE,
        {
            stage.says(ALICE, "brief.segment"): "Weekend Hikers",
            stage.says(ALICE, "brief.use_case"): "Spring Launch",
            stage.says(ALICE, "digest.time"): hhmm,
            stage.says(ALICE, "digest.tz"): DEMO_TZ,
            stage.says(ALICE, "digest.weekdays"): [
                stage.says(ALICE, f"digest.weekday.{day}") for day in range(7)
            ],
        },
    )
    if answer.errors:
        raise StepFailed(f"the digest modal refused: {answer.errors}")
    added = _prefix(stage.says(ALICE, "digest.added", **dict.fromkeys(_ADDED, "\x00")))
    session.wait(
        lambda: any(
            str(e.get("text", "")).startswith(added) and "Weekend Hikers" in str(e.get("text"))
            for e in stage.emu.ephemerals(ALICE)
        ),
        what="the confirmation",
    )
    session.say(f"  the clock reaches {hhmm}: the digest wave runs")
    assert stage.runtime is not None
    before = len(stage.emu.messages(stage.channel))
    report = run_wave(stage.runtime.deps, now=fire.astimezone(UTC))
    if report.posted != 1:
        raise StepFailed(f"the wave posted {report.posted} digests, expected 1")
    session.wait(lambda: len(stage.emu.messages(stage.channel)) > before, what="the digest")
    digest = stage.emu.messages(stage.channel)[-1]
    session.show_message(digest)
    session.record("The daily digest, fired", channel=stage.channel, thread_of=digest["ts"])


def failure_and_retry(session: Session) -> None:
    stage = session.stage
    stage.sandbox.faults.fail_next_runs = ["generation_failed"]
    session.say("  the service will fail the next run (generation_failed)")
    session.say("  alice types: /suggest brief “Email for our loyalty members about trail days”")
    stage.brief(ALICE, "Email for our loyalty members about trail days")
    failed = _prefix(stage.says(None, "root.failed", user=ALICE, reason="\x00"))
    session.wait(
        lambda: _root_status(session, stage.channel).startswith(failed),
        what="the failure",
        progress=lambda: _root_status(session, stage.channel),
    )
    root = stage.emu.messages(stage.channel)[-1]
    session.show_message(root)
    session.say("  alice presses [Retry]")
    stage.slack.press_button(root, stage.says(None, "button.retry"), user_id=ALICE)
    session.wait(
        lambda: _ready(session, _root_status(session, stage.channel), count=1),
        what="the retried brief",
        progress=lambda: _root_status(session, stage.channel),
    )
    session.show(stage.emu.transcript(stage.channel, thread_ts=root["ts"]))
    session.record(
        "A failed brief, retried with one click", channel=stage.channel, thread_of=root["ts"]
    )


@contextmanager
def _slow_runs(session: Session) -> Iterator[None]:
    """Runs that take a few seconds, so the status line can be seen while they work."""
    faults = session.stage.sandbox.faults
    before = faults.run_timing
    faults.run_timing = RunTiming(queued_s=40.0, running_s=60.0, precompute_s=2.0)
    try:
        yield
    finally:
        faults.run_timing = before


def _status_while_working(session: Session, channel: str, ts: str) -> dict[str, str]:
    """Wait for the thread's status line and show it; the scene's ``statuses``."""
    stage = session.stage
    shown = session.wait(
        lambda: stage.emu.thread_status(channel, ts),
        what="the status line",
    )
    session.say(f"    (under the thread) suggestbot {shown['status']}")
    session.say("      loading: " + " / ".join(shown["loading_messages"]))
    return {ts: str(shown["status"])}


def composer_brief(session: Session) -> None:
    stage = session.stage
    session.say("  alice opens suggestbot's Messages tab: it offers brief templates")
    stage.slack.open_messages_tab(ALICE)
    dm = stage.emu.dm_channel(ALICE)
    prompts = session.wait(lambda: stage.emu.suggested_prompts(dm), what="suggested prompts")
    session.say(f"    {prompts['title']}")
    for prompt in prompts["prompts"]:
        session.say(f"      [{prompt['title']}] → “{prompt['message']}”")
    chosen = prompts["prompts"][0]
    session.say(f"  alice clicks [{chosen['title']}]")
    before = {m["ts"] for m in stage.emu.messages(dm)}
    with _slow_runs(session):
        stage.slack.pick_suggested_prompt(ALICE, chosen["title"])
        root = session.wait(
            lambda: next(
                (m for m in stage.emu.messages(dm) if m["ts"] not in before and m.get("bot_id")),
                None,
            ),
            what="the brief's root in the Messages tab",
        )
        statuses = _status_while_working(session, dm, root["ts"])
        session.record(
            "The Messages tab: suggested prompts, and a brief at work with its status line",
            channel=dm,
            thread_of=root["ts"],
            statuses=statuses,
            prompts=[p["title"] for p in prompts["prompts"]],
        )
        session.wait(
            lambda: _ready(
                session,
                str(stage.emu.messages(dm, thread_ts=root["ts"])[0]["text"]),
                reader=ALICE,  # her direct message with the app: her language
            ),
            what="the variants",
        )
    if stage.emu.thread_status(dm, root["ts"]) is not None:
        raise StepFailed("the status line is still showing after the variants were posted")
    session.show(stage.emu.transcript(dm, thread_ts=root["ts"]))
    session.say("  (the root offers segment, use case and variant count as one-click selects)")
    session.record(
        "The brief's variants in the Messages tab; the status line is gone",
        channel=dm,
        thread_of=root["ts"],
    )


def message_shortcut(session: Session) -> None:
    stage = session.stage
    text = "Our autumn sale starts Friday: 20% off all tents and sleeping bags"
    session.say(f"  carol writes in #marketing: “{text}”")
    posted = stage.slack.post_user_message(CAROL, stage.channel, text)
    message = next(m for m in stage.emu.messages(stage.channel) if m["ts"] == posted.ts)
    session.say("  alice picks “Turn into a brief” from the message's menu")
    stage.slack.use_message_shortcut(message, "turn_into_brief", user_id=ALICE)
    view = session.wait(
        lambda: (v := stage.emu.current_view(ALICE)) and v.get("submit") and v,
        what="the brief modal, prefilled",
    )
    session.show(stage.emu.view_transcript(ALICE))
    if text not in str(view):
        raise StepFailed("the brief modal does not hold the message's text")
    segment = next(iter(stage.demo.primary.segments))
    use_case = next(iter(stage.demo.primary.use_cases))
    session.say(f"  alice picks {segment} · {use_case} and submits")
    with _slow_runs(session):
        stage.slack.submit_view(
            ALICE,
            {
                stage.says(ALICE, "brief.segment"): segment,
                stage.says(ALICE, "brief.use_case"): use_case,
            },
        )
        root = session.wait(
            lambda: next(
                (
                    m
                    for m in reversed(stage.emu.messages(stage.channel))
                    if m.get("bot_id") and any(b.get("block_id") == "source" for b in m["blocks"])
                ),
                None,
            ),
            what="the brief's root, linking back to the message",
        )
        _status_while_working(session, stage.channel, root["ts"])
        session.wait(
            lambda: _ready(
                session,
                str(stage.emu.messages(stage.channel, thread_ts=root["ts"])[0].get("text")),
                count=1,
            ),
            what="the variants",
        )
    session.show(stage.emu.transcript(stage.channel, thread_ts=root["ts"]))
    session.record(
        "Carol's message, turned into a brief (its root links back to it)",
        channel=stage.channel,
        thread_of=root["ts"],
    )


def channel_language(session: Session) -> None:
    """The stage's language becomes the workspace's: Alice, an admin, picks it on Home."""
    stage = session.stage
    wanted = stage.lang(ALICE)
    stage.slack.app_home_opened(ALICE)
    home = session.wait(lambda: stage.emu.home_view(ALICE), what="alice's Home")
    if wanted not in ENABLED:  # the pseudo-locale: no Home offers it
        session.say(f"  the workspace's language is set to {wanted} (no Home offers it)")
        stage.set_channel_language(wanted)
        return
    name = language_name(wanted, wanted)
    session.say(f"  alice opens Home and picks “{name}” as the language of channel posts")
    stage.slack.pick_option(home, name, user_id=ALICE)
    saved = stage.says(ALICE, "admin.language_saved", language=language_name(wanted, wanted))
    dm = stage.emu.dm_channel(ALICE)
    session.wait(
        lambda: any(m.get("text") == saved for m in stage.emu.messages(dm)),
        what="the admin's confirmation",
    )
    session.say(f"    suggestbot (DM): {saved}")
    stage.channel_lang = wanted


STEPS: list[tuple[str, Callable[[Session], Any]]] = [
    ("Alice connects her account", connect),
    ("Alice sends a brief with three variants", brief_three_variants),
    ("Alice copies variant 2's text from the gallery", gallery_copy_text),
    ("Alice and Carol rate variants; the Home tab shows the usage", feedback_and_usage),
    ("Alice refines variant 2 by replying in the thread", refine_by_reply),
    ("Alice asks for a new image", regenerate_image),
    ("Alice renames the thread", rename_thread),
    ("Carol shares ready-made inspiration to the channel", share_inspiration),
    ("A daily digest fires", digest_now),
    ("A brief fails, and Alice retries it", failure_and_retry),
    ("Alice writes a brief in the app's Messages tab, from a suggested prompt", composer_brief),
    ("Alice turns Carol's message into a brief", message_shortcut),
    ("A workflow runs the step “Generate content suggestions”", workflow_step),
]
