"""A suggestion of the service turned into a variant as Slack shows it: the one presenter.

A brief's results, a refinement's turn, an inspiration answer, a shared variant and a digest
all show suggestions; what differs is only which buttons go with it, its number, and where its
image URL comes from (minted right before posting, or already in the answer). Image URLs are
credentials: they live in memory only, never in a record.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from suggestbot.contentapi import (
    ContentApiError,
    EmailPayload,
    SocialSingleImagePayload,
    Suggestion,
)
from suggestbot.flows.common.deps import Deps
from suggestbot.ui.blocks.results import Button, Variant

log = logging.getLogger(__name__)


def shown_variant(
    suggestion: Suggestion,
    *,
    total: int,
    image_url: str | None,
    number: int | None = None,
    buttons: Sequence[Button] = (),
    feedback: str | None = None,
) -> Variant:
    """``suggestion`` as the builders show it.

    Args:
        suggestion: what the service returned.
        total: how many variants the set shown holds.
        image_url: a fresh URL of its image, or None (shown without a preview).
        number: its number as shown; the suggestion's own ``variant_no`` when None.
        buttons: the buttons under it (Refine…, Refresh preview …).
        feedback: what its feedback buttons carry; None shows none.
    """
    payload = suggestion.payload
    subject = payload.subject if isinstance(payload, EmailPayload) else None
    alt = payload.asset.alt_text if isinstance(payload, SocialSingleImagePayload) else None
    return Variant(
        suggestion_id=suggestion.id,
        number=suggestion.variant_no if number is None else number,
        total=total,
        kind=suggestion.kind.value,
        body=payload.body,
        subject=subject,
        image_url=image_url,
        alt_text=alt,
        rationale=suggestion.rationale,
        buttons=buttons,
        feedback=feedback,
    )


def asset_ref(suggestion: Suggestion) -> str | None:
    """The ref of the suggestion's image, or None for a kind without one."""
    asset = suggestion.asset
    return None if asset is None else str(asset.ref)


def minted_url(suggestion: Suggestion, urls: Mapping[str, str]) -> str | None:
    """The URL minted for the suggestion's image (see :func:`mint_urls`), if any."""
    ref = asset_ref(suggestion)
    return None if ref is None else urls.get(ref)


def mint_urls(deps: Deps, refs: Sequence[str]) -> dict[str, str]:
    """Fresh signed URLs by ref, minted in one batched call right before posting.

    A failure costs only the previews (the message then says how to refresh), never the post.
    The URLs live in memory only: they are credentials.

    Args:
        deps: the ports (the machine's service client).
        refs: the image refs to mint URLs for.

    Returns:
        ``{ref: url}``; empty when there are no refs or minting failed.
    """
    if not refs:
        return {}
    try:
        minted = deps.content.mint_asset_urls(refs=list(refs))
    except ContentApiError as exc:
        log.warning("minting %d image URLs failed (%s); posting without previews", len(refs), exc)
        return {}
    return {m.ref: m.reveal_url() for m in minted}
