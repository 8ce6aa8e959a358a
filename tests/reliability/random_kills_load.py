"""The random-kill load run through replicas on one PostgreSQL, and the checks that
nothing acknowledged was lost or done twice: ``test_reliability_random_kills`` runs it on
replicas that share one clock, ``test_reliability_clock_skew`` on replicas whose clocks
disagree.

Three ``suggestbot serve`` processes sit behind the loopback round-robin balancer (see
``cluster_harness``), on the sandbox and the Slack emulator. While :data:`BRIEFS` quick briefs,
:data:`REPLIES` replies in their threads (each a refinement) and :data:`WAVES` digest waves (on
the wall clock's next minutes: the replicas run their own once-a-minute wave) go through, a
replica picked at random is SIGKILLed every few seconds and started again.

What Slack does, the test does: a slash command is never retried (one whose connection was cut
after it was sent is ``dispatch_failed`` for the person; the balancer only retries a refused
connection, as haproxy does), an event is retried up to three times until it is acknowledged.
Then, counted in the emulator's messages and the sandbox's records:

- every acknowledged brief has one root, ready, with each variant once, and one run; a brief
  that failed to dispatch is counted apart, and if any replica recorded it, it is complete too;
- every reply Slack got acknowledged made exactly one refinement run and one turn in its thread;
- every digest due was posted exactly once in its channel that day, and every subscription is
  still there;
- the service exchanged its machine token at most once per tenant per replica start (each
  start has its own cache) per token lifetime.

The random choices come from one seed, printed (``-s``) and named in every failure; set
``SUGGESTBOT_CHAOS_SEED`` to replay one.
"""

from __future__ import annotations

import json
import os
import random
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from cluster_harness import ClusterStage, Kill, RandomKills, RetryingDriver
from reliability_harness import (
    generic_errors,
    is_ready,
    leaks_to_slack,
    metadata_of,
    roots_by_tag,
    runs_by_tag,
    send_brief_by_modal,
    wait_for,
    wait_quiet,
)

from suggestbot.contentapi.auth import MIN_MARGIN_S
from suggestbot.demo.stage import ALICE, BRUNO
from suggestbot.sandbox.auth import TOKEN_LIFETIME
from suggestbot.slackemu.results import AppResponse
from suggestbot.store.postgres import PostgresStore
from suggestbot.store.records import WEEKDAYS, Digest, Records

SEED = int(os.environ.get("SUGGESTBOT_CHAOS_SEED") or random.SystemRandom().randrange(10**6))
BRIEFS = 200
REPLIES = 100
WAVES = 3
CHANNELS_PER_WAVE = 8
MIN_KILLS = 10
# The pace of the load: spread over the minutes the waves take, so kills meet all of it.
BRIEF_EVERY_S = (0.05, 0.5)
REPLY_EVERY_S = (0.1, 0.7)
# A digest written this close to its minute might miss that minute's wave: take the next.
DIGEST_LEAD_S = 8.0
RESULT_TIMEOUT_S = 120.0
# How long, once the load and the waves are over, everything acknowledged may take to show.
SETTLE_S = 150.0

BRIEF_TAG = re.compile(r"KB-\d{3}")
REPLY_TAG = re.compile(r"RP-\d{3}")


@dataclass(frozen=True)
class Load:
    """How much the load sends: briefs, replies, digest waves (one a minute), the fewest
    kills it must have seen, and how far apart the kills come (a random span within)."""

    briefs: int = BRIEFS
    replies: int = REPLIES
    waves: int = WAVES
    min_kills: int = MIN_KILLS
    kill_every_s: tuple[float, float] = (3.0, 6.0)


FULL = Load()


@dataclass(frozen=True)
class KillsRun:
    """What a run of the load did: its kills (each with the process it ended) and how long."""

    kills: list[Kill]
    seconds: float


