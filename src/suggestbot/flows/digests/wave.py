"""The digest wave: post every digest that is due at a given minute.

- **Due** is decided by :func:`~suggestbot.flows.digests.schedule.due_occurrence` from the
  ``now`` the wave is given (the job passes the real time; tests pass a fake one), for the
  digests :mod:`suggestbot.flows.digests.due` reads (by local time, not the whole table).
- **Fan-out**: each (team, segment, use case) is read once per wave, however many channels
  share it (:mod:`suggestbot.flows.digests.content`).
- **Workers**: the channels are dealt out to ``WAVE_WORKERS`` threads ("lanes"). A lane posts in
  rounds, one digest per channel per round, so a channel's digests go out in order a second
  apart while the other lanes post to other channels.
- **At most once per (digest, local date)**, also across crashes and replicas: a lane claims a
  round's deliveries in the store (one commit) BEFORE posting them, and marks them after the
  round, with the round's other records, in one commit per table
  (:mod:`suggestbot.flows.digests.writes`). A claim is leased to its process for
  :data:`LEASE_S` on the wave's clock (the wave's minute plus the time since it began) and
  renewed while the lane posts. Several replicas run each minute's wave: a delivery another
  one holds is left to it, with the rest of that channel's digests of the wave (so a channel's
  digests stay in order, a second apart); a claim whose lease ran out belongs to a wave that
  died, and is taken over: :mod:`suggestbot.flows.digests.delivery` looks in the channel for
  its post before posting.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from suggestbot import metrics
from suggestbot.flows.common import workspace_language
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.common.pacing import PACER, ChannelPacer
from suggestbot.flows.digests import subscriptions
from suggestbot.flows.digests.content import GroupContent, GroupReads
from suggestbot.flows.digests.delivery import Due, deliver
from suggestbot.flows.digests.due import covered, find_due, uncovered
from suggestbot.flows.digests.report import WaveReport
from suggestbot.flows.digests.workspaces import WorkspaceClaims, forget_old
from suggestbot.flows.digests.writes import PendingWrites, SentCounts
from suggestbot.installations.scope import team_scope
from suggestbot.store.marks import DigestDelivery, delivery_date

log = logging.getLogger(__name__)

# Delivery claims are kept this long (a local date is never due again after a day).
KEEP_DELIVERIES = timedelta(days=8)
# Threads posting one wave. A lane mostly waits for its channels' next second, so a few keep
# dozens of channels busy; more would only crowd the interpreter.
WAVE_WORKERS = 4

# How long a claim stays its wave's without a renewal, on the wave's clock: under a minute, so
# the next minute's wave (on any replica) takes over what a dead one claimed and did not post.
LEASE_S = 50.0
RENEW_EVERY_S = LEASE_S / 3
# Deliveries a lane claims in one commit: small enough that replicas running the same wave
# split its channels between them.
CLAIM_CHUNK = 8

# One wave at a time per owner (the scheduler never overlaps its minute job anyway): a claim
# with this owner's name found by its wave then belongs to one of its waves that died.
_WAVE_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_LOCK = threading.Lock()


def _wave_lock(owner: str) -> threading.Lock:
    with _LOCKS_LOCK:
        return _WAVE_LOCKS.setdefault(owner, threading.Lock())


class WaveClock:
    """The wave's clock: its minute plus the real time since it began. Claims are leased on it,
    so replicas running the same minute agree, and any later minute's wave finds the leases of
    a wave that died long run out, whatever clock a test gives the wave."""

    def __init__(self, now: datetime) -> None:
        # The wave's name is its minute: every replica's wave of a minute starts a moment apart.
        minute = now.replace(second=0, microsecond=0)
        self.minute = minute.timestamp()
        self.wave = minute.isoformat()
        self._start = now.timestamp()
        self._began = time.monotonic()

    def __call__(self) -> float:
        return self._start + (time.monotonic() - self._began)


def run_wave(deps: Deps, *, now: datetime, pacer: ChannelPacer = PACER) -> WaveReport:
    """Post every digest due at ``now``; safe to call again for the same ``now``.

    Raises what a lane died of (the other lanes stop at their next digest): a digest that fails
    is only counted, so this is a broken store, or a test's simulated crash.
    """
    with _wave_lock(deps.owner):
        report = WaveReport()
        try:
            due = find_due(deps, now)
            report.due = len(due)
            if due:
                _post_by_workspace(deps, due, now=now, pacer=pacer, report=report)
        except BaseException:
            uncovered(deps)  # the next wave reads every digest: what this one missed is due
            raise
        covered(deps, now)
        return report


def prune(deps: Deps, *, now: datetime) -> int:
    """Forget delivery claims for local dates long past (and which replica posted the
    workspaces of waves over an hour past)."""
    forget_old(deps, now=now.timestamp())
    oldest = (now - KEEP_DELIVERIES).date().isoformat()
    table = deps.records.digest_deliveries
    removed = 0
    for key, _ in table.items():
        if delivery_date(key) < oldest and table.delete(key):
            removed += 1
    return removed


def _post_by_workspace(
    deps: Deps, due: Sequence[Due], *, now: datetime, pacer: ChannelPacer, report: WaveReport
) -> None:
    """Post the due digests of the workspaces this replica claims, its share first, then what
    no live replica holds, until none is left (see :mod:`~suggestbot.flows.digests.workspaces`)."""
    clock = WaveClock(now)
    by_team: dict[str, list[Due]] = {}
    for item in due:
        by_team.setdefault(item.digest.team_id, []).append(item)
    claims = WorkspaceClaims(
        deps, wave=clock.wave, due_at=clock.minute, teams=list(by_team), clock=deps.clock
    )
    # Its share may all be held already (replicas' shares overlap): it goes on with the rest.
    teams = claims.first() or claims.more()
    while teams:
        items = [item for team in teams for item in _in_channel_language(deps, by_team[team])]
        _post_in_lanes(deps, items, pacer=pacer, report=report, clock=clock)
        teams = claims.more()
    for item in due:
        if item.digest.id not in report.outcomes:  # its workspace is another replica's
            report.record(item.digest.id, "elsewhere", late=False)


def _in_channel_language(deps: Deps, items: Sequence[Due]) -> list[Due]:
    """A digest is posted in its workspace's language (its channel reads it), not its
    creator's: read once per workspace and wave."""
    team = items[0].digest.team_id
    with team_scope(team):
        lang = workspace_language.of(deps, team)
    return [replace(item, digest=item.digest.model_copy(update={"lang": lang})) for item in items]


