"""What a digest posts: the newest set of its (segment, use case), or a short line.

A wave reads each (team, segment, use case) once with ``expand=asset_urls``, however many
channels share it, made by the first lane that needs it (:class:`GroupReads`). The URLs come
with that read; should a wave run long enough for them to near their 15 minutes, they are
minted again right before the next post, in one call for all references of the set.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from suggestbot.contentapi import ContentApiError, SuggestionSet
from suggestbot.flows.common import content_locale
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.common.variants import shown_variant
from suggestbot.flows.digests.report import WaveReport
from suggestbot.flows.digests.schedule import from_epoch
from suggestbot.flows.inspiration.showing import Pair, read_newest
from suggestbot.store.records import Digest
from suggestbot.ui.blocks.inspiration import Labels, build_digest_message, build_digest_quiet_line
from suggestbot.ui.blocks.results import Message

log = logging.getLogger(__name__)

LOCALE_MISMATCH = "content_locale_mismatch"
# Re-mint image URLs that would expire within this long (they are valid 15 minutes).
URL_MIN_LIFE = timedelta(minutes=3)


def pair_of(digest: Digest) -> Pair:
    """The segment and use case a digest posts."""
    return Pair(digest.segment_id, digest.segment_name, digest.use_case_id, digest.use_case_name)


def render(
    digest: Digest,
    found: SuggestionSet | None,
    *,
    urls: dict[str, str],
    late_note: str | None,
    always_show: bool = False,
) -> Message | None:
    """What the digest posts: the set (when new, or ``always_show``), else its short line, or
    nothing when the digest is quiet about that."""
    lang = digest.lang
    labels = Labels(segment=digest.segment_name, use_case=digest.use_case_name)
    if found is None:
        if digest.quiet_when_unchanged and not always_show:
            return None
        return build_digest_quiet_line(lang=lang, labels=labels, version=None, late_note=late_note)
    unchanged = found.version is not None and found.version == digest.last_version
    if unchanged and not always_show:
        if digest.quiet_when_unchanged:
            return None
        return build_digest_quiet_line(
            lang=lang, labels=labels, version=found.version, late_note=late_note
        )
    total = len(found.suggestions)
    variants = [
        shown_variant(s, total=total, image_url=urls.get(str(s.asset.ref)) if s.asset else None)
        for s in found.suggestions
    ]
    return build_digest_message(
        lang=lang, labels=labels, version=found.version, variants=variants, late_note=late_note
    )


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
                message = render(digest, self.found, urls=urls, late_note=late_note)
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


class GroupReads:
    """Each group's content, read once per wave by the first lane that needs it; a lane that
    needs it meanwhile waits for that read instead of making its own."""

    def __init__(self, deps: Deps, report: WaveReport) -> None:
        self._deps = deps
        self._report = report
        self._lock = threading.Lock()
        self._reads: dict[tuple[str, str, str], _GroupRead] = {}

    def of(self, digest: Digest) -> GroupContent | None:
        """The group's content, or None when it could not be read (call in the team's scope)."""
        group = (digest.team_id, digest.segment_id, digest.use_case_id)
        with self._lock:
            read = self._reads.setdefault(group, _GroupRead())
        with read.lock:
            if not read.done:
                read.content = read_group(self._deps, digest)
                read.done = True
                self._report.add("reads")
        return read.content


def read_group(deps: Deps, digest: Digest) -> GroupContent | None:
    """The newest set for ``digest``'s group, or None when the service could not be read."""
    try:
        found = read_newest(deps, pair_of(digest), asset_urls=True)
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
