"""Digest subscriptions: create, find, pause, resume, remove, preview, and pause on a dead channel.

The records are :class:`~suggestbot.store.records.Digest` (also listed on App Home); what posts
them is :mod:`suggestbot.flows.digests.wave`.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from typing import Any

from suggestbot.contentapi import ContentApiError
from suggestbot.flows.common import access, interactions, slackio
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.digests.content import pair_of, render
from suggestbot.flows.digests.schedule import Schedule, from_epoch, next_fire
from suggestbot.flows.home import tab as home
from suggestbot.flows.inspiration.showing import Asker, Pair, image_url, read_newest, tell
from suggestbot.store.records import Digest
from suggestbot.ui.blocks.digest_notices import (
    added_text,
    build_digest_not_found,
    build_digest_removed,
    build_digest_toggled,
    build_paused_dm,
)
from suggestbot.ui.blocks.digests import build_digest_list
from suggestbot.ui.blocks.inspiration_notices import build_content_unavailable

log = logging.getLogger(__name__)


def schedule_of(digest: Digest) -> Schedule:
    """The schedule a stored digest follows."""
    return Schedule.of(time=digest.time, tz=digest.tz, weekdays=digest.weekdays)


def create(
    deps: Deps,
    *,
    team_id: str,
    channel_id: str,
    user_id: str,
    pair: Pair,
    time: str,
    tz: str,
    weekdays: Collection[int],
    quiet_when_unchanged: bool,
    lang: str,
) -> Digest:
    """A new active digest; a time already past today first fires on the next chosen day."""
    now = deps.clock()
    # Carried out again after a crash, a submission finds the digest it already created.
    wanted: str | None = interactions.derived_id("digest")[:8] if interactions.current() else None
    while True:
        ids = {"id": wanted} if wanted else {}
        digest = Digest(
            **ids,
            team_id=team_id,
            channel_id=channel_id,
            created_by=user_id,
            segment_id=pair.segment_id,
            use_case_id=pair.use_case_id,
            segment_name=pair.segment_name,
            use_case_name=pair.use_case_name,
            time=time,
            tz=tz,
            weekdays=sorted(set(weekdays)),
            quiet_when_unchanged=quiet_when_unchanged,
            lang=lang,
            created_at=now,
            active_since=now,
        )
        if deps.records.digests.put_if_absent(digest.id, digest):
            log.info("digest %s created for channel %s", digest.id, channel_id)
            home.refresh(deps, team_id=team_id, user_id=user_id)
            return digest
        if wanted is not None:
            earlier = deps.records.digests.get(wanted)
            if earlier is not None and (earlier.created_by, earlier.channel_id) == (
                user_id,
                channel_id,
            ):
                return earlier
            wanted = None  # another digest holds that id: a fresh one, as always


def visible(deps: Deps, *, team_id: str, channel_id: str, user_id: str) -> list[Digest]:
    """The channel's digests, then the user's own in other channels."""
    digests = deps.records.digests
    here = digests.matching(team_id=team_id, channel_id=channel_id)
    theirs = digests.matching(team_id=team_id, created_by=user_id)
    elsewhere = [d for d in theirs if d.channel_id != channel_id]
    return sorted(here, key=lambda d: d.created_at) + sorted(elsewhere, key=lambda d: d.created_at)


def find(deps: Deps, asker: Asker, ref: str, *, change: bool = False) -> Digest | None:
    """The digest ``ref`` names (its id or the start of it); without ``ref``, the channel's only
    digest. Only digests the asker may read (or, with ``change``, change) are considered
    (:mod:`suggestbot.flows.common.access`). None when there is no such digest or the choice is not
    unique."""
    ref = ref.strip().lower()
    digests = deps.records.digests
    if ref:
        named = [d for d in digests.matching(team_id=asker.team_id) if d.id.startswith(ref)]
    else:
        named = digests.matching(team_id=asker.team_id, channel_id=asker.channel_id)
    person = _person(asker)
    matches = [d for d in named if access.digest(deps, person, d.id, change=change) is not None]
    return matches[0] if len(matches) == 1 else None


def _person(asker: Asker) -> access.Person:
    return access.Person(asker.team_id, asker.user_id, asker.channel_id)


def tell_not_found(deps: Deps, asker: Asker, ref: str) -> None:
    """No single digest of the asker's workspace matches ``ref``."""
    tell(deps, asker, build_digest_not_found(lang=deps.lang_of(asker.user_id), ref=ref))


def list_for(deps: Deps, asker: Asker) -> None:
    """Tell the asker the digests of their channel, with when each posts next; which of
    them they may change (their own, or all of them for an admin).
    """
    lang = deps.lang_of(asker.user_id)
    digests = visible(
        deps, team_id=asker.team_id, channel_id=asker.channel_id, user_id=asker.user_id
    )
    now = from_epoch(deps.clock())
    next_fires = {d.id: None if d.paused else next_fire(schedule_of(d), after=now) for d in digests}
    theirs = {d.id for d in digests if d.created_by == asker.user_id}
    if len(theirs) < len(digests) and access.is_admin(deps, asker.user_id):
        theirs = {d.id for d in digests}  # the others are this channel's, which they are in
    message = build_digest_list(
        lang=lang,
        digests=digests,
        next_fires=next_fires,
        channel_id=asker.channel_id,
        changeable=theirs,
    )
    tell(deps, asker, message)


