"""Sharing a shown variant: posted once as a root message in the answer's channel, recorded as a
:class:`~suggestbot.store.records.SharedPost` and its Slack thread bound to the service's thread,
so replies there refine it. "Refine…" shares first, then opens that thread's Refine… modal.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from slack_sdk.errors import SlackApiError

from suggestbot.contentapi import (
    ContentApiError,
    Suggestion,
    SuggestionKind,
)
from suggestbot.flows.common import slackio, threads, workspace_language
from suggestbot.flows.common.channel_posts import find_in_channel
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.common.pacing import PACER
from suggestbot.flows.common.variants import shown_variant
from suggestbot.flows.inspiration.showing import (
    SHARE_ROLE,
    Asker,
    Pair,
    image_url,
    offers,
    tell,
    tell_offer_gone,
    tell_unavailable,
)
from suggestbot.flows.linking import accounts as linking
from suggestbot.store.marks import ShareMark
from suggestbot.store.offers import Offer, share_key
from suggestbot.store.records import SharedPost, shared_post_key
from suggestbot.ui.blocks.inspiration import (
    Labels,
    build_shared_messages,
)
from suggestbot.ui.blocks.inspiration_notices import (
    SharedWhere,
    build_cannot_post,
    build_shared_notice,
)
from suggestbot.ui.blocks.thread_modals import build_refine_modal
from suggestbot.ui.payloads import dump_metadata

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Shared:
    channel_id: str
    ts: str
    already: bool = False


def _suggestion_with_url(
    deps: Deps, offer: Offer, suggestion_id: str
) -> tuple[Suggestion, int, str | None]:
    """The suggestion as shown, with a fresh image URL: the same version read again (one call
    that also mints the URLs), else the suggestion itself and one mint."""
    if offer.version is not None:
        pair = Pair(offer.segment_id, offer.segment_name, offer.use_case_id, offer.use_case_name)
        sets = deps.content.get_inspiration(
            segment_id=pair.segment_id,
            use_case_id=pair.use_case_id,
            locale=offer.locale,
            version=offer.version,
            asset_urls=True,
        )
        for suggestion in sets[0].suggestions if sets else []:
            if suggestion.id == suggestion_id:
                return suggestion, len(sets[0].suggestions), image_url(suggestion)
    suggestion = deps.content.get_suggestion(id=suggestion_id)
    url = None
    if suggestion.asset is not None:
        try:
            minted = deps.content.mint_asset_urls(refs=[str(suggestion.asset.ref)])
            url = minted[0].reveal_url()
        except ContentApiError as exc:
            log.warning("minting an image URL failed (%s); sharing without a preview", exc)
    return suggestion, len(offer.variants), url


def share(deps: Deps, asker: Asker, *, offer_id: str, suggestion_id: str) -> Shared | None:
    """Post one variant of an answer as a root message in the answer's channel, once.

    Returns where it is, or None after telling the user why it could not be shared.
    """
    lang = deps.lang_of(asker.user_id)
    offer = offers(deps).get(offer_id)
    offered = (
        next((v for v in offer.variants if v.suggestion_id == suggestion_id), None)
        if offer
        else None
    )
    if offer is None or offered is None:
        tell_offer_gone(deps, asker)
        return None
    channel = offer.channel_id
    key = share_key(offer.id, offered.variant_no)
    marks = deps.records.shares
    if not marks.put_if_absent(key, ShareMark(state="intent", at=deps.clock())):
        existing = marks.get(key)
        if existing is not None and existing.ts:
            return Shared(channel_id=channel, ts=existing.ts, already=True)
        found = find_in_channel(
            deps,
            channel=channel,
            since=(existing.at if existing else None) or 0.0,
            matches=lambda p: p.get("role") == SHARE_ROLE and p.get("share") == key,
        )
        if found:
            marks.put(key, ShareMark(state="posted", ts=found))
            return Shared(channel_id=channel, ts=found, already=True)
    try:
        suggestion, total, url = _suggestion_with_url(deps, offer, suggestion_id)
    except ContentApiError as exc:
        marks.delete(key)
        log.warning("reading the suggestion to share failed (%s)", exc)
        tell_unavailable(deps, asker)
        return None
    # The channel reads it: in the workspace's language (what only the asker sees is theirs).
    posts_lang = (
        lang if workspace_language.is_dm(channel) else workspace_language.of(deps, offer.team_id)
    )
    messages = build_shared_messages(
        lang=posts_lang,
        variant=shown_variant(suggestion, total=total, image_url=url),
        shared_by=asker.user_id,
        labels=Labels(segment=offer.segment_name, use_case=offer.use_case_name),
        version=offer.version,
    )
    try:
        PACER.wait(channel)
        ts = slackio.post(
            deps,
            channel=channel,
            message=messages[0],
            metadata={"role": SHARE_ROLE, "share": key},
        )
        PACER.posted(channel)
    except SlackApiError as exc:
        marks.delete(key)
        error = slackio.slack_error(exc)
        if error in slackio.UNREACHABLE_CHANNEL:
            tell(deps, asker, build_cannot_post(lang=lang, channel_id=channel))
            return None
        raise
    marks.put(key, ShareMark(state="posted", ts=ts))
    for extra in messages[1:]:
        slackio.post(deps, channel=channel, message=extra, thread_ts=ts)
    record_shared(
        deps,
        labels=Labels(segment=offer.segment_name, use_case=offer.use_case_name),
        lang=posts_lang,
        post=SharedPost(
            team_id=offer.team_id,
            channel_id=channel,
            ts=ts,
            source="inspiration",
            posted_by=asker.user_id,
            suggestion_ids=[suggestion.id],
            variant_nos=[suggestion.variant_no],
            kinds=[suggestion.kind.value],
            suggestion_set_id=offer.suggestion_set_id,
            segment_id=offer.segment_id,
            use_case_id=offer.use_case_id,
            locale=offer.locale,
            version=offer.version,
            created_at=deps.clock(),
        ),
    )
    return Shared(channel_id=channel, ts=ts)


@dataclass(frozen=True)
class SharedRoot:
    """A root message posted from ready-made content, and how its thread's binding shows it."""

    post: SharedPost
    labels: Labels
    lang: str


