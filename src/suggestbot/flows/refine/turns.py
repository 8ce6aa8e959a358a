"""Posting a succeeded refinement as "Turn n" in its Slack thread, exactly once.

The refinement's status reply becomes the turn (``chat.update`` is idempotent, so a crash and a
second attempt change nothing); a body too long for one message continues in replies that are
claimed before posting, as the variants of a brief are. The binding's head moves on first, so a
reply to the turn refines it; last the thread's root shows the new head and turn count.
"""

from __future__ import annotations

import logging

from suggestbot.contentapi import (
    GenerationRun,
    SocialSingleImagePayload,
    Suggestion,
    Thread,
)
from suggestbot.flows.common import live_status, slackio, threads
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.common.variants import asset_ref, mint_urls, minted_url, shown_variant
from suggestbot.flows.feedback.votes import feedback_value
from suggestbot.store.marks import PostMark
from suggestbot.store.records import PostedVariant, Request
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.results import Button, Message, Variant
from suggestbot.ui.blocks.turns import build_turn_messages

log = logging.getLogger(__name__)


def turn_variant(suggestion: Suggestion, *, urls: dict[str, str], request_id: str) -> Variant:
    """A refined suggestion as shown in its turn, with Refine… (and Refresh preview)."""
    buttons = [Button("refine.button", ids.ACTION_REFINE_OPEN, suggestion.id)]
    if isinstance(suggestion.payload, SocialSingleImagePayload):
        buttons.append(Button("variant.refresh", ids.ACTION_REFRESH_TURN, request_id))
    return shown_variant(
        suggestion,
        number=1,
        total=1,
        image_url=minted_url(suggestion, urls),
        buttons=buttons,
        feedback=feedback_value(request_id, 1),
    )


def turn_number(thread: Thread | None, suggestion_id: str, *, fallback: int) -> int:
    """The turn (``version``) that holds the suggestion, as the service numbers it."""
    if thread is not None:
        for turn in thread.turns or []:
            if turn.suggestion_id == suggestion_id:
                return turn.version
        if thread.head_suggestion_id == suggestion_id:
            return thread.turn_count
    return fallback


def _next_turn(binding: threads.ThreadBinding | None, suggestion_id: str) -> int:
    """The turn number when the service's thread cannot be read: the binding's next, or its
    own when an earlier attempt already moved the head to this suggestion."""
    if binding is None:
        return 2
    if binding.head_suggestion_id == suggestion_id:
        return binding.turn_count
    return binding.turn_count + 1


def _messages(deps: Deps, req: Request, suggestion: Suggestion, turn: int) -> list[Message]:
    ref = asset_ref(suggestion)
    urls = mint_urls(deps, [ref] if ref else [])
    return build_turn_messages(
        lang=req.posts_lang,
        turn=turn,
        instruction=str(req.body.get("instruction") or ""),
        author=req.user_id,
        variant=turn_variant(suggestion, urls=urls, request_id=req.id),
        request_id=req.id,
    )


def post_turn(deps: Deps, req: Request, run: GenerationRun) -> None:
    """Show a succeeded refinement run as the next turn of its Slack thread."""
    assert run.suggestion_id is not None
    suggestion = deps.content.get_suggestion(id=run.suggestion_id)
    binding = threads.get(deps, channel=req.channel_id, thread_ts=req.thread_ts or "")
    thread = (
        threads.find_service_thread(deps, binding, containing=suggestion.id)
        if binding is not None
        else None
    )
    turn = turn_number(thread, suggestion.id, fallback=_next_turn(binding, suggestion.id))
    if binding is not None:
        # The head moves on before the turn shows: whoever replies to what they see refines
        # it, not the turn before (which the service would refuse as ``invalid_parent``).
        binding = threads.advance(
            deps, binding, suggestion=suggestion, turn=turn, by=req.user_id, thread=thread
        )
    messages = _messages(deps, req, suggestion, turn)
    channel = req.post_channel_id or req.channel_id
    ts = req.root_ts
    if ts is None:
        ts = slackio.post(deps, channel=channel, message=messages[0], thread_ts=req.thread_ts)
    else:
        slackio.update(deps, channel=channel, ts=ts, message=messages[0])
    for index, extra in enumerate(messages[1:], start=1):
        if deps.records.posts.put_if_absent(f"{req.id}:turn:{index}", PostMark(ts=None)):
            slackio.post(deps, channel=channel, message=extra, thread_ts=req.thread_ts)
    posted = PostedVariant(
        suggestion_id=suggestion.id,
        variant_no=1,
        kind=suggestion.kind.value,
        ts=ts,
        asset_ref=asset_ref(suggestion),
    )
    deps.records.requests.update(
        req.id,
        lambda r: r.model_copy(
            update={
                "state": "done",
                "variants": [posted],
                "labels": {**r.labels, "turn": str(turn)},
            }
        ),
    )
    log.info("refinement %s posted as turn %d", req.id, turn)
    if req.root_ts is not None:
        # The status reply was replaced in place, so no reply ended the line: clear it, but
        # only now. A reply to the new turn finds the thread moved on, and is not held while
        # this call waits behind the acks in flight.
        live_status.clear(deps, req=req)
    if binding is not None:
        threads.refresh_root(deps, binding)


def refresh_turn_preview(deps: Deps, *, request_id: str, channel: str, ts: str) -> bool:
    """Mint a fresh URL for a turn's image and show the turn again, in place."""
    req = deps.records.requests.get(request_id)
    if req is None or req.kind != "refinement" or not req.variants:
        return False
    suggestion = deps.content.get_suggestion(id=req.variants[0].suggestion_id)
    turn = int(req.labels.get("turn") or 0) or 2
    slackio.update(deps, channel=channel, ts=ts, message=_messages(deps, req, suggestion, turn)[0])
    return True