def describe_added(digest: Digest, *, lang: str, now: float) -> str:
    """The sentence that confirms a new digest, with its next posting after ``now``."""
    upcoming = next_fire(schedule_of(digest), after=from_epoch(now))
    return added_text(lang=lang, digest=digest, next_fire=upcoming)


def _allowed(deps: Deps, asker: Asker, digest_id: str, *, change: bool) -> Digest | None:
    """The digest, if the asker may read it (or change it): its creator, or a member of its
    channel (an admin, to change another's). Ids travel in button values and typed commands,
    and one install serves many workspaces: anything else is "not found"."""
    return access.digest(deps, _person(asker), digest_id, change=change)


def set_paused(deps: Deps, asker: Asker, digest_id: str, *, paused: bool) -> None:
    """Pause or resume by hand. Resuming never posts a time already past today."""
    now = deps.clock()
    if _allowed(deps, asker, digest_id, change=True) is None:
        tell_not_found(deps, asker, digest_id)
        return

    def change(d: Digest) -> Digest:
        if paused:
            return d.model_copy(update={"paused": True, "paused_reason": None})
        return d.model_copy(update={"paused": False, "paused_reason": None, "active_since": now})

    updated = deps.records.digests.update(digest_id, change)
    if updated is None:
        tell_not_found(deps, asker, digest_id)
        return
    lang = deps.lang_of(asker.user_id)
    tell(deps, asker, build_digest_toggled(lang=lang, digest=updated, paused=paused))
    home.refresh(deps, team_id=updated.team_id, user_id=updated.created_by)


def remove(deps: Deps, asker: Asker, digest_id: str) -> None:
    """Remove a digest the asker may change, tell them, and refresh its creator's Home.

    A digest that does not exist, or is not theirs to change, gets the same "not found".
    """
    digest = _allowed(deps, asker, digest_id, change=True)
    if digest is None or not deps.records.digests.delete(digest_id):
        tell_not_found(deps, asker, digest_id)
        return
    log.info("digest %s removed by %s", digest_id, asker.user_id)
    tell(deps, asker, build_digest_removed(lang=deps.lang_of(asker.user_id), digest=digest))
    home.refresh(deps, team_id=digest.team_id, user_id=digest.created_by)


def preview(deps: Deps, asker: Asker, digest_id: str) -> None:
    """Show the digest as it would be posted now, to the asker only; changes nothing."""
    digest = _allowed(deps, asker, digest_id, change=False)
    if digest is None:
        tell_not_found(deps, asker, digest_id)
        return
    try:
        found = read_newest(deps, pair_of(digest), asset_urls=True)
    except ContentApiError as exc:
        log.warning("reading ready-made content for a preview failed (%s)", exc)
        tell(deps, asker, build_content_unavailable(lang=deps.lang_of(asker.user_id)))
        return
    urls = {}
    for suggestion in found.suggestions if found else []:
        url = image_url(suggestion)
        if suggestion.asset is not None and url:
            urls[str(suggestion.asset.ref)] = url
    message = render(digest, found, urls=urls, late_note=None, always_show=True)
    assert message is not None
    tell(deps, asker, message)


def pause_unreachable(deps: Deps, digest_id: str, error: str) -> bool:
    """The channel no longer takes the bot's posts: pause the digest and tell its creator by
    DM (once, on the change). Returns whether this call paused it."""
    now = deps.clock()
    changed = [False]

    def change(d: Digest) -> Digest:
        update: dict[str, Any] = {"last_error": error, "last_error_at": now}
        if not d.paused:
            changed[0] = True
            update.update({"paused": True, "paused_reason": error})
        return d.model_copy(update=update)

    digest = deps.records.digests.update(digest_id, change)
    if digest is None or not changed[0]:
        return False
    home.refresh(deps, team_id=digest.team_id, user_id=digest.created_by)
    log.warning("digest %s paused: channel %s answered %s", digest.id, digest.channel_id, error)
    lang = deps.lang_of(digest.created_by)
    try:
        slackio.post(
            deps,
            channel=slackio.open_dm(deps, digest.created_by),
            message=build_paused_dm(lang=lang, digest=digest, error=error),
        )
    except Exception:
        log.exception("could not tell %s that digest %s paused", digest.created_by, digest.id)
    return True


def record_error(deps: Deps, digest_id: str, error: str) -> None:
    """Keep the last error a digest's posting met (shown in its list entry)."""
    now = deps.clock()
    deps.records.digests.update(
        digest_id, lambda d: d.model_copy(update={"last_error": error, "last_error_at": now})
    )
