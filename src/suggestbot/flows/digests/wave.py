"""The digest wave: post every digest that is due at a given minute.

- **Due** is decided by :func:`~suggestbot.flows.digests.schedule.due_occurrence` from the
  ``now`` the wave is given (the job passes the real time; tests pass a fake one).
- **Fan-out**: each (team, segment, use case) is read once per wave, however many channels
  share it (:mod:`suggestbot.flows.digests.content`).
- **Workers**: the channels are dealt out to ``WAVE_WORKERS`` threads ("lanes"). A lane posts in
  rounds, one digest per channel per round, so a channel's digests go out in order a second
  apart while the other lanes post to other channels.
- **At most once per (digest, local date)**, also across crashes: a lane claims a round's
  deliveries in the store (one commit) BEFORE posting them, and marks them after the round,
  with the round's other records, in one commit per table (:mod:`suggestbot.flows.digests.writes`);
  :mod:`suggestbot.flows.digests.delivery` settles a claim an earlier wave left unmarked.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime, timedelta

from suggestbot import metrics
from suggestbot.flows.deps import Deps
from suggestbot.flows.digests import subscriptions
from suggestbot.flows.digests.content import GroupContent, GroupReads
from suggestbot.flows.digests.delivery import Due, deliver
from suggestbot.flows.digests.report import WaveReport
from suggestbot.flows.digests.schedule import due_occurrence, from_epoch
from suggestbot.flows.digests.writes import PendingWrites, SentCounts
from suggestbot.flows.pacing import PACER, ChannelPacer
from suggestbot.installations.scope import team_scope
from suggestbot.store.marks import DigestDelivery, delivery_date

log = logging.getLogger(__name__)

# Delivery claims are kept this long (a local date is never due again after a day).
KEEP_DELIVERIES = timedelta(days=8)
# Threads posting one wave. A lane mostly waits for its channels' next second, so a few keep
# dozens of channels busy; more would only crowd the interpreter.
WAVE_WORKERS = 4

# One wave at a time in this process: a claim found during a wave then always belongs to a
# wave that died or failed, never to one still posting.
_WAVE_LOCK = threading.Lock()


def run_wave(deps: Deps, *, now: datetime, pacer: ChannelPacer = PACER) -> WaveReport:
    """Post every digest due at ``now``; safe to call again for the same ``now``.

    Raises what a lane died of (the other lanes stop at their next digest): a digest that fails
    is only counted, so this is a broken store, or a test's simulated crash.
    """
    with _WAVE_LOCK:
        report = WaveReport()
        due = find_due(deps, now)
        report.due = len(due)
        if due:
            _post_in_lanes(deps, due, pacer=pacer, report=report)
        return report


def find_due(deps: Deps, now: datetime) -> list[Due]:
    """Digests due by their own records. One handled by a wave that stopped before updating the
    digest is among them; its lane finds the delivery's mark and counts it as ``already``."""
    due: list[Due] = []
    for digest in deps.records.digests.values():
        if digest.paused:
            continue
        last = digest.last_posted_local_date
        try:
            occurrence = due_occurrence(
                subscriptions.schedule_of(digest),
                now=now,
                last_posted=date.fromisoformat(last) if last else None,
                not_before=from_epoch(digest.active_since),
            )
        except ValueError as exc:
            log.warning("digest %s has an unusable schedule (%s)", digest.id, exc)
            continue
        if occurrence is None:
            continue
        due.append(Due(digest, occurrence))
    return due


def prune(deps: Deps, *, now: datetime) -> int:
    """Forget delivery claims for local dates long past."""
    oldest = (now - KEEP_DELIVERIES).date().isoformat()
    table = deps.records.digest_deliveries
    removed = 0
    for key, _ in table.items():
        if delivery_date(key) < oldest and table.delete(key):
            removed += 1
    return removed


# --- lanes ---------------------------------------------------------------------------------------


def _post_in_lanes(
    deps: Deps, due: Sequence[Due], *, pacer: ChannelPacer, report: WaveReport
) -> None:
    contents = GroupReads(deps, report)
    halt = threading.Event()
    counts = SentCounts()
    lanes = [
        _Lane(deps, items, contents=contents, pacer=pacer, report=report, halt=halt, counts=counts)
        for items in _deal(due, WAVE_WORKERS)
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


def _deal(items: Sequence[Due], lanes: int) -> list[list[Due]]:
    """Channels dealt out to at most ``lanes`` lanes in turn; a channel stays in one lane."""
    channels = list(_by_channel(items).values())
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
    ) -> None:
        self._deps = deps
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
                self._run_round(items)
        except BaseException:
            # Stop the other lanes too, as the death of the process would (a test's crash
            # point), or as a broken store should.
            self._halt.set()
            raise

    def _run_round(self, items: Sequence[Due]) -> None:
        ready = self._readable(items)
        claimed_at = self._deps.clock()
        ours = set(_claim(self._deps, [item for item, _ in ready], at=claimed_at))
        writes = PendingWrites(self._deps, counts=self._counts)
        for item, content in ready:
            if self._halt.is_set():
                break  # claims left unmarked are settled by the next wave
            with team_scope(item.digest.team_id):
                outcome = self._deliver(
                    item,
                    content,
                    claimed_at=claimed_at if item.key in ours else None,
                    writes=writes,
                )
            self._report.record(item.digest.id, outcome, late=item.occurrence.late)
            metrics.observe_digest(outcome=outcome, fire_at=item.occurrence.fire_at.timestamp())
        writes.flush()

    def _readable(self, items: Sequence[Due]) -> list[tuple[Due, GroupContent]]:
        """The round's digests whose content could be read; the others fail until next minute."""
        ready: list[tuple[Due, GroupContent]] = []
        for item in items:
            with team_scope(item.digest.team_id):
                content = self._contents.of(item.digest)
                if content is not None:
                    ready.append((item, content))
                    continue
                try:
                    subscriptions.record_error(self._deps, item.digest.id, "service_unavailable")
                except Exception:
                    log.exception("digest %s: recording its error failed", item.digest.id)
            self._report.record(item.digest.id, "failed", late=item.occurrence.late)
        return ready

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


def _claim(deps: Deps, items: Sequence[Due], *, at: float) -> list[str]:
    """Claim deliveries in one commit, before posting any; returns the keys now claimed (the
    others were claimed by an earlier wave)."""
    claim = DigestDelivery(state="claimed", at=at)
    return deps.records.digest_deliveries.put_many_if_absent({item.key: claim for item in items})
