"""SIGKILL at random moments while 100 briefs are in flight.

The app runs as its own process. Three people send briefs (through the modal, or as
``/suggest brief <text>`` with their remembered choices) while the process is killed with
SIGKILL at seeded random moments and started again on the same data directory and port.
Every brief Slack got an answer for must end with its result posted exactly once: one root
message, exactly the requested variants in its thread, each once, and exactly one run in the
service. A brief whose request died with the process (Slack would have shown the person an
error) may be missing, but never half-done or doubled.
"""

from __future__ import annotations

import contextlib
import random
import re
import threading
import time
from dataclasses import dataclass

import httpx
import pytest
from reliability_harness import (
    ProcessStage,
    StageFactory,
    brief_modal,
    brief_values,
    is_ready,
    poll,
    result_problems,
    roots_by_tag,
    runs_by_tag,
    wait_quiet,
)

from suggestbot.demo.stage import ALICE, BRUNO, CAROL
from suggestbot.sandbox.faults import RunTiming
from suggestbot.slackemu.errors import DriverError

SEED = 8_2024
BRIEFS = 100
MAX_ATTEMPTS = 140  # briefs tried in all, so that 100 get an answer despite the kills
KILLS = 7
KILLS_WHILE_SENDING = 4
USERS = (ALICE, BRUNO, CAROL)
SETTLE_TIMEOUT_S = 90.0
QUIET_GIVE_UP_S = 15.0
TAG = re.compile(r"\[b\d{3}\]")


@dataclass
class Brief:
    number: int
    user: str
    via: str  # "modal" or "command" (the slash command with remembered choices)
    variants: int
    # True: handed over (Slack had the app's 200 for the request that sends it); None: not
    # known to be (the app died before answering, and Slack showed the person an error)
    acked: bool | None = None

    @property
    def tag(self) -> str:
        return f"[b{self.number:03d}]"

    @property
    def text(self) -> str:
        topic = "Instagram post" if self.number % 2 else "Email"
        return f"{self.tag} {topic} for the autumn trail days, take {self.number}"


def clear_modals(stage: ProcessStage, user: str) -> None:
    if stage.emu.current_view(user) is not None:
        with contextlib.suppress(httpx.HTTPError, DriverError):
            stage.slack.close_view(user, clear=True)


class People:
    """The three people sending briefs, one thread each, until 100 briefs got an answer."""

    def __init__(self, stage: ProcessStage, rng: random.Random) -> None:
        self.stage = stage
        self.briefs: list[Brief] = []
        self._rng = rng
        self._lock = threading.Lock()
        self._next = 0
        self._catalogue_loaded: set[int] = set()  # app starts that opened a brief modal
        self.errors: list[BaseException] = []

    def acked(self) -> int:
        with self._lock:
            return sum(1 for b in self.briefs if b.acked)

    def _new_brief(self, user: str, remembered: int | None) -> Brief | None:
        with self._lock:
            if self._next >= MAX_ATTEMPTS or sum(1 for b in self.briefs if b.acked) >= BRIEFS:
                return None
            self._next += 1
            via = "command" if remembered is not None and self._rng.random() < 0.6 else "modal"
            variants = remembered if via == "command" else self._rng.randint(1, 3)
            brief = Brief(number=self._next, user=user, via=via, variants=variants or 1)
            self.briefs.append(brief)
            return brief

    def run(self, user: str) -> None:
        try:
            self._send_all(user)
        except BaseException as exc:  # reported by the test, not lost in a thread
            self.errors.append(exc)

    def _send_all(self, user: str) -> None:
        stage = self.stage
        remembered: int | None = None  # the variant count the app remembers for this user
        while (brief := self._new_brief(user, remembered)) is not None:
            if not stage.wait_until_up(60):
                raise TimeoutError("the app did not come back")
            clear_modals(stage, user)
            if brief.via == "command":
                self._by_command(brief)
            else:
                self._by_modal(brief)
            if brief.via == "modal":
                # An unanswered submission may or may not have saved the choices.
                remembered = brief.variants if brief.acked else None
            if brief.acked:
                # One brief at a time per person, as people do (and the choices are saved).
                poll(lambda b=brief: roots_by_tag(stage, TAG).get(b.tag), timeout=30)

    def _by_command(self, brief: Brief) -> None:
        stage = self.stage
        start = stage.starts
        try:
            answer = stage.slack.slash_command(brief.user, stage.channel, f"brief {brief.text}")
        except httpx.HTTPError:
            brief.acked = None
            return
        # The command hands the brief over only when the app can send it at once, which it
        # can once it knows the catalogue (loaded with the first modal since it started);
        # otherwise it opens the modal, prefilled, and the submission hands it over.
        quick = start == stage.starts and self._knows_catalogue(start)
        brief.acked = (answer.status == 200) if quick else None
        seen = poll(
            lambda: roots_by_tag(stage, TAG).get(brief.tag) or brief_modal(stage, brief.user),
            timeout=30,
        )
        if isinstance(seen, dict):
            if start == stage.starts:
                with self._lock:
                    self._catalogue_loaded.add(start)
            brief.via = "modal"
            self._submit(brief)

    def _by_modal(self, brief: Brief) -> None:
        stage = self.stage
        for _ in range(5):
            start = stage.starts
            try:
                stage.slack.slash_command(brief.user, stage.channel, "brief")
            except httpx.HTTPError:
                stage.wait_until_up(60)
                continue
            if poll(lambda: brief_modal(stage, brief.user), timeout=10):
                if start == stage.starts:
                    with self._lock:
                        self._catalogue_loaded.add(start)
                self._submit(brief)
                return
        raise TimeoutError(f"the brief modal never opened for {brief.tag}")

    def _knows_catalogue(self, start: int) -> bool:
        with self._lock:
            return start in self._catalogue_loaded

    def _submit(self, brief: Brief) -> None:
        stage = self.stage
        values = brief_values(stage, brief.user, brief.text, brief.variants)
        try:
            answer = stage.slack.submit_view(brief.user, values)
        except httpx.HTTPError:
            brief.acked = None
            clear_modals(stage, brief.user)
            return
        brief.acked = answer.response.status == 200 and not answer.errors


