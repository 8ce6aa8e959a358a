"""SIGKILL straight after the ack of every kind of interaction that starts work.

Slack never resends a thread reply, a modal submission or a button press it had the app's 200
for. The app runs as its own process, started with its work frozen at the named point right
after the ack of a recorded interaction (``SUGGESTBOT_FREEZE_AT=interaction_acked``); people
then reply in threads, submit the connect and the Refine… modals and press Retry, all at once,
each answered 200 by the app, and the process is SIGKILLed with all of them in flight (checked:
none of their work had started). After the restart each must have happened exactly once: one
refinement run and one status reply per reply or submission, every newcomer linked and told
so once, every retried brief sent again once and ready. Twenty rounds, each one SIGKILL with
two of each kind in flight: every kind is killed 20 times (40 interactions of each kind).

Also here: a quick brief (``/suggest brief <text>`` with remembered choices) right after a
restart is sent at once, exactly as before the restart, not turned into the brief modal.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest
from reliability_harness import (
    ProcessStage,
    StageFactory,
    buttons_of,
    database_snapshot,
    is_ready,
    metadata_of,
    poll,
    requests_in_store,
    roots_by_tag,
    runs_by_tag,
    send_brief_by_modal,
    wait_for,
    wait_quiet,
)

from suggestbot.slackemu.results import AppResponse
from suggestbot.ui.messages import t, tn

ROUNDS = 20  # one SIGKILL a round, with every kind in flight: 20 kills per kind
PER_KIND = 2  # of each kind in flight at every kill: ROUNDS * PER_KIND interactions per kind
WRITERS = [f"U0WRITER{n}" for n in range(PER_KIND)]  # each with a brief thread of their own
NEWCOMERS = [f"U0NEW{n:02d}" for n in range(ROUNDS * PER_KIND)]
FREEZE = "interaction_acked"
SETTLE_TIMEOUT_S = 90.0
TAG = re.compile(r"\[[a-z]\d{3}\]")  # see tag(): rounds and slots fit three digits
CONNECTED = ("account is connected", "Konto ist verknüpft")


@dataclass
class Sent:
    kind: str  # "thread reply", "connect", "retry", "refine modal"
    key: str  # the tag it carries, or the newcomer who connects
    acked: bool = False
    ack_s: float = 0.0  # how long the app took to answer (reported, not asserted)


def ready(root: dict[str, Any], *, user: str) -> bool:
    """The root of a one-variant brief says it is ready (the people here read English)."""
    return root.get("text") == tn("root.ready", "en", user=user, count=1)


def tag(kind: str, round_no: int, n: int) -> str:
    return f"[{kind}{round_no:02d}{n}]"


def add_people(stage: ProcessStage) -> None:
    for user in [*WRITERS, *NEWCOMERS]:
        stage.emu.add_user(user, user.lower(), locale="en-US")
        stage.emu.join(stage.channel, user)


def thread_of(stage: ProcessStage, writer: str) -> str:
    """``writer``'s brief (one email variant), ready; returns its root's ``ts``."""
    text = f"[w{WRITERS.index(writer):03d}] Email for the autumn trail days"
    stage.brief(writer, text, variants=1)
    root = wait_for(
        lambda: next(
            (r for r in roots_by_tag(stage, TAG).get(text[:6], []) if ready(r, user=writer)),
            None,
        ),
        what=f"{writer}'s brief thread",
    )
    return str(root["ts"])


def failed_briefs(stage: ProcessStage) -> dict[str, tuple[str, dict[str, Any]]]:
    """One failed brief (Retry offered) per Retry press to come: tag → (author, root)."""
    count = ROUNDS * PER_KIND
    stage.sandbox.faults.fail_next_runs = ["generation_failed"] * count
    tags = {}
    for n in range(count):
        author = WRITERS[n % len(WRITERS)]
        tags[f"[f{n:03d}]"] = author
        # Quick briefs: the writers' choices are remembered from their first brief.
        answer = stage.slack.slash_command(author, stage.channel, f"brief [f{n:03d}] Email {n}")
        assert answer.status == 200

    def all_failed() -> dict[str, tuple[str, dict[str, Any]]] | None:
        roots = roots_by_tag(stage, TAG)
        found = {}
        for key, author in tags.items():
            root = (roots.get(key) or [{}])[0]
            if t("button.retry", "en") not in buttons_of(root):
                return None
            found[key] = (author, root)
        return found

    return wait_for(all_failed, timeout=60, what="the briefs to fail with Retry")


def open_connect_modal(stage: ProcessStage, user: str) -> None:
    stage.slack.slash_command(user, stage.channel, "connect")
    wait_for(lambda: stage.emu.current_view(user) is not None, what=f"{user}'s connect modal")


def open_refine_modal(stage: ProcessStage, writer: str, thread_ts: str) -> None:
    variant = stage.emu.messages(stage.channel, thread_ts=thread_ts)[1]
    stage.slack.press_button(variant, t("refine.button", "en"), user_id=writer)
    wait_for(
        lambda: (stage.emu.current_view(writer) or {}).get("callback_id") == "refine",
        what=f"{writer}'s Refine… modal",
    )


def refinement_runs(stage: ProcessStage) -> dict[str, int]:
    """Refinement runs the service holds per tag quoted in their instruction."""
    state = stage.sandbox.env.state
    with state.lock:
        texts = [str(run.request.get("instruction") or "") for run in state.runs.values()]
    counts: dict[str, int] = {}
    for text in texts:
        for found in TAG.findall(text):
            counts[found] = counts.get(found, 0) + 1
    return counts


def status_replies(stage: ProcessStage, threads: dict[str, str]) -> dict[str, int]:
    """The app's status replies in the writers' threads per tag of the refinement they show."""
    instructions = {
        r["id"]: r["body"].get("instruction", "")
        for r in requests_in_store(stage)
        if r.get("kind") == "refinement"
    }
    counts: dict[str, int] = {}
    for ts in threads.values():
        for message in stage.emu.messages(stage.channel, thread_ts=ts)[1:]:
            meta = metadata_of(message)
            if meta.get("role") != "root":
                continue
            for found in TAG.findall(instructions.get(meta.get("request_id"), "")):
                counts[found] = counts.get(found, 0) + 1
    return counts


def linked_users(stage: ProcessStage) -> set[str]:
    users = database_snapshot(stage.data_dir).get("users", {})
    return {json.loads(v)["user_id"] for v in users.values() if json.loads(v)["state"] == "linked"}


def connected_notes(stage: ProcessStage, user: str) -> int:
    return sum(
        1
        for line in stage.emu.ephemeral_transcript(user).splitlines()
        if any(word in line for word in CONNECTED)
    )


def fire_round(
    stage: ProcessStage,
    round_no: int,
    threads: dict[str, str],
    failed: dict[str, tuple[str, dict[str, Any]]],
) -> list[Sent]:
    """``PER_KIND`` of each kind at once against the frozen app; each answered 200 before the
    kill."""
    newcomers = NEWCOMERS[round_no * PER_KIND : (round_no + 1) * PER_KIND]
    retries = list(failed.items())[round_no * PER_KIND : (round_no + 1) * PER_KIND]
    for user in newcomers:
        open_connect_modal(stage, user)
    for writer in WRITERS:
        open_refine_modal(stage, writer, threads[writer])
    label = t("refine.instruction", "en")
    sends: list[tuple[Sent, Callable[[], tuple[bool, float]]]] = []
    for n, writer in enumerate(WRITERS):
        reply = tag("t", round_no, n)
        sends.append(
            (
                Sent("thread reply", reply),
                lambda w=writer, r=reply: _answered(
                    stage.slack.post_user_message(
                        w, stage.channel, f"{r} shorter, please", thread_ts=threads[w]
                    ).delivery
                ),
            )
        )
        modal = tag("m", round_no, n)
        sends.append(
            (
                Sent("refine modal", modal),
                lambda w=writer, m=modal: _submitted(stage, w, {label: f"{m} warmer tone"}),
            )
        )
    for user in newcomers:
        token = stage.user_token()
        sends.append(
            (
                Sent("connect", user),
                lambda u=user, tok=token: _submitted(stage, u, {_token_label(stage, u): tok}),
            )
        )
    for key, (author, root) in retries:
        sends.append(
            (
                Sent("retry", key),
                lambda a=author, r=root: _answered(
                    stage.slack.press_button(r, t("button.retry", "en"), user_id=a)
                ),
            )
        )
    with ThreadPoolExecutor(max_workers=len(sends)) as pool:
        answers = list(pool.map(lambda pair: pair[1](), sends))
    for (sent, _), (ok, elapsed) in zip(sends, answers, strict=True):
        sent.acked, sent.ack_s = ok, elapsed
    return [sent for sent, _ in sends]


def _token_label(stage: ProcessStage, user: str) -> str:
    view = stage.emu.current_view(user) or {}
    return str(next(b["label"]["text"] for b in view["blocks"] if b["type"] == "input"))


def _submitted(stage: ProcessStage, user: str, values: dict[str, str]) -> tuple[bool, float]:
    answer = stage.slack.submit_view(user, values)
    return answer.response.status == 200 and not answer.errors, answer.response.elapsed_s


def _answered(response: AppResponse | None) -> tuple[bool, float]:
    if response is None:
        return False, 0.0
    return response.status == 200, response.elapsed_s


def nothing_done_yet(stage: ProcessStage, sent: list[Sent]) -> list[str]:
    """Work of ``sent`` that happened although the app was frozen right after the acks.

    A connect submission's token is checked (and the account linked) before its ack, so that a
    refused token can be shown in the modal; what comes after the ack is telling the person."""
    runs = refinement_runs(stage)
    done = [s.key for s in sent if s.kind in ("thread reply", "refine modal") and s.key in runs]
    done += [s.key for s in sent if s.kind == "connect" and connected_notes(stage, s.key)]
    return done


@pytest.mark.timeout(480)
def test_sigkill_straight_after_the_ack_loses_and_doubles_nothing(
    process_stage: StageFactory,
) -> None:
    # Forty briefs failed at once in one channel, then forty interactions of each kind in
    # twenty rounds: their roots' progress and outcomes are more chat.update calls than Slack's
    # minute (Tier 3, 50) lets through in this test's waits. It tests exactly-once through
    # kills, not Slack's budget (tests/slack, bench/), so it needs unlimited calls.
    stage = process_stage("acked", slack_gate=False)
    add_people(stage)
    stage.connect_all(*WRITERS)
    threads = {writer: thread_of(stage, writer) for writer in WRITERS}
    failed = failed_briefs(stage)
    base_runs = runs_by_tag(stage, TAG)
    assert all(base_runs.get(key) == 1 for key in failed)

    sent: list[Sent] = []
    for round_no in range(ROUNDS):
        stage.stop_app()
        stage.freeze_at = FREEZE
        stage.start_app()
        this_round = fire_round(stage, round_no, threads, failed)
        assert all(s.acked for s in this_round), [s for s in this_round if not s.acked]
        # The kill lands straight after the acks: none of their work has begun.
        assert nothing_done_yet(stage, this_round) == []
        stage.kill_app()
        stage.freeze_at = None
        stage.start_app()
        sent += this_round

    def outcome() -> dict[str, dict[str, int]]:
        runs, refinements = refinement_runs(stage), runs_by_tag(stage, TAG)
        replies, linked = status_replies(stage, threads), linked_users(stage)
        roots = roots_by_tag(stage, TAG)
        seen: dict[str, dict[str, int]] = {}
        for s in sent:
            if s.kind in ("thread reply", "refine modal"):
                count = min(runs.get(s.key, 0), replies.get(s.key, 0))
                extra = max(runs.get(s.key, 0), replies.get(s.key, 0))
            elif s.kind == "connect":
                notes = connected_notes(stage, s.key)
                count = notes if s.key in linked else 0
                extra = notes
            else:  # retry: the failed run, then exactly one more, and the root says ready
                author, _ = failed[s.key]
                root = (roots.get(s.key) or [{}])[0]
                again = refinements.get(s.key, 0) - 1
                count = again if ready(root, user=author) else 0
                extra = again
            seen[s.kind + " " + s.key] = {"done": count, "times": extra}
        return seen

    poll(lambda: all(v["done"] >= 1 for v in outcome().values()), timeout=SETTLE_TIMEOUT_S)
    # Nothing more arrives later (a late duplicate would show here).
    wait_quiet(lambda: len(stage.emu.calls()), settle_s=2.0, timeout=60, what="Slack calls")
    final = outcome()
    figures: dict[str, dict[str, int]] = {}
    for s in sent:
        counts = final[s.kind + " " + s.key]
        row = figures.setdefault(s.kind, {"sent": 0, "lost": 0, "duplicated": 0})
        row["sent"] += 1
        row["lost"] += counts["done"] == 0
        row["duplicated"] += counts["times"] > 1
    print("\nSIGKILL straight after the ack:", json.dumps(figures, indent=1))
    print(f"slowest ack of the {len(sent)} interactions: {max(s.ack_s for s in sent):.3f} s")
    assert figures == {
        kind: {"sent": ROUNDS * PER_KIND, "lost": 0, "duplicated": 0}
        for kind in ("thread reply", "refine modal", "connect", "retry")
    }, {k: v for k, v in final.items() if v != {"done": 1, "times": 1}}
    assert stage.kills == ROUNDS


def test_a_quick_brief_right_after_a_restart_is_sent_as_before(
    process_stage: StageFactory,
) -> None:
    stage = process_stage("quick")
    stage.connect("U0ALICE")
    # The first brief goes through the modal: it loads the catalogue and saves the choices.
    send_brief_by_modal(stage, "U0ALICE", "[q000] Email for the spring launch", variants=2)
    wait_for(lambda: roots_by_tag(stage, TAG).get("[q000]"), what="the first brief")

    def quick(key: str) -> None:
        opened = len(stage.emu.calls("views.open"))
        answer = stage.slack.slash_command(
            "U0ALICE", stage.channel, f"brief {key} Email for the summer fair"
        )
        assert answer.status == 200
        root = wait_for(
            lambda: next(
                (
                    r
                    for r in roots_by_tag(stage, TAG).get(key, [])
                    if is_ready(r, user="U0ALICE", variants=2)
                ),
                None,
            ),
            what=f"the result of {key}",
        )
        assert root is not None
        assert len(stage.emu.calls("views.open")) == opened, "the brief modal opened instead"

    quick("[q001]")  # before any restart
    stage.kill_app()
    stage.start_app()
    quick("[q002]")  # the first thing after a crash
    stage.restart_app()
    quick("[q003]")  # and after a clean restart
    assert runs_by_tag(stage, TAG) == {f"[q00{n}]": 1 for n in range(4)}
