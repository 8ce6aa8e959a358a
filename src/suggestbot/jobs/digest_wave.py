"""The digest wave: once a minute, post every digest that is due.

- **Due** is decided by :func:`~suggestbot.flows.digest_schedule.due_occurrence` from
  the ``now`` the wave is given (the job passes the real time; tests pass a fake one).
- **Fan-out**: one ``GET /v1/inspiration`` (with ``expand=asset_urls``) per distinct
  (team, segment, use case, locale) per wave, however many channels share it, made by the first
  worker that needs it. The URLs come with that read; should a wave run long enough for them to
  near their 15 minutes, they are minted again right before the next post, in calls of at most
  100 references.
- **Workers**: the channels are dealt out to ``WAVE_WORKERS`` threads ("lanes"). A lane posts in
  rounds, one digest per channel per round, so a channel's digests go out in order a second
  apart while the other lanes post to other channels.
- **At most once per (digest, local date)**, also across crashes: a lane claims a round's
  deliveries in the store (one ``put_many_if_absent``) BEFORE posting them, and marks them after
  the round, with the round's other records, in one commit per table
  (:mod:`suggestbot.jobs.digest_writes`). A claim found without a mark means a wave died in
  between; the channel's history is searched for the post (by its message metadata) before
  posting again, and a post found there gets its shared-post record if it lacks one.
- **Pacing**: one message per digest; posts to the same channel are spaced a second apart
  (:class:`~suggestbot.flows.pacing.ChannelPacer`); a 429 is waited out by the
  ``WebClient`` (Retry-After).
- **Health**: a channel that no longer takes posts pauses its digest and the creator is told.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from slack_sdk.errors import SlackApiError

from suggestbot.contentapi import ContentApiError, SuggestionSet
from suggestbot.flows import content_locale, digests, slackio
from suggestbot.flows.channel_posts import find_in_channel
from suggestbot.flows.deps import Deps
from suggestbot.flows.digest_schedule import Occurrence, due_occurrence, from_epoch
from suggestbot.flows.inspiration import SharedRoot, read_newest
from suggestbot.flows.pacing import PACER, ChannelPacer
from suggestbot.installations.scope import team_scope
from suggestbot.jobs.digest_writes import DELIVERIES_TABLE, DigestChange, PendingWrites
from suggestbot.jobs.scheduler import Scheduler
from suggestbot.store.records import Digest, SharedPost
from suggestbot.ui.blocks.inspiration import Labels
from suggestbot.ui.blocks.results import Message
from suggestbot.ui.messages import t

log = logging.getLogger(__name__)

JOB_ID = "digests:wave"
DIGEST_ROLE = "digest"
LOCALE_MISMATCH = "content_locale_mismatch"
# Re-mint image URLs that would expire within this long (they are valid 15 minutes).
URL_MIN_LIFE = timedelta(minutes=3)
# Delivery claims are kept this long (a local date is never due again after a day).
KEEP_DELIVERIES = timedelta(days=8)
# Threads posting one wave. A lane mostly waits for its channels' next second, so a few keep
# dozens of channels busy; more would only crowd the interpreter.
WAVE_WORKERS = 4
_DONE = ("posted", "quiet")

# One wave at a time in this process: a claim found during a wave then always belongs to a
# wave that died or failed, never to one still posting.
_WAVE_LOCK = threading.Lock()


@dataclass
class WaveReport:
    """What one wave did (logged, and read by tests and the benchmark); lanes count into it
    from several threads through :meth:`add` and :meth:`record`."""

    due: int = 0
    reads: int = 0
    posted: int = 0  # digests with content
    lines: int = 0  # short "nothing new" lines
    quiet: int = 0  # nothing posted, by the digest's setting
    recovered: int = 0  # found already posted by a wave that died
    already: int = 0
    failed: int = 0
    paused: int = 0
    late: int = 0
    mints: int = 0
    outcomes: dict[str, str] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, counter: str, count: int = 1) -> None:
        with self._lock:
            setattr(self, counter, getattr(self, counter) + count)

    def record(self, digest_id: str, outcome: str, *, late: bool) -> None:
        """Count one digest's outcome (the name of its counter)."""
        with self._lock:
            self.outcomes[digest_id] = outcome
            setattr(self, outcome, getattr(self, outcome) + 1)
            if late and outcome in ("posted", "lines"):
                self.late += 1