def record_shared(deps: Deps, post: SharedPost, *, labels: Labels, lang: str) -> None:
    """Keep what a root message holds (under ``"{channel}:{ts}"``) and bind its Slack thread,
    so replies there refine what it shows.

    The record is written first: should binding fail, the thread is bound from it on its first
    reply instead.
    """
    record_shared_many(deps, [SharedRoot(post=post, labels=labels, lang=lang)])


def record_shared_many(deps: Deps, roots: Sequence[SharedRoot]) -> None:
    """:func:`record_shared` for many roots, in one commit per table (a digest wave posts dozens
    of roots a second, and every commit costs an fsync)."""
    if not roots:
        return
    deps.records.shared_posts.put_many(
        {shared_post_key(root.post.channel_id, root.post.ts): root.post for root in roots}
    )
    try:
        threads.bind_many(deps, [_binding_of(root) for root in roots])
    except Exception:
        log.exception("binding %d thread(s) failed; each is bound on its first reply", len(roots))


def _binding_of(root: SharedRoot) -> threads.ThreadBinding:
    post = root.post
    return threads.new_binding(
        team_id=post.team_id,
        channel=post.channel_id,
        thread_ts=post.ts,
        suggestions=[
            threads.BoundSuggestion(
                suggestion_id=sid,
                variant_no=number,
                kind=kind,
                has_image=kind == SuggestionKind.SOCIAL_SINGLE_IMAGE.value,
            )
            for sid, number, kind in zip(
                post.suggestion_ids, post.variant_nos, post.kinds, strict=True
            )
        ],
        origin=post.source,
        owner_user_id=post.posted_by,
        segment_id=post.segment_id,
        use_case_id=post.use_case_id,
        labels={"segment": root.labels.segment, "use_case": root.labels.use_case},
        lang=root.lang,
    )


def _tell_shared(deps: Deps, asker: Asker, shared: Shared, *, where: SharedWhere) -> None:
    """Where the shared variant is, with a link to it when Slack gives one."""
    try:
        link = slackio.permalink(deps, channel=shared.channel_id, ts=shared.ts, urgent=True)
    except SlackApiError:
        link = None
    lang = deps.lang_of(asker.user_id)
    message = build_shared_notice(
        lang=lang, where=where, channel_id=shared.channel_id, permalink=link
    )
    tell(deps, asker, message)


def share_pressed(deps: Deps, asker: Asker, *, offer_id: str, suggestion_id: str) -> None:
    """ "Share": post the variant once in the answer's channel and tell the person where it is."""
    shared = share(deps, asker, offer_id=offer_id, suggestion_id=suggestion_id)
    if shared is None:
        return
    _tell_shared(deps, asker, shared, where="already_shared" if shared.already else "shared")


def _open_refine_modal(deps: Deps, asker: Asker, shared: Shared, *, lang: str) -> bool:
    """The thread's own Refine… modal (its submission refines in the shared thread); only for
    a linked user, and only while the press's trigger is still valid."""
    if not asker.trigger_id:
        return False
    if not linking.is_linked(deps, team_id=asker.team_id, user_id=asker.user_id):
        return False  # replying in the thread prompts them to connect, keeping their text
    binding = threads.get(deps, channel=shared.channel_id, thread_ts=shared.ts)
    if binding is None:
        return False
    metadata = dump_metadata({"channel": shared.channel_id, "thread_ts": shared.ts, "variant": 0})
    view = build_refine_modal(
        lang=lang, private_metadata=metadata, with_image=binding.head_has_image
    )
    try:
        deps.slack.views_open(trigger_id=asker.trigger_id, view=view)
    except SlackApiError as exc:
        log.info("could not open the Refine… modal (%s)", slackio.slack_error(exc))
        return False
    return True


def refine_pressed(deps: Deps, asker: Asker, *, offer_id: str, suggestion_id: str) -> None:
    """Refining happens in a Slack thread: share the variant (once), open the Refine… modal of
    that thread for a linked user, and point to the thread."""
    shared = share(deps, asker, offer_id=offer_id, suggestion_id=suggestion_id)
    if shared is None:
        return
    lang = deps.lang_of(asker.user_id)
    _open_refine_modal(deps, asker, shared, lang=lang)
    _tell_shared(deps, asker, shared, where="refine_there")
