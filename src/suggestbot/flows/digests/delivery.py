"""One digest for one local date, posted at most once, also across crashes.

A lane claims a round's deliveries (:mod:`suggestbot.flows.digests.wave`) before posting
them; this module posts each and says what to record. A claim found without a mark means a wave
died in between: the channel's history is searched for the post (by its message metadata)
before posting again, and a post found there gets its shared-post record if it lacks one.

- **Pacing**: one message per digest; posts to the same channel are spaced a second apart
  (:class:`~suggestbot.flows.common.pacing.ChannelPacer`); a 429 is waited out by the
  ``WebClient`` (Retry-After).
- **Health**: a channel that no longer takes posts pauses its digest and the creator is told.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from slack_sdk.errors import SlackApiError

from suggestbot.contentapi import SuggestionSet
from suggestbot.flows.common import slackio
from suggestbot.flows.common.channel_posts import find_in_channel
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.common.pacing import ChannelPacer
from suggestbot.flows.digests import subscriptions
from suggestbot.flows.digests.content import GroupContent, render
from suggestbot.flows.digests.report import WaveReport
from suggestbot.flows.digests.schedule import Occurrence
from suggestbot.flows.digests.writes import DigestChange, PendingWrites
from suggestbot.flows.inspiration.sharing import SharedRoot
from suggestbot.store.marks import DigestDelivery, delivery_key
from suggestbot.store.records import Digest, SharedPost
from suggestbot.ui.blocks.inspiration import Labels, digest_late_note

log = logging.getLogger(__name__)

DIGEST_ROLE = "digest"


@dataclass(frozen=True)
class Due:
    """A digest due at this wave, and the occurrence it is due for."""

    digest: Digest
    occurrence: Occurrence
    wave: str | None = None  # the wave's minute: its marks name it (and this process)

    @property
    def key(self) -> str:
        """The delivery's key: one per digest and local date."""
        return delivery_key(self.digest.id, self.local_date)

    @property
    def local_date(self) -> str:
        """The local date this delivery is for, as ``YYYY-MM-DD`` in the digest's zone."""
        return self.occurrence.local_date.isoformat()


def deliver(
    deps: Deps,
    item: Due,
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
        earlier = deps.records.digest_deliveries.get(item.key) or DigestDelivery(state="claimed")
        settled = _settle_earlier_claim(deps, item, content, earlier, writes=writes)
        if settled is not None:
            return settled
        claimed_at = earlier.at or 0.0
    deps.crash_point("digest_claimed")
    return _post(
        deps, item, content, claimed_at=claimed_at, pacer=pacer, report=report, writes=writes
    )


def _settle_earlier_claim(
    deps: Deps,
    item: Due,
    content: GroupContent,
    earlier: DigestDelivery,
    *,
    writes: PendingWrites,
) -> str | None:
    """An earlier wave's claim: its outcome if that wave got as far as posting, None if the
    digest is still to be posted."""
    if earlier.handled:
        writes.change_digest(item.digest.id, _finished(deps, item, earlier))
        return "already"
    claimed_at = earlier.at or 0.0
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
    done = DigestDelivery(
        state="posted",
        owner=deps.owner,
        wave=item.wave,
        ts=found_ts,
        version=found.version if found else None,
        at=claimed_at,
        delivered_at=deps.clock(),
    )
    _record_done(deps, item, done, writes)
    return "recovered"


def _is_post_of(item: Due, payload: Mapping[str, Any], *, into: dict[str, Any]) -> bool:
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
    item: Due,
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
        else render(digest, found, urls={}, late_note=_late_note(item))
    )
    version = found.version if found else None
    if message is None:
        quiet = DigestDelivery(
            state="quiet",
            owner=deps.owner,
            wave=item.wave,
            version=version,
            at=claimed_at,
            problem=content.problem,
        )
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
    done = DigestDelivery(
        state="posted",
        owner=deps.owner,
        wave=item.wave,
        ts=ts,
        version=version,
        at=claimed_at,
        delivered_at=deps.clock(),
        problem=content.problem,
    )
    _record_done(deps, item, done, writes)
    return "posted" if is_set else "lines"


def _late_note(item: Due) -> str | None:
    if not item.occurrence.late:
        return None
    digest = item.digest
    return digest_late_note(lang=digest.lang, time=digest.time, tz=digest.tz)


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


def _record_done(deps: Deps, item: Due, done: DigestDelivery, writes: PendingWrites) -> None:
    writes.mark(item.key, done, team_id=item.digest.team_id)
    writes.change_digest(item.digest.id, _finished(deps, item, done))


def _slack_failed(deps: Deps, item: Due, claimed_at: float, error: str) -> str:
    """Slack refused: a dead channel pauses the digest; anything else is retried next minute
    (the claim stays, so the retry first looks for a post)."""
    failed = DigestDelivery(
        state="failed", owner=deps.owner, wave=item.wave, at=claimed_at, error=error
    )
    deps.records.digest_deliveries.put(item.key, failed)
    if error in slackio.UNREACHABLE_CHANNEL:
        subscriptions.pause_unreachable(deps, item.digest.id, error)
        return "paused"
    log.warning("digest %s: Slack answered %s; retrying next minute", item.digest.id, error)
    subscriptions.record_error(deps, item.digest.id, error)
    return "failed"


def _finished(deps: Deps, item: Due, done: DigestDelivery) -> DigestChange:
    """The change that brings a digest up to date with a handled delivery (idempotent)."""
    local_date = item.local_date
    now = deps.clock()

    def change(d: Digest) -> Digest:
        update: dict[str, object] = {}
        if not d.last_posted_local_date or d.last_posted_local_date < local_date:
            update["last_posted_local_date"] = local_date
        if done.version is not None:
            update["last_version"] = done.version
        if done.delivered_at is not None:
            update["last_delivery_at"] = done.delivered_at
            update["last_error"] = None
        if done.problem is not None:
            update.update({"last_error": done.problem, "last_error_at": now})
        return d.model_copy(update=update) if update else d

    return change