def run_random_kills(cluster: ClusterStage, load: Load = FULL) -> KillsRun:
    """Drive the load through ``cluster`` while replicas are killed at random, then check
    that nothing was lost or doubled (an AssertionError names every finding and the seed).
    Returns the kills and timings, for checks of a caller's own."""
    _say(f"\nrandom kills: seed {SEED} (SUGGESTBOT_CHAOS_SEED={SEED} replays it)")
    rng = random.Random(SEED)
    began = time.monotonic()
    _ready_with_choices(cluster, ALICE, BRUNO)
    digests = _subscribe(cluster, waves=load.waves)
    waves = sorted({d.time for d in digests})
    _say(f"set up after {time.monotonic() - began:.0f} s; waves at {waves} UTC")
    last_wave = max(_fire_at(d) for d in digests)

    kills = RandomKills(cluster, rng=random.Random(rng.random()), every_s=load.kill_every_s).start()
    try:
        briefs = _Briefs(
            [
                _Briefs.Sender(
                    cluster, user, rng=random.Random(rng.random()), count=load.briefs // 2
                )
                for user in (ALICE, BRUNO)
            ]
        )
        replies = _Replies(
            cluster, briefs, rng=random.Random(rng.random()), count=load.replies
        ).start()
        try:
            briefs.join()
            replies.join()
            # Kills go on through the last wave and its posts.
            while datetime.now(UTC) < last_wave + timedelta(seconds=5):
                time.sleep(0.2)
        finally:
            briefs.stop()
            replies.stop()
            kills.stop(at_least=load.min_kills)
        assert kills.errors == [], f"seed {SEED}: {kills.errors}"
        assert all(r.process is not None for r in cluster.replicas)
        balancer = cluster.balancer
        assert balancer is not None

        dispatch_failed = sorted(tag for tag, a in briefs.answers.items() if a.status != 200)
        unacknowledged = [d for d in _driver(cluster).deliveries if not d.acknowledged]
        retried = [d for d in _driver(cluster).deliveries if len(d.attempts) > 1]
        _say(
            f"kills: {len(kills.kills)} {[(k.replica, k.at_s) for k in kills.kills]}\n"
            f"slash commands: {len(briefs.answers)} sent, {len(dispatch_failed)} dispatch_failed "
            f"{dispatch_failed}; balancer: {balancer.refusals} refused connections retried, "
            f"{len(balancer.failures)} cut {balancer.failures}\n"
            f"events: {len(replies.sent)} replies, {len(retried)} retried by Slack "
            f"{[(d.event_id, d.attempts) for d in retried]}, "
            f"{len(unacknowledged)} never acknowledged"
        )
        assert len(kills.kills) >= load.min_kills
        assert briefs.errors == replies.errors == [], (
            f"seed {SEED}: briefs {briefs.errors[:5]}, replies {replies.errors[:5]}"
        )
        assert len(briefs.answers) == load.briefs and len(replies.sent) == load.replies

        _say(f"load and waves done after {time.monotonic() - began:.0f} s")
        findings = _Findings(settle_s=SETTLE_S)
        _each_brief_done_once(cluster, briefs, dispatch_failed, findings)
        _each_reply_refined_once(
            cluster, replies, unacknowledged={d.event_id for d in unacknowledged}, findings=findings
        )
        _each_digest_posted_once(cluster, digests, findings)
        findings.expect("people told that something went wrong", generic_errors(cluster))
        findings.expect("error names shown in Slack", leaks_to_slack(cluster))

        # Service tokens: each replica start has its own cache, so the service sees at most one
        # exchange per tenant per replica start per token lifetime elapsed. (``/healthz`` probes
        # the service with a client of its own, one more per start; nothing asks it here.)
        exchanges = _token_exchanges(cluster)
        starts = sum(r.starts for r in cluster.replicas)
        # A token is used until 60 s before it runs out (the contract's margin), then replaced.
        usable_s = TOKEN_LIFETIME.total_seconds() - MIN_MARGIN_S
        lifetimes = 1 + int((time.monotonic() - began) // usable_s)
        _say(
            f"token exchanges per tenant: {dict(exchanges)} over {starts} replica starts, "
            f"{lifetimes} token lifetime(s); {time.monotonic() - began:.0f} s in all"
        )
        bound = starts * lifetimes
        findings.expect(
            f"tenants whose token was exchanged more than {bound} times",
            {tenant: n for tenant, n in exchanges.items() if n > bound},
        )
        _say(f"findings: {findings.found or 'none'}")
        assert findings.found == {}, f"seed {SEED}: lost or doubled: {findings.found}"
    except AssertionError as failure:
        failure.kills = list(kills.kills)  # type: ignore[attr-defined]  # for the caller's figures
        raise
    return KillsRun(kills=list(kills.kills), seconds=time.monotonic() - began)


# ---------------------------------------------------------------------- set-up


def _say(text: str) -> None:
    """A line of the test's report (``-s`` shows it as it happens; a failure shows it too)."""
    print(text, flush=True)


def _driver(stage: ClusterStage) -> RetryingDriver:
    assert isinstance(stage.driver, RetryingDriver)
    return stage.driver


def _ready_with_choices(stage: ClusterStage, *users: str) -> None:
    """Connect ``users`` and send one brief each by the modal, so that their choices are kept
    and ``/suggest brief <text>`` goes straight to a run."""
    for user in users:
        stage.connect(user)
        send_brief_by_modal(stage, user, f"SETUP-{user} first brief", variants=1)
    wait_for(
        lambda: all(
            (roots := roots_by_tag(stage, re.compile(rf"SETUP-{user}")).get(f"SETUP-{user}"))
            and is_ready(roots[0], user=user, variants=1)
            for user in users
        ),
        timeout=RESULT_TIMEOUT_S,
        what="the set-up briefs' results",
    )


def _subscribe(stage: ClusterStage, *, waves: int) -> list[Digest]:
    """:data:`CHANNELS_PER_WAVE` new channels per wave, each with a digest due at that wave's
    wall-clock minute (UTC), written to the database as the digest modal would."""
    now = datetime.now(UTC)
    first = now.replace(second=0, microsecond=0) + timedelta(minutes=1)
    if (first - now).total_seconds() < DIGEST_LEAD_S:
        first += timedelta(minutes=1)
    demo = stage.demo.primary
    segment_name, segment_id = next(iter(demo.segments.items()))
    use_case_name, use_case_id = next(iter(demo.use_cases.items()))
    made: list[Digest] = []
    for wave in range(waves):
        fire = first + timedelta(minutes=wave)
        for number in range(CHANNELS_PER_WAVE):
            channel = stage.emu.add_channel(f"wave{wave}-{number}", members=[ALICE, BRUNO])
            stage.emu.invite_bot(channel)
            user = (ALICE, BRUNO)[number % 2]
            made.append(
                Digest(
                    team_id=stage.emu.team_id,
                    channel_id=channel,
                    created_by=user,
                    segment_id=segment_id,
                    use_case_id=use_case_id,
                    segment_name=segment_name,
                    use_case_name=use_case_name,
                    time=fire.strftime("%H:%M"),
                    tz="UTC",
                    weekdays=list(WEEKDAYS),
                    lang="de" if user == BRUNO else "en",
                )
            )
    assert stage.database_url is not None
    with PostgresStore(stage.database_url) as store:
        records = Records(store)
        for digest in made:
            records.digests.put(digest.id, digest)
    return made


def _fire_at(digest: Digest) -> datetime:
    hours, minutes = (int(part) for part in digest.time.split(":"))
    at = datetime.fromtimestamp(digest.active_since, UTC).replace(
        hour=hours, minute=minutes, second=0, microsecond=0
    )
    return at if at.timestamp() >= digest.active_since else at + timedelta(days=1)


# ---------------------------------------------------------------------- the load


class _Sender:
    """A thread that sends ``count`` things, one after another, at a random pace."""

    every_s = (0.0, 0.0)

    def __init__(self, stage: ClusterStage, *, rng: random.Random, count: int) -> None:
        self.stage, self.rng, self.count = stage, rng, count
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=type(self).__name__)

    def start(self) -> Any:
        self._thread.start()
        return self

    def join(self) -> None:
        self._thread.join(timeout=RESULT_TIMEOUT_S * 3)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=60)

    def _run(self) -> None:
        for number in range(1, self.count + 1):
            if self._stop.is_set():
                return
            try:
                self.send(number)
            except Exception as exc:  # the test reports it
                self.errors.append(f"{number}: {exc!r}")
            self._stop.wait(self.rng.uniform(*self.every_s))

    def send(self, number: int) -> None:
        raise NotImplementedError