# --- lanes ---------------------------------------------------------------------------------------


def _post_in_lanes(
    deps: Deps, due: Sequence[Due], *, pacer: ChannelPacer, report: WaveReport, clock: WaveClock
) -> None:
    contents = GroupReads(deps, report)
    halt = threading.Event()
    counts = SentCounts()
    lanes = [
        _Lane(
            deps,
            items,
            contents=contents,
            pacer=pacer,
            report=report,
            halt=halt,
            counts=counts,
            clock=clock,
        )
        for items in _deal(due, WAVE_WORKERS, owner=deps.owner)
    ]
    with ThreadPoolExecutor(max_workers=len(lanes), thread_name_prefix="digest-lane") as pool:
        running = [pool.submit(lane.run) for lane in lanes]
    counts.write(deps)  # what was posted and recorded counts, whatever a lane died of
    for lane in running:
        lane.result()  # re-raises what a lane died of


def _by_channel(items: Sequence[Due]) -> dict[str, list[Due]]:
    by_channel: dict[str, list[Due]] = {}
    for item in items:
        by_channel.setdefault(item.digest.channel_id, []).append(item)
    return by_channel


def _deal(items: Sequence[Due], lanes: int, *, owner: str = "") -> list[list[Due]]:
    """Channels dealt out to at most ``lanes`` lanes in turn; a channel stays in one lane. The
    order is the owner's own (a hash), so replicas running the same wave start apart."""
    channels = sorted(
        _by_channel(items).values(),
        key=lambda queue: hashlib.blake2b(
            f"{owner}:{queue[0].digest.channel_id}".encode(), digest_size=8
        ).digest(),
    )
    dealt: list[list[Due]] = [[] for _ in range(min(lanes, len(channels)))]
    for index, queue in enumerate(channels):
        dealt[index % len(dealt)] += queue
    return dealt


