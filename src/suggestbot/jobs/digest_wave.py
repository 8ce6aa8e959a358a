"""The digest wave: once a minute, post every digest that is due.

- **Due** is decided by :func:`~suggestbot.slackapp.flows.digest_schedule.due_occurrence` from
  the ``now`` the wave is given (the job passes the real time; tests pass a fake one).
- **Fan-out**: one ``GET /v1/inspiration`` (with ``expand=asset_urls``) per distinct
  (team, segment, use case, locale) per wave, however many channels share it. The URLs come
  with that read; should a wave run long enough for them to near their 15 minutes, they are
  minted again right before the next post, in calls of at most 100 references.
- **At most once per (digest, local date)**, also across crashes: the delivery is claimed in
  the store (``put_if_absent``) BEFORE posting and marked after. A claim found without a mark
  means a wave died in between; the channel's history is searched for the post (by its message
  metadata) before posting again.
- **Pacing**: one message per digest; posts to the same channel are spaced a second apart and
  interleaved with other channels; a 429 is waited out by the ``WebClient`` (Retry-After).
- **Health**: a channel that no longer takes posts pauses its digest and the creator is told.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from slack_sdk.errors import SlackApiError

from suggestbot.contentapi import ContentApiError, SuggestionSet
from suggestbot.installations.scope import team_scope
from suggestbot.jobs.scheduler import Scheduler
from suggestbot.slackapp.blocks.inspiration import Labels
from suggestbot.slackapp.flows import content_locale, digests, slackio
from suggestbot.slackapp.flows.channel_posts import find_in_channel
from suggestbot.slackapp.flows.deps import Deps
from suggestbot.slackapp.flows.digest_schedule import Occurrence, due_occurrence, from_epoch
from suggestbot.slackapp.flows.inspiration import read_newest, record_shared
from suggestbot.slackapp.flows.pacing import PACER, ChannelPacer
from suggestbot.slackapp.flows.records import Digest, SharedPost
from suggestbot.slackapp.messages import t

log = logging.getLogger(__name__)

JOB_ID = "digests:wave"
EVERY_S = 60.0
DELIVERIES_TABLE = "digest_deliveries"
DIGEST_ROLE = "digest"
LOCALE_MISMATCH = "content_locale_mismatch"
# Re-mint image URLs that would expire within this long (they are valid 15 minutes).
URL_MIN_LIFE = timedelta(minutes=3)
# Delivery claims are kept this long (a local date is never due again after a day).
KEEP_DELIVERIES = timedelta(days=8)
_DONE = ("posted", "quiet")

# One wave at a time in this process: a claim found during a wave then always belongs to a
# wave that died or failed, never to one still posting.
_WAVE_LOCK = threading.Lock()


@dataclass
class WaveReport:
    """What one wave did (logged, and read by tests and the benchmark)."""

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
        if not self.urls or self.expires_at is None:
            return self.urls
        if self.expires_at - from_epoch(deps.clock()) > URL_MIN_LIFE:
            return self.urls
        refs = list(self.urls)
        try:
            minted = deps.content.mint_asset_urls(refs=refs)
        except ContentApiError as exc:
            log.warning(
                "minting %d image URLs failed (%s); posting without previews", len(refs), exc
            )
            self.urls, self.expires_at = {}, None
            return self.urls
        report.mints += 1
        self.urls, self.expires_at = {}, None
        for item in minted:
            self.urls[item.ref] = item.reveal_url()
            self._note_expiry(item.url_expires_at)
        return self.urls


def schedule(scheduler: Scheduler, deps: Deps) -> None:
    """Run a wave every minute on the real clock (and forget old claims once an hour)."""
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

    scheduler.every(JOB_ID, EVERY_S, tick)


def run_wave(deps: Deps, *, now: datetime, pacer: ChannelPacer = PACER) -> WaveReport:
    """Post every digest due at ``now``; safe to call again for the same ``now``."""
    with _WAVE_LOCK:
        report = WaveReport()
        due = _find_due(deps, now, report)
        report.due = len(due)
        if not due:
            return report
        contents: dict[tuple[str, str, str], GroupContent | None] = {}
        for item in due:
            if item.group not in contents:
                with team_scope(item.digest.team_id):
                    contents[item.group] = _read(deps, item.digest)
                report.reads += 1
        for item in _interleave(due):
            content = contents[item.group]
            try:
                if content is None:
                    digests.record_error(deps, item.digest.id, "service_unavailable")
                    outcome = "failed"
                else:
                    with team_scope(item.digest.team_id):
                        outcome = _deliver(deps, item, content, pacer=pacer, report=report)
            except Exception:
                log.exception("digest %s could not be delivered", item.digest.id)
                outcome = "failed"
            report.outcomes[item.digest.id] = outcome
            setattr(report, outcome, getattr(report, outcome) + 1)
            if item.occurrence.late and outcome in ("posted", "lines"):
                report.late += 1
        return report


def _find_due(deps: Deps, now: datetime, report: WaveReport) -> list[_Due]:
    store = deps.records.store
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
        item = _Due(digest, occurrence)
        existing = store.get(DELIVERIES_TABLE, item.key) or {}
        if existing.get("state") in _DONE:
            # Handled by a wave that stopped before updating the digest itself.
            _finish(deps, item, existing)
            report.already += 1
            continue
        due.append(item)
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


def _interleave(items: Sequence[_Due]) -> list[_Due]:
    """Round-robin over channels, so a channel's second digest waits while others post."""
    by_channel: dict[str, list[_Due]] = {}
    for item in items:
        by_channel.setdefault(item.digest.channel_id, []).append(item)
    ordered: list[_Due] = []
    rounds = max(len(queue) for queue in by_channel.values())
    for index in range(rounds):
        ordered += [queue[index] for queue in by_channel.values() if index < len(queue)]
    return ordered