class _Briefs:
    """Quick briefs ``/suggest brief KB-nnn …``: Alice sends the odd numbers, Bruno the even
    ones, each in a thread of their own; every answer kept by tag."""

    class Sender(_Sender):
        every_s = BRIEF_EVERY_S

        def __init__(
            self, stage: ClusterStage, user: str, *, rng: random.Random, count: int
        ) -> None:
            super().__init__(stage, rng=rng, count=count)
            self.user = user
            self.offset = (ALICE, BRUNO).index(user) + 1
            self.answers: dict[str, AppResponse] = {}

        def send(self, number: int) -> None:
            tag = f"KB-{2 * number - 2 + self.offset:03d}"
            self.answers[tag] = self.stage.slack.slash_command(
                self.user, self.stage.channel, f"brief {tag} chaos load"
            )

    def __init__(self, senders: list[Sender]) -> None:
        self.senders = [sender.start() for sender in senders]

    def join(self) -> None:
        for sender in self.senders:
            sender.join()

    def stop(self) -> None:
        for sender in self.senders:
            sender.stop()

    @property
    def answers(self) -> dict[str, AppResponse]:
        return {tag: a for s in self.senders for tag, a in list(s.answers.items())}

    @property
    def authors(self) -> dict[str, str]:
        return {tag: s.user for s in self.senders for tag in list(s.answers)}

    @property
    def errors(self) -> list[str]:
        return [error for s in self.senders for error in s.errors]