def _rounds(items: Sequence[Due]) -> list[list[Due]]:
    """Round n holds each channel's n-th digest, so a channel's next digest waits while the
    others post (and its previous round is recorded before it goes out)."""
    queues = list(_by_channel(items).values())
    count = max(len(queue) for queue in queues)
    return [[queue[n] for queue in queues if n < len(queue)] for n in range(count)]


class _Lane:
    """Some channels' digests, posted by one worker round by round: each round is claimed in one
    commit before its first post and recorded in one commit per table after its last."""

    def __init__(
        self,
        deps: Deps,
        items: Sequence[Due],
        *,
        contents: GroupReads,
        pacer: ChannelPacer,
        report: WaveReport,
        halt: threading.Event,
        counts: SentCounts,
        clock: WaveClock,
    ) -> None:
        self._deps = deps
        self._clock = clock
        self._elsewhere: set[str] = set()  # channels another replica posts to in this wave
        self._renewed_at = 0.0
        self._counts = counts
        self._items = items
        self._contents = contents
        self._pacer = pacer
        self._report = report
        self._halt = halt

    def run(self) -> None:
        try:
            for items in _rounds(self._items):
                if self._halt.is_set():
                    return
                mine = [i for i in items if i.digest.channel_id not in self._elsewhere]
                if mine:
                    self._run_round(mine)
        except BaseException:
            # Stop the other lanes too, as the death of the process would (a test's crash
            # point), or as a broken store should.
            self._halt.set()
            raise

    def _run_round(self, items: Sequence[Due]) -> None:
        """Claim the round a few channels at a time (replicas running the same wave meet
        channel by channel, not one taking the whole round), post, then record the round."""
        writes = PendingWrites(self._deps, counts=self._counts)
        for start in range(0, len(items), CLAIM_CHUNK):
            if self._halt.is_set():
                break  # claims left unmarked are settled by the next wave
            chunk = [
                item
                for item in items[start : start + CLAIM_CHUNK]
                if item.digest.channel_id not in self._elsewhere
            ]
            if chunk:
                self._post_chunk(chunk, writes)
        writes.flush()

    def _post_chunk(self, items: Sequence[Due], writes: PendingWrites) -> None:
        claimed_at = self._deps.clock()
        claims = _claim(self._deps, items, at=claimed_at, clock=self._clock)
        for item in items:
            if item.key in claims.elsewhere:
                self._elsewhere.add(item.digest.channel_id)
                self._report.record(item.digest.id, "elsewhere", late=False)
        held = [item for item in items if item.key not in claims.elsewhere]
        ready = self._readable(held)
        self._renewed_at = self._clock()
        for index, (item, content) in enumerate(ready):
            if self._halt.is_set():
                break  # claims left unmarked are settled by the next wave
            if self._clock() - self._renewed_at >= RENEW_EVERY_S:
                self._renew([i.key for i, _ in ready[index:]])
            with team_scope(item.digest.team_id):
                outcome = self._deliver(
                    item,
                    content,
                    claimed_at=claimed_at if item.key in claims.fresh else None,
                    writes=writes,
                )
            self._report.record(item.digest.id, outcome, late=item.occurrence.late)
            metrics.observe_digest(outcome=outcome, fire_at=item.occurrence.fire_at.timestamp())

    def _readable(self, items: Sequence[Due]) -> list[tuple[Due, GroupContent]]:
        """The round's digests (claimed by this wave) whose content could be read; the others
        fail until next minute, their claims given up so that the next wave tries again."""
        ready: list[tuple[Due, GroupContent]] = []
        for item in items:
            with team_scope(item.digest.team_id):
                content = self._contents.of(item.digest)
                if content is not None:
                    ready.append((item, content))
                    continue
                try:
                    _give_up(self._deps, item.key)
                    subscriptions.record_error(self._deps, item.digest.id, "service_unavailable")
                except Exception:
                    log.exception("digest %s: recording its error failed", item.digest.id)
            self._report.record(item.digest.id, "failed", late=item.occurrence.late)
        return ready

    def _renew(self, keys: Sequence[str]) -> None:
        """Extend this wave's claims not yet posted (a long round), so no replica takes them."""
        self._renewed_at = self._clock()
        until = self._renewed_at + LEASE_S
        owner = self._deps.owner

        def extend(old: DigestDelivery) -> DigestDelivery:
            if old.state != "claimed" or old.owner != owner:
                return old
            return old.model_copy(update={"until": until})

        self._deps.records.digest_deliveries.update_many(dict.fromkeys(keys, extend))

    def _deliver(
        self, item: Due, content: GroupContent, *, claimed_at: float | None, writes: PendingWrites
    ) -> str:
        try:
            return deliver(
                self._deps,
                item,
                content,
                claimed_at=claimed_at,
                pacer=self._pacer,
                report=self._report,
                writes=writes,
            )
        except Exception:
            log.exception("digest %s could not be delivered", item.digest.id)
            return "failed"