def _deliver(
    deps: Deps, item: _Due, content: GroupContent, *, pacer: ChannelPacer, report: WaveReport
) -> str:
    """Post one digest for one local date at most once; returns the outcome's report field."""
    digest, store = item.digest, deps.records.store
    channel, key = digest.channel_id, item.key
    local_date = item.occurrence.local_date.isoformat()
    claimed_at = deps.clock()
    if not store.put_if_absent(DELIVERIES_TABLE, key, {"state": "claimed", "at": claimed_at}):
        existing = store.get(DELIVERIES_TABLE, key) or {}
        if existing.get("state") in _DONE:
            _finish(deps, item, existing)
            return "already"
        claimed_at = float(existing.get("at") or 0.0)
        try:
            found_ts = find_in_channel(
                deps,
                channel=channel,
                since=claimed_at,
                matches=lambda p: (
                    p.get("role") == DIGEST_ROLE
                    and p.get("digest") == digest.id
                    and p.get("date") == local_date
                ),
            )
        except SlackApiError as exc:
            return _slack_failed(deps, item, claimed_at, slackio.slack_error(exc))
        if found_ts:
            log.info(
                "digest %s for %s was already posted; not posting again", digest.id, local_date
            )
            version = content.found.version if content.found else None
            done = {
                "state": "posted",
                "ts": found_ts,
                "version": version,
                "at": claimed_at,
                "delivered_at": deps.clock(),
            }
            store.put(DELIVERIES_TABLE, key, done)
            _finish(deps, item, done)
            return "recovered"
    deps.crash_point("digest_claimed")
    late_note = (
        t("digest.late", digest.lang, time=digest.time, tz=digest.tz)
        if item.occurrence.late
        else None
    )
    found = content.found
    is_set = found is not None and found.version != digest.last_version
    urls = content.urls_for_post(deps, report) if is_set else {}
    message = digests.render(digest, found, urls=urls, late_note=late_note)
    version = found.version if found else None
    if message is None:
        done = {"state": "quiet", "version": version, "at": claimed_at, "problem": content.problem}
        store.put(DELIVERIES_TABLE, key, done)
        _finish(deps, item, done)
        return "quiet"
    try:
        pacer.wait(channel)
        ts = slackio.post(
            deps,
            channel=channel,
            message=message,
            metadata={"role": DIGEST_ROLE, "digest": digest.id, "date": local_date},
        )
        pacer.posted(channel)
    except SlackApiError as exc:
        return _slack_failed(deps, item, claimed_at, slackio.slack_error(exc))
    deps.crash_point("digest_posted")
    done = {
        "state": "posted",
        "ts": ts,
        "version": version,
        "at": claimed_at,
        "delivered_at": deps.clock(),
        "problem": content.problem,
    }
    store.put(DELIVERIES_TABLE, key, done)
    _finish(deps, item, done)
    if is_set and found is not None:
        record_shared(
            deps,
            labels=Labels(segment=digest.segment_name, use_case=digest.use_case_name),
            lang=digest.lang,
            post=SharedPost(
                team_id=digest.team_id,
                channel_id=channel,
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
            ),
        )
        return "posted"
    return "lines"


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


def _finish(deps: Deps, item: _Due, done: Mapping[str, Any]) -> None:
    """Bring the digest up to date with a handled delivery (idempotent)."""
    local_date = item.occurrence.local_date.isoformat()
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

    deps.records.digests.update(item.digest.id, change)


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