class Killer:
    """Kills the app at seeded random moments and starts it again after a random pause: some
    kills while briefs are being sent, the rest once all are sent (runs queued, running,
    results being posted)."""

    def __init__(self, stage: ProcessStage, rng: random.Random) -> None:
        self.stage = stage
        self.rng = rng
        self.sent = threading.Event()
        self.moments: list[tuple[float, bool]] = []  # (when, all briefs sent by then)
        self.errors: list[BaseException] = []

    def run(self) -> None:
        try:
            for _ in range(KILLS_WHILE_SENDING):
                # Sometimes right after a start (during recovery), sometimes much later.
                if self.sent.wait(self.rng.uniform(0.2, 4.0)):
                    break
                self._kill_and_start()
            if not self.sent.wait(300):
                raise TimeoutError("the briefs were never all sent")
            while len(self.moments) < KILLS:
                time.sleep(self.rng.uniform(0.1, 2.0))
                self._kill_and_start()
        except BaseException as exc:
            self.errors.append(exc)

    def _kill_and_start(self) -> None:
        self.moments.append((time.monotonic(), self.sent.is_set()))
        self.stage.kill_app()
        time.sleep(self.rng.uniform(0.0, 1.0))
        self.stage.start_app()


def unsettled(stage: ProcessStage, briefs: list[Brief]) -> list[str]:
    roots = roots_by_tag(stage, TAG)
    waiting = []
    for brief in briefs:
        found = roots.get(brief.tag, [])
        if brief.acked and not found:
            waiting.append(f"{brief.tag} ({brief.via}) was answered but has no root")
        elif found and not all(
            is_ready(root, user=brief.user, variants=brief.variants) for root in found
        ):
            updates = [
                str(c.args.get("text"))[:30]
                for c in stage.emu.calls("chat.update")
                if c.args.get("ts") in {root["ts"] for root in found}
            ]
            waiting.append(f"{brief.tag}: {len(found)} root(s), updated {updates}")
    return waiting


@pytest.mark.timeout(420)
def test_sigkill_at_random_moments_loses_and_doubles_nothing(
    process_stage: StageFactory,
) -> None:
    stage = process_stage(
        "crash",
        time_factor=0.05,
        poll_scale=0.05,
        # 1 s queued and 2 s running: every brief is in flight across at least one kill.
        run_timing=RunTiming(queued_s=20.0, running_s=40.0),
        # A hundred briefs into one channel within two minutes is ten times what Slack's one
        # post a second lets through: this test of exactly-once needs unlimited calls.
        slack_gate=False,
    )
    stage.connect_all(*USERS)
    rng = random.Random(SEED)
    people = People(stage, random.Random(rng.random()))
    killer = Killer(stage, random.Random(rng.random()))
    senders = [threading.Thread(target=people.run, args=(user,), name=user) for user in USERS]
    killing = threading.Thread(target=killer.run, name="killer")
    for thread in [*senders, killing]:
        thread.start()
    for thread in senders:
        thread.join(timeout=300)
    killer.sent.set()
    killing.join(timeout=300)
    assert not any(t.is_alive() for t in [*senders, killing]), "a sender or the killer hung"
    assert people.errors == [] and killer.errors == []
    assert stage.kills >= 5 and stage.alive
    # Kills landed both while briefs were being sent and while all of them were in flight.
    assert {after_sending for _, after_sending in killer.moments} == {False, True}

    briefs = people.briefs
    assert people.acked() >= BRIEFS, [b for b in briefs if b.acked is False]
    deadline = time.monotonic() + SETTLE_TIMEOUT_S
    calls, changed = -1, time.monotonic()
    while (waiting := unsettled(stage, briefs)) and time.monotonic() < deadline:
        if len(stage.emu.calls()) != calls:
            calls, changed = len(stage.emu.calls()), time.monotonic()
        elif time.monotonic() - changed > QUIET_GIVE_UP_S:
            break  # nothing is moving any more: what is unfinished stays so
        time.sleep(0.2)
    assert waiting == [], f"{len(waiting)} briefs unfinished, e.g. {waiting[:5]}"
    # Nothing more arrives later (a late duplicate would show here).
    wait_quiet(lambda: len(stage.emu.calls("chat.postMessage")), settle_s=2.0, timeout=30)

    roots, runs = roots_by_tag(stage, TAG), runs_by_tag(stage, TAG)
    problems: list[str] = []
    for brief in briefs:
        found = roots.get(brief.tag, [])
        expected = 1 if brief.acked else len(found)  # unanswered: all or nothing
        if len(found) != expected or len(found) > 1:
            problems.append(f"{brief.tag} ({brief.via}, acked={brief.acked}): {len(found)} roots")
            continue
        if runs.get(brief.tag, 0) != len(found):
            problems.append(f"{brief.tag}: {runs.get(brief.tag, 0)} runs, {len(found)} roots")
        if not found:
            continue
        problems += [
            f"{brief.tag}: {p}"
            for p in result_problems(stage, found[0], user=brief.user, variants=brief.variants)
        ]
    assert problems == []
    # Every root in the channel belongs to one of the briefs (no stray or doubled roots).
    assert sum(len(found) for found in roots.values()) == len(stage.emu.messages(stage.channel))
    assert len(stage.emu.messages(stage.channel)) == sum(1 for b in briefs if roots.get(b.tag))