class _Replies(_Sender):
    """Replies ``RP-nnn …`` in the threads of acknowledged briefs whose results are posted,
    by each brief's author, one brief each; Slack retries each until it is acknowledged."""

    every_s = REPLY_EVERY_S

    def __init__(
        self, stage: ClusterStage, briefs: _Briefs, *, rng: random.Random, count: int
    ) -> None:
        super().__init__(stage, rng=rng, count=count)
        self.briefs = briefs
        self.sent: dict[str, tuple[str, str]] = {}  # reply tag -> (brief tag, thread ts)
        self._replied: set[str] = set()

    def send(self, number: int) -> None:
        tag = f"RP-{number:03d}"
        brief, root = wait_for(self._next_ready_brief, timeout=RESULT_TIMEOUT_S, what=tag)
        self._replied.add(brief)
        self.sent[tag] = (brief, root["ts"])
        self.stage.slack.post_user_message(
            self.briefs.authors[brief],
            self.stage.channel,
            f"{tag} make it shorter",
            thread_ts=root["ts"],
        )

    def _next_ready_brief(self) -> tuple[str, dict[str, Any]] | None:
        roots = roots_by_tag(self.stage, BRIEF_TAG)
        for tag, answer in list(self.briefs.answers.items()):
            found = roots.get(tag)
            if tag in self._replied or answer.status != 200 or not found:
                continue
            if is_ready(found[0], user=self.briefs.authors[tag], variants=1):
                return tag, found[0]
        return None


# ---------------------------------------------------------------------- what people see


def _variants_of(thread: list[dict[str, Any]], request_id: str) -> list[int]:
    return sorted(
        metadata_of(m).get("variant_no") or 0
        for m in thread
        if metadata_of(m).get("role") == "variant"
        and metadata_of(m).get("request_id") == request_id
    )


class _Findings:
    """What went wrong, by check, collected so that one run reports every loss and every
    double at once (a chaos run is too long to find them one failure at a time)."""

    def __init__(self, *, settle_s: float) -> None:
        self.found: dict[str, Any] = {}
        # One span for all waits: what is missing when it has passed stays missing.
        self._deadline = time.monotonic() + settle_s

    def expect(self, check: str, wrong: Any) -> None:
        """Record ``wrong`` under ``check`` unless it is empty."""
        if wrong:
            self.found[check] = wrong

    def wait(self, check: str, wrong: Any) -> bool:
        """Wait until ``wrong()`` is empty; record what is still wrong when time runs out."""
        left = max(self._deadline - time.monotonic(), 5.0)
        try:
            wait_for(lambda: not wrong(), timeout=left, what=check)
        except TimeoutError:
            self.found[check] = wrong()
            return False
        return True


def _each_brief_done_once(
    stage: ClusterStage, briefs: _Briefs, dispatch_failed: list[str], findings: _Findings
) -> None:
    """Every acknowledged brief: one root, ready, its variant once, one run. A brief that failed
    to dispatch counts only if a replica recorded it (a root or a run): then the same."""
    runs = runs_by_tag(stage, BRIEF_TAG)
    roots = roots_by_tag(stage, BRIEF_TAG)
    recorded = [t for t in dispatch_failed if t in runs or t in roots]
    expected = sorted(set(briefs.answers) - set(dispatch_failed) | set(recorded))
    _say(f"briefs: {len(expected)} to complete ({len(recorded)} of them failed to dispatch)")

    def not_ready() -> dict[str, str]:
        found = roots_by_tag(stage, BRIEF_TAG)
        wrong = {}
        for tag in expected:
            if tag not in found:
                wrong[tag] = "no root"
            elif not is_ready(found[tag][0], user=briefs.authors[tag], variants=1):
                wrong[tag] = f"root says {found[tag][0].get('text')!r}"
        return wrong

    findings.wait("briefs without their result (lost)", not_ready)
    roots = wait_quiet(lambda: roots_by_tag(stage, BRIEF_TAG), settle_s=2.0, timeout=120)
    findings.expect(
        "briefs with more than one root",
        {tag: len(found) for tag, found in roots.items() if len(found) != 1},
    )
    findings.expect("roots of briefs no replica took", sorted(set(roots) - set(expected)))
    wrong_variants = {}
    for tag in sorted(set(expected) & set(roots)):
        root = roots[tag][0]
        thread = stage.emu.messages(stage.channel, thread_ts=root["ts"])[1:]
        variants = _variants_of(thread, metadata_of(root)["request_id"])
        if variants != [1]:
            wrong_variants[tag] = variants
    findings.expect("briefs whose variant is not posted exactly once", wrong_variants)
    runs = runs_by_tag(stage, BRIEF_TAG)
    findings.expect(
        "briefs the service ran other than once",
        {tag: runs.get(tag, 0) for tag in sorted(set(expected) | set(runs)) if runs.get(tag) != 1},
    )