@dataclass
class Claims:
    """A round's claims: ``fresh`` ones this wave made, the others either taken over from a
    wave that died (or handled already: the delivery settles those) or held ``elsewhere`` by a
    replica running the same wave."""

    fresh: set[str]
    elsewhere: set[str]


def _claim(deps: Deps, items: Sequence[Due], *, at: float, clock: WaveClock) -> Claims:
    """Claim deliveries in one commit, before posting any; then look at the claims found."""
    owner, now = deps.owner, clock()
    claim = DigestDelivery(
        state="claimed", at=at, owner=owner, wave=clock.wave, until=now + LEASE_S
    )
    table = deps.records.digest_deliveries
    fresh = set(table.put_many_if_absent({item.key: claim for item in items}))
    elsewhere: set[str] = set()
    taken: list[str] = []

    def settle(key: str) -> Callable[[DigestDelivery], DigestDelivery]:
        def look(old: DigestDelivery) -> DigestDelivery:
            other = old.owner is not None and old.owner != owner
            if other and old.wave == clock.wave and (old.handled or old.state == "failed"):
                elsewhere.add(key)  # done by another replica in this very wave
                return old
            if old.handled:
                return old  # an earlier wave's: the delivery counts it as already done
            if other and old.state == "claimed" and (old.until or 0.0) > now:
                elsewhere.add(key)  # another replica is posting it
                return old
            if other:
                taken.append(key)
            # A wave that died (or failed) left it: this wave takes it over, keeping when it
            # was first claimed (the delivery looks for its post since then).
            return old.model_copy(
                update={"owner": owner, "wave": clock.wave, "until": now + LEASE_S}
            )

        return look

    rest = [item.key for item in items if item.key not in fresh]
    if rest:
        table.update_many({key: settle(key) for key in rest})
    if taken:
        metrics.CLAIMS_TAKEN_OVER.inc(len(taken))
    return Claims(fresh=fresh, elsewhere=elsewhere)


def _give_up(deps: Deps, key: str) -> None:
    """Drop this wave's claim on a delivery it cannot post now (its content unreadable)."""
    owner = deps.owner

    def drop(old: DigestDelivery) -> DigestDelivery | None:
        return None if old.state == "claimed" and old.owner == owner else old

    deps.records.digest_deliveries.update(key, drop)