@dataclass(frozen=True)
class _Due:
    digest: Digest
    occurrence: Occurrence

    @property
    def key(self) -> str:
        return delivery_key(self.digest.id, self.occurrence.local_date)

    @property
    def group(self) -> tuple[str, str, str]:
        d = self.digest
        return (d.team_id, d.segment_id, d.use_case_id)

    @property
    def local_date(self) -> str:
        return self.occurrence.local_date.isoformat()


def delivery_key(digest_id: str, local_date: date) -> str:
    return f"{digest_id}:{local_date.isoformat()}"


class GroupContent:
    """The newest set for one (team, segment, use case, locale), read once per wave, with the
    image URLs that came with it (minted again in batches when close to expiring)."""

    def __init__(self, found: SuggestionSet | None) -> None:
        self.found = found
        # Why an empty read is empty, when known (shown as the digest's last error).
        self.problem: str | None = None
        self.urls: dict[str, str] = {}
        self.expires_at: datetime | None = None
        # Lanes posting the same group at once mint its URLs once, not once each.
        self._lock = threading.Lock()
        # The set as posted, per (language, segment name, use case name, late note): dozens of
        # channels show the same one, and building Block Kit is most of a post's own work.
        self._messages: dict[tuple[str, str, str, str | None], Message] = {}
        for suggestion in found.suggestions if found else []:
            asset = suggestion.asset
            url = asset.reveal_url() if asset else None
            if asset is not None and url:
                self.urls[str(asset.ref)] = url
                if asset.url_expires_at is not None:
                    self._note_expiry(asset.url_expires_at)

    def _note_expiry(self, at: datetime) -> None:
        self.expires_at = at if self.expires_at is None else min(self.expires_at, at)

    def urls_for_post(self, deps: Deps, report: WaveReport) -> dict[str, str]:
        """URLs good for a while yet: minted again (all refs, ≤ 100 per call) when close."""
        with self._lock:
            return self._fresh_urls(deps, report)

    def set_message(
        self, deps: Deps, digest: Digest, *, late_note: str | None, report: WaveReport
    ) -> Message:
        """The set as ``digest`` shows it, built once per language, names and late note (and
        again after the image URLs were minted again)."""
        assert self.found is not None
        key = (digest.lang, digest.segment_name, digest.use_case_name, late_note)
        with self._lock:
            urls = self._fresh_urls(deps, report)
            message = self._messages.get(key)
            if message is None:
                message = digests.render(digest, self.found, urls=urls, late_note=late_note)
                assert message is not None  # a new set is always shown
                self._messages[key] = message
            return message

    def _fresh_urls(self, deps: Deps, report: WaveReport) -> dict[str, str]:
        if not self.urls or self.expires_at is None:
            return self.urls
        if self.expires_at - from_epoch(deps.clock()) > URL_MIN_LIFE:
            return self.urls
        self._mint_again(deps, report)
        self._messages.clear()  # they show the old URLs
        return self.urls

    def _mint_again(self, deps: Deps, report: WaveReport) -> None:
        refs = list(self.urls)
        try:
            minted = deps.content.mint_asset_urls(refs=refs)
        except ContentApiError as exc:
            log.warning(
                "minting %d image URLs failed (%s); posting without previews", len(refs), exc
            )
            self.urls, self.expires_at = {}, None
            return
        report.add("mints")
        self.urls, self.expires_at = {}, None
        for item in minted:
            self.urls[item.ref] = item.reveal_url()
            self._note_expiry(item.url_expires_at)


@dataclass
class _GroupRead:
    lock: threading.Lock = field(default_factory=threading.Lock)
    done: bool = False
    content: GroupContent | None = None


class _Contents:
    """Each group's content, read once per wave by the first lane that needs it; a lane that
    needs it meanwhile waits for that read instead of making its own."""

    def __init__(self, deps: Deps, report: WaveReport) -> None:
        self._deps = deps
        self._report = report
        self._lock = threading.Lock()
        self._reads: dict[tuple[str, str, str], _GroupRead] = {}

    def of(self, item: _Due) -> GroupContent | None:
        """The group's content, or None when it could not be read (call in the team's scope)."""
        with self._lock:
            read = self._reads.setdefault(item.group, _GroupRead())
        with read.lock:
            if not read.done:
                read.content = _read(self._deps, item.digest)
                read.done = True
                self._report.add("reads")
        return read.content