def _each_reply_refined_once(
    stage: ClusterStage, replies: _Replies, *, unacknowledged: set[str], findings: _Findings
) -> None:
    """Every reply Slack delivered: one refinement run, and one status reply in its thread that
    became "Turn n" (the refinement's result is shown in place). A reply whose every delivery
    failed is Slack giving up: none is expected."""
    findings.expect("events Slack gave up on", sorted(unacknowledged))

    def turns(tag: str) -> list[dict[str, Any]]:
        _, ts = replies.sent[tag]
        thread = stage.emu.messages(stage.channel, thread_ts=ts)[1:]
        return [
            m
            for m in thread
            if metadata_of(m).get("role") == "root" and tag in json.dumps(m.get("blocks") or [])
        ]

    def missing() -> dict[str, str]:
        wrong = {}
        for tag, (brief, _) in replies.sent.items():
            shown = turns(tag)
            if not shown:
                wrong[tag] = f"no status reply in {brief}'s thread"
            elif not _is_turn(shown[0]):
                wrong[tag] = f"status reply says {shown[0].get('text')!r}"
        return wrong

    findings.wait("replies without their refinement (lost)", missing)
    wait_quiet(lambda: stage.emu.messages(stage.channel), settle_s=2.0, timeout=120)
    findings.expect(
        "replies shown more than once in their thread",
        {tag: n for tag in replies.sent if (n := len(turns(tag))) > 1},
    )
    state = stage.sandbox.env.state
    with state.lock:
        instructions = [str(run.request.get("instruction") or "") for run in state.runs.values()]
    runs = Counter(tag for text in instructions for tag in REPLY_TAG.findall(text))
    findings.expect(
        "replies the service refined other than once",
        {tag: runs[tag] for tag in replies.sent if runs[tag] != 1},
    )


def _is_turn(message: dict[str, Any]) -> bool:
    """A refinement's status reply once it shows its result: "Turn n · …" ("Runde n")."""
    blocks = message.get("blocks") or []
    header = blocks[0]["text"]["text"] if blocks and blocks[0]["type"] == "header" else ""
    return str(header).startswith(("Turn ", "Runde "))


def _each_digest_posted_once(
    stage: ClusterStage, digests: list[Digest], findings: _Findings
) -> None:
    """Each digest posted once in its channel on its day, and marked so; every subscription
    still there."""
    assert stage.database_url is not None

    def posts() -> Counter[str]:
        found: Counter[str] = Counter()
        for digest in digests:
            for message in stage.emu.messages(digest.channel_id):
                meta = metadata_of(message)
                if meta.get("role") == "digest":
                    found[f"{meta.get('digest')} in {digest.channel_id}"] += 1
        return found

    expected = {f"{d.id} in {d.channel_id}" for d in digests}
    findings.wait("digests not posted (lost)", lambda: sorted(expected - set(posts())))
    settled = wait_quiet(posts, settle_s=2.0, timeout=120)
    findings.expect("digests posted other than once", {k: n for k, n in settled.items() if n != 1})
    findings.expect("digest posts of no subscription", sorted(set(settled) - expected))

    def kept() -> dict[str, Digest]:
        assert stage.database_url is not None
        with PostgresStore(stage.database_url) as store:
            return {d.id: d for d in Records(store).digests.values()}

    findings.expect("subscriptions lost", sorted({d.id for d in digests} - set(kept())))
    findings.expect("subscriptions paused", sorted(d.id for d in kept().values() if d.paused))
    # Marked as posted that day (a post whose mark a kill cut off is settled by the next wave).
    due_days = {d.id: _fire_at(d).date().isoformat() for d in digests}

    def unmarked() -> dict[str, str | None]:
        days = {key: d.last_posted_local_date for key, d in kept().items()}
        return {key: days.get(key) for key, day in due_days.items() if days.get(key) != day}

    findings.wait("digests posted but not marked posted that day", unmarked)


def _token_exchanges(stage: ClusterStage) -> Counter[str]:
    """Machine tokens the sandbox issued, per tenant (none expires within the test: each is
    kept until its lifetime is over)."""
    state = stage.sandbox.env.state
    with state.lock:
        return Counter(token.tenant_id for token in state.access_tokens.values())