def schedule(scheduler: Scheduler, deps: Deps) -> None:
    """Run a wave at second 0 of every minute, and once at start (forget old claims hourly).

    Digests are due on the minute; the wave starts then, so the first post follows within
    the time one inspiration read and one post take.
    """
    pruned_hour = [-1]

    def tick() -> None:
        try:
            now = from_epoch(deps.clock())
            report = run_wave(deps, now=now)
            if now.hour != pruned_hour[0]:
                prune(deps, now=now)
                pruned_hour[0] = now.hour
        except Exception:
            log.exception("digest wave failed; the next one runs in a minute")
            return
        if report.due:
            log.info(
                "digest wave: %d due, %d read(s), %d posted, %d line(s), %d quiet, "
                "%d recovered, %d failed, %d paused",
                report.due,
                report.reads,
                report.posted,
                report.lines,
                report.quiet,
                report.recovered,
                report.failed,
                report.paused,
            )

    scheduler.each_minute(JOB_ID, tick)


def run_wave(deps: Deps, *, now: datetime, pacer: ChannelPacer = PACER) -> WaveReport:
    """Post every digest due at ``now``; safe to call again for the same ``now``.

    Raises what a lane died of (the other lanes stop at their next digest): a digest that fails
    is only counted, so this is a broken store, or a test's simulated crash.
    """
    with _WAVE_LOCK:
        report = WaveReport()
        due = _find_due(deps, now)
        report.due = len(due)
        if due:
            _post_in_lanes(deps, due, pacer=pacer, report=report)
        return report


def _find_due(deps: Deps, now: datetime) -> list[_Due]:
    """Digests due by their own records. One handled by a wave that stopped before updating the
    digest is among them; its lane finds the delivery's mark and counts it as ``already``."""
    due: list[_Due] = []
    for digest in deps.records.digests.values():
        if digest.paused:
            continue
        last = digest.last_posted_local_date
        try:
            occurrence = due_occurrence(
                digests.schedule_of(digest),
                now=now,
                last_posted=date.fromisoformat(last) if last else None,
                not_before=from_epoch(digest.active_since),
            )
        except ValueError as exc:
            log.warning("digest %s has an unusable schedule (%s)", digest.id, exc)
            continue
        if occurrence is None:
            continue
        due.append(_Due(digest, occurrence))
    return due


def _read(deps: Deps, digest: Digest) -> GroupContent | None:
    try:
        found = read_newest(deps, digests.pair_of(digest), asset_urls=True)
    except ContentApiError as exc:
        log.warning(
            "reading ready-made content for %s / %s failed (%s); retrying next minute",
            digest.segment_id,
            digest.use_case_id,
            exc,
        )
        return None
    content = GroupContent(found)
    if found is None:
        # Empty: say so in the digest's health if the reason is a wrong locale setting (the
        # probe also logs the warning for the admin, once).
        held = content_locale.probe(deps)
        if held is not None:
            content.problem = LOCALE_MISMATCH
    return content


# --- lanes ---------------------------------------------------------------------------------------


def _post_in_lanes(
    deps: Deps, due: Sequence[_Due], *, pacer: ChannelPacer, report: WaveReport
) -> None:
    contents = _Contents(deps, report)
    halt = threading.Event()
    lanes = [
        _Lane(deps, items, contents=contents, pacer=pacer, report=report, halt=halt)
        for items in _deal(due, WAVE_WORKERS)
    ]
    with ThreadPoolExecutor(max_workers=len(lanes), thread_name_prefix="digest-lane") as pool:
        running = [pool.submit(lane.run) for lane in lanes]
    for lane in running:
        lane.result()  # re-raises what a lane died of


def _by_channel(items: Sequence[_Due]) -> dict[str, list[_Due]]:
    by_channel: dict[str, list[_Due]] = {}
    for item in items:
        by_channel.setdefault(item.digest.channel_id, []).append(item)
    return by_channel


def _deal(items: Sequence[_Due], lanes: int) -> list[list[_Due]]:
    """Channels dealt out to at most ``lanes`` lanes in turn; a channel stays in one lane."""
    channels = list(_by_channel(items).values())
    dealt: list[list[_Due]] = [[] for _ in range(min(lanes, len(channels)))]
    for index, queue in enumerate(channels):
        dealt[index % len(dealt)] += queue
    return dealt


def _rounds(items: Sequence[_Due]) -> list[list[_Due]]:
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
        items: Sequence[_Due],
        *,
        contents: _Contents,
        pacer: ChannelPacer,
        report: WaveReport,
        halt: threading.Event,
    ) -> None:
        self._deps = deps
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

    def _run_round(self, items: Sequence[_Due]) -> None:
        ready = self._readable(items)
        claimed_at = self._deps.clock()
        ours = set(_claim(self._deps, [item for item, _ in ready], at=claimed_at))
        writes = PendingWrites(self._deps)
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
        writes.flush()

    def _readable(self, items: Sequence[_Due]) -> list[tuple[_Due, GroupContent]]:
        """The round's digests whose content could be read; the others fail until next minute."""
        ready: list[tuple[_Due, GroupContent]] = []
        for item in items:
            with team_scope(item.digest.team_id):
                content = self._contents.of(item)
                if content is not None:
                    ready.append((item, content))
                    continue
                try:
                    digests.record_error(self._deps, item.digest.id, "service_unavailable")
                except Exception:
                    log.exception("digest %s: recording its error failed", item.digest.id)
            self._report.record(item.digest.id, "failed", late=item.occurrence.late)
        return ready

    def _deliver(
        self, item: _Due, content: GroupContent, *, claimed_at: float | None, writes: PendingWrites
    ) -> str:
        try:
            return _deliver(
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


def _claim(deps: Deps, items: Sequence[_Due], *, at: float) -> list[str]:
    """Claim deliveries in one commit, before posting any; returns the keys now claimed (the
    others were claimed by an earlier wave)."""
    claim = {"state": "claimed", "at": at}
    return deps.records.store.put_many_if_absent(
        DELIVERIES_TABLE, {item.key: claim for item in items}
    )


# --- one digest ----------------------------------------------------------------------------------


def _deliver(
    deps: Deps,
    item: _Due,
    content: GroupContent,
    *,
    claimed_at: float | None,
    pacer: ChannelPacer,
    report: WaveReport,
    writes: PendingWrites,
) -> str:
    """Post one digest for one local date at most once; returns the outcome's report field.

    ``claimed_at`` is when this wave claimed it, or None when an earlier wave's claim was found.
    """
    if claimed_at is None:
        earlier = deps.records.store.get(DELIVERIES_TABLE, item.key) or {}
        settled = _settle_earlier_claim(deps, item, content, earlier, writes=writes)
        if settled is not None:
            return settled
        claimed_at = float(earlier.get("at") or 0.0)
    deps.crash_point("digest_claimed")
    return _post(
        deps, item, content, claimed_at=claimed_at, pacer=pacer, report=report, writes=writes
    )


def _settle_earlier_claim(
    deps: Deps,
    item: _Due,
    content: GroupContent,
    earlier: Mapping[str, Any],
    *,
    writes: PendingWrites,
) -> str | None:
    """An earlier wave's claim: its outcome if that wave got as far as posting, None if the
    digest is still to be posted."""
    if earlier.get("state") in _DONE:
        writes.change_digest(item.digest.id, _finished(deps, item, earlier))
        return "already"
    claimed_at = float(earlier.get("at") or 0.0)
    shown: dict[str, Any] = {}
    try:
        found_ts = find_in_channel(
            deps,
            channel=item.digest.channel_id,
            since=claimed_at,
            matches=lambda payload: _is_post_of(item, payload, into=shown),
        )
    except SlackApiError as exc:
        return _slack_failed(deps, item, claimed_at, slackio.slack_error(exc))
    if not found_ts:
        return None
    log.info(
        "digest %s for %s was already posted; not posting again", item.digest.id, item.local_date
    )
    found = content.found
    if found is not None and shown.get("set") == found.id:
        # The wave died before recording it: record it now, so replies in its thread refine.
        writes.share(_shared_root(deps, item.digest, found, found_ts))
    done = {
        "state": "posted",
        "ts": found_ts,
        "version": found.version if found else None,
        "at": claimed_at,
        "delivered_at": deps.clock(),
    }
    _record_done(deps, item, done, writes)
    return "recovered"


def _is_post_of(item: _Due, payload: Mapping[str, Any], *, into: dict[str, Any]) -> bool:
    """Whether a message's metadata is this delivery's (kept in ``into`` when it is)."""
    if (
        payload.get("role") == DIGEST_ROLE
        and payload.get("digest") == item.digest.id
        and payload.get("date") == item.local_date
    ):
        into.update(payload)
        return True
    return False


def _post(
    deps: Deps,
    item: _Due,
    content: GroupContent,
    *,
    claimed_at: float,
    pacer: ChannelPacer,
    report: WaveReport,
    writes: PendingWrites,
) -> str:
    digest, channel = item.digest, item.digest.channel_id
    found = content.found
    is_set = found is not None and found.version != digest.last_version
    message = (
        content.set_message(deps, digest, late_note=_late_note(item), report=report)
        if is_set
        else digests.render(digest, found, urls={}, late_note=_late_note(item))
    )
    version = found.version if found else None
    if message is None:
        quiet = {"state": "quiet", "version": version, "at": claimed_at, "problem": content.problem}
        _record_done(deps, item, quiet, writes)
        return "quiet"
    metadata = {"role": DIGEST_ROLE, "digest": digest.id, "date": item.local_date}
    if is_set and found is not None:
        metadata["set"] = found.id  # so recovery can tell what the post showed
    try:
        pacer.wait(channel)
        ts = slackio.post(deps, channel=channel, message=message, metadata=metadata)
        pacer.posted(channel)
    except SlackApiError as exc:
        return _slack_failed(deps, item, claimed_at, slackio.slack_error(exc))
    deps.crash_point("digest_posted")
    if is_set and found is not None:
        writes.share(_shared_root(deps, digest, found, ts))
    done = {
        "state": "posted",
        "ts": ts,
        "version": version,
        "at": claimed_at,
        "delivered_at": deps.clock(),
        "problem": content.problem,
    }
    _record_done(deps, item, done, writes)
    return "posted" if is_set else "lines"


def _late_note(item: _Due) -> str | None:
    if not item.occurrence.late:
        return None
    digest = item.digest
    return t("digest.late", digest.lang, time=digest.time, tz=digest.tz)


def _shared_root(deps: Deps, digest: Digest, found: SuggestionSet, ts: str) -> SharedRoot:
    """What a digest's root shows, so its thread can be bound for refinements."""
    post = SharedPost(
        team_id=digest.team_id,
        channel_id=digest.channel_id,
        ts=ts,
        source="digest",
        posted_by=digest.created_by,
        suggestion_ids=[s.id for s in found.suggestions],
        variant_nos=[s.variant_no for s in found.suggestions],
        kinds=[s.kind.value for s in found.suggestions],
        suggestion_set_id=found.id,
        segment_id=digest.segment_id,
        use_case_id=digest.use_case_id,
        locale=found.locale,
        version=found.version,
        digest_id=digest.id,
        created_at=deps.clock(),
    )
    labels = Labels(segment=digest.segment_name, use_case=digest.use_case_name)
    return SharedRoot(post=post, labels=labels, lang=digest.lang)


def _record_done(deps: Deps, item: _Due, done: dict[str, Any], writes: PendingWrites) -> None:
    writes.mark(item.key, done)
    writes.change_digest(item.digest.id, _finished(deps, item, done))


def _slack_failed(deps: Deps, item: _Due, claimed_at: float, error: str) -> str:
    """Slack refused: a dead channel pauses the digest; anything else is retried next minute
    (the claim stays, so the retry first looks for a post)."""
    failed = {"state": "failed", "at": claimed_at, "error": error}
    deps.records.store.put(DELIVERIES_TABLE, item.key, failed)
    if error in slackio.UNREACHABLE_CHANNEL:
        digests.pause_unreachable(deps, item.digest.id, error)
        return "paused"
    log.warning("digest %s: Slack answered %s; retrying next minute", item.digest.id, error)
    digests.record_error(deps, item.digest.id, error)
    return "failed"


def _finished(deps: Deps, item: _Due, done: Mapping[str, Any]) -> DigestChange:
    """The change that brings a digest up to date with a handled delivery (idempotent)."""
    local_date = item.local_date
    version = done.get("version")
    delivered_at = done.get("delivered_at")
    problem = done.get("problem")
    now = deps.clock()

    def change(d: Digest) -> Digest:
        update: dict[str, object] = {}
        if not d.last_posted_local_date or d.last_posted_local_date < local_date:
            update["last_posted_local_date"] = local_date
        if isinstance(version, int):
            update["last_version"] = version
        if isinstance(delivered_at, float | int):
            update["last_delivery_at"] = float(delivered_at)
            update["last_error"] = None
        if isinstance(problem, str):
            update.update({"last_error": problem, "last_error_at": now})
        return d.model_copy(update=update) if update else d

    return change


def prune(deps: Deps, *, now: datetime) -> int:
    """Forget delivery claims for local dates long past."""
    oldest = (now - KEEP_DELIVERIES).date().isoformat()
    store = deps.records.store
    removed = 0
    for key, _ in store.items(DELIVERIES_TABLE):
        _, _, local_date = key.rpartition(":")
        if local_date < oldest and store.delete(DELIVERIES_TABLE, key):
            removed += 1
    return removed
