"""Which Slack threads the app started, and which lineage of the service's thread each follows.

A Slack thread maps to one lineage (design §3): a set of variants (a brief's results, shared
ready-made content) is offered until the first refinement picks one; from then on every reply
refines the lineage's current head, so threads never branch. A saved draft starts with its only
suggestion chosen.

Whoever posts a thread root binds it with :func:`bind_thread`, or many at once with
:func:`bind_many` (a brief's root is bound lazily, on its first reply, from the request recorded
for it). The service thread's id is kept once known: depending on the reading of the contract
(design §4) it exists from the root on, or only from the first refinement, so it is looked up by
listing threads and matching the head.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from typing import Any

from suggestbot.contentapi import ContentApiError, NotFound, Suggestion, Thread
from suggestbot.flows.common import requests, slackio
from suggestbot.flows.common.deps import Deps
from suggestbot.store.records import Table
from suggestbot.store.thread_bindings import BoundSuggestion, ThreadBinding, binding_key
from suggestbot.ui.blocks.results import Message
from suggestbot.ui.blocks.turns import ThreadStatus, build_thread_status

log = logging.getLogger(__name__)

# Looking a thread up walks the listing newest first; a root older than this many threads of
# its segment and use case is given up on (its thread id is then learnt at the next turn).
LOOKUP_PAGE_SIZE = 100
LOOKUP_MAX_PAGES = 10
# Reading a thread's turns costs one call each; only this many refined threads are read.
TURN_SCAN_MAX = 50


class NotReady(Exception):
    """The thread belongs to a brief whose results have not been posted yet."""


def table(deps: Deps) -> Table[ThreadBinding]:
    """The bindings of the Slack threads the app started."""
    return deps.records.thread_bindings


def bound(suggestion: Suggestion, *, ts: str | None = None) -> BoundSuggestion:
    """What a binding keeps of a suggestion the thread shows (``ts``: its message, if any)."""
    return BoundSuggestion(
        suggestion_id=suggestion.id,
        variant_no=suggestion.variant_no,
        kind=suggestion.kind.value,
        has_image=suggestion.asset is not None,
        ts=ts,
    )


def _without_images(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The blocks minus every image (signed URLs are credentials and are never stored)."""
    kept = []
    for block in blocks:
        if block.get("type") == "image":
            continue
        accessory = block.get("accessory")
        if isinstance(accessory, dict) and accessory.get("type") == "image":
            block = {k: v for k, v in block.items() if k != "accessory"}
        if block.get("type") == "context":
            elements = [e for e in block.get("elements") or [] if e.get("type") != "image"]
            if not elements:
                continue
            block = {**block, "elements": elements}
        kept.append(block)
    return kept


def bind_thread(deps: Deps, binding: ThreadBinding) -> ThreadBinding:
    """Make replies in the binding's Slack thread refine its suggestions; idempotent.

    ``binding`` comes from :func:`new_binding`. Returns the binding as stored (an earlier
    binding of the same thread wins).
    """
    bindings = table(deps)
    if not bindings.put_if_absent(binding.key, binding):
        existing = bindings.get(binding.key)
        if existing is not None:
            return existing
    log.info(
        "bound Slack thread %s (%s, %d suggestion(s))",
        binding.key,
        binding.origin,
        len(binding.suggestions),
    )
    return binding


def bind_many(deps: Deps, bindings: Sequence[ThreadBinding]) -> int:
    """Store the bindings of threads not bound yet, in one commit (a digest wave binds many
    roots at once); earlier bindings win. Returns how many were new."""
    if not bindings:
        return 0
    stored = table(deps).put_many_if_absent({b.key: b for b in bindings})
    log.info("bound %d Slack thread(s) (%s)", len(stored), bindings[0].origin)
    return len(stored)


def new_binding(
    *,
    team_id: str,
    channel: str,
    thread_ts: str,
    suggestions: Sequence[BoundSuggestion],
    origin: str,
    owner_user_id: str | None = None,
    segment_id: str | None = None,
    use_case_id: str | None = None,
    labels: dict[str, str] | None = None,
    root: Message | None = None,
    request_id: str | None = None,
    lang: str = "en",
) -> ThreadBinding:
    """A thread's binding, built but not stored (see :func:`bind_thread`, :func:`bind_many`).

    Args:
        suggestions: what the thread offers, usually from :func:`bound`; with one, it is chosen
            at once, with several the first refinement picks one (``N:`` or a button).
        origin: what started the thread ("brief", "draft", "inspiration"), for display.
        segment_id, use_case_id: the suggestions' segment and use case; used to find the
            service thread by listing (without them the whole listing is searched).
        root: the root message as posted; when given, the root is updated in place to show the
            current head and turn count (image blocks are not kept).
        request_id: the brief request whose root this is (its root is rebuilt from it).
    """
    if not suggestions:
        raise ValueError("a thread must offer at least one suggestion")
    ordered = sorted(suggestions, key=lambda s: s.variant_no)
    binding = ThreadBinding(
        team_id=team_id,
        channel=channel,
        thread_ts=thread_ts,
        origin=origin,
        owner_user_id=owner_user_id,
        lang=lang,
        request_id=request_id,
        segment_id=segment_id,
        use_case_id=use_case_id,
        labels=dict(labels or {}),
        suggestions=list(ordered),
        root=(
            {"text": root.text, "blocks": _without_images(root.blocks)}
            if root is not None
            else None
        ),
    )
    if len(ordered) == 1:
        only = ordered[0]
        binding = binding.model_copy(
            update={
                "chosen_variant": only.variant_no,
                "head_suggestion_id": only.suggestion_id,
                "head_kind": only.kind,
                "head_has_image": only.has_image,
            }
        )
    return binding


def get(deps: Deps, *, channel: str, thread_ts: str) -> ThreadBinding | None:
    """The binding of a Slack thread if one was recorded (no look-up in Slack)."""
    return table(deps).get(binding_key(channel, thread_ts))


def binding_of(deps: Deps, *, channel: str, thread_ts: str) -> ThreadBinding | None:
    """The binding of a Slack thread, binding a brief's root on first use.

    Raises:
        NotReady: the thread is a brief's whose variants are not posted yet.
    """
    found = get(deps, channel=channel, thread_ts=thread_ts)
    if found is not None:
        return found
    shared = _bind_shared_post(deps, channel=channel, thread_ts=thread_ts)
    if shared is not None:
        return shared
    request_id = _root_request_id(deps, channel=channel, thread_ts=thread_ts)
    req = deps.records.requests.get(request_id) if request_id else None
    if req is None or req.kind != "brief":
        return None
    if not req.variants:  # recorded once every variant is in its thread
        raise NotReady(req.id)
    return bind_thread(
        deps,
        new_binding(
            team_id=req.team_id,
            channel=channel,
            thread_ts=thread_ts,
            suggestions=[
                BoundSuggestion(
                    suggestion_id=v.suggestion_id,
                    variant_no=v.variant_no,
                    kind=v.kind,
                    has_image=v.asset_ref is not None,
                    ts=v.ts,
                )
                for v in req.variants
            ],
            origin="brief",
            owner_user_id=req.user_id,
            segment_id=req.body.get("segment_id"),
            use_case_id=req.body.get("use_case_id"),
            labels=req.labels,
            request_id=req.id,
            lang=req.posts_lang,
        ),
    )


def _bind_shared_post(deps: Deps, *, channel: str, thread_ts: str) -> ThreadBinding | None:
    """Bind a root posted from ready-made content (shared inspiration, a digest), which its
    poster recorded in the ``shared_posts`` table under the same key."""
    post = deps.records.shared_posts.get(binding_key(channel, thread_ts))
    raw = post.model_dump(mode="json") if post else None
    if not raw:
        return None
    ids = [str(i) for i in raw.get("suggestion_ids") or []]
    numbers = [int(n) for n in raw.get("variant_nos") or range(1, len(ids) + 1)]
    kinds = [str(k) for k in raw.get("kinds") or []]
    if not ids or len(numbers) != len(ids):
        return None
    offered = [
        BoundSuggestion(
            suggestion_id=sid,
            variant_no=number,
            kind=kinds[i] if i < len(kinds) else "email",
            has_image=(kinds[i] if i < len(kinds) else "") == "social_single_image",
        )
        for i, (sid, number) in enumerate(zip(ids, numbers, strict=True))
    ]
    owner = raw.get("posted_by")
    return bind_thread(
        deps,
        new_binding(
            team_id=str(raw.get("team_id") or ""),
            channel=channel,
            thread_ts=thread_ts,
            suggestions=offered,
            origin=str(raw.get("source") or "inspiration"),
            owner_user_id=str(owner) if owner else None,
            segment_id=raw.get("segment_id"),
            use_case_id=raw.get("use_case_id"),
        ),
    )


def _root_request_id(deps: Deps, *, channel: str, thread_ts: str) -> str | None:
    """The request named in the metadata of the thread's root, if the app posted it."""
    try:
        page: Any = deps.slack.conversations_replies(
            channel=channel, ts=thread_ts, limit=1, include_all_metadata=True
        )
    except Exception as exc:  # a thread we cannot read is not one we can refine
        log.info("could not read the root of thread %s (%s)", thread_ts, type(exc).__name__)
        return None
    messages = page.get("messages") or []
    if not messages or str(messages[0].get("ts")) != thread_ts:
        return None
    metadata = messages[0].get("metadata") or {}
    payload = metadata.get("event_payload") or {}
    if metadata.get("event_type") != slackio.METADATA_TYPE or payload.get("role") != "root":
        return None
    request_id = payload.get("request_id")
    return str(request_id) if request_id else None


def choose(deps: Deps, binding: ThreadBinding, number: int) -> ThreadBinding:
    """Bind the thread to variant ``number`` unless a variant is chosen already (first wins)."""
    picked = binding.variant(number)
    if picked is None:
        return binding

    def pick(current: ThreadBinding) -> ThreadBinding:
        if current.head_suggestion_id is not None:
            return current
        return current.model_copy(
            update={
                "chosen_variant": picked.variant_no,
                "head_suggestion_id": picked.suggestion_id,
                "head_kind": picked.kind,
                "head_has_image": picked.has_image,
            }
        )

    return table(deps).update(binding.key, pick) or binding


def advance(
    deps: Deps,
    binding: ThreadBinding,
    *,
    suggestion: Suggestion,
    turn: int,
    by: str | None,
    thread: Thread | None,
) -> ThreadBinding:
    """Record a new turn as the lineage's head. Never moves back to an older turn."""

    def move(current: ThreadBinding) -> ThreadBinding:
        changes: dict[str, Any] = {}
        if thread is not None:
            changes["service_thread_id"] = thread.id
            changes["thread_name"] = thread.name or current.thread_name
        if turn >= current.turn_count:
            changes.update(
                head_suggestion_id=suggestion.id,
                head_kind=suggestion.kind.value,
                head_has_image=suggestion.asset is not None,
                turn_count=turn,
                last_turn_by=by,
            )
        return current.model_copy(update=changes)

    return table(deps).update(binding.key, move) or binding


def set_head(
    deps: Deps, binding: ThreadBinding, *, thread: Thread, head: Suggestion
) -> ThreadBinding:
    """Follow the service's view of the thread (after ``invalid_parent``), whatever we knew."""

    def move(current: ThreadBinding) -> ThreadBinding:
        return current.model_copy(
            update={
                "service_thread_id": thread.id,
                "thread_name": thread.name or current.thread_name,
                "head_suggestion_id": head.id,
                "head_kind": head.kind.value,
                "head_has_image": head.asset is not None,
                "turn_count": thread.turn_count,
            }
        )

    return table(deps).update(binding.key, move) or binding


def renamed(deps: Deps, binding: ThreadBinding, *, thread: Thread) -> ThreadBinding:
    """Keep the service thread's id and (stored, normalised) name."""

    def rename(current: ThreadBinding) -> ThreadBinding:
        return current.model_copy(
            update={"service_thread_id": thread.id, "thread_name": thread.name}
        )

    return table(deps).update(binding.key, rename) or binding


def find_service_thread(
    deps: Deps, binding: ThreadBinding, *, containing: str | None = None
) -> Thread | None:
    """The service's thread of this lineage, with its turns, or None while it has none.

    Read with the machine token (it sees the whole tenant). Once known by id it is read
    directly; before that, the listing (filtered by segment and use case) is searched for the
    thread whose head is ``containing`` (default: the binding's head) or, failing that, whose
    turns include it (a head that moved on without us).
    """
    if binding.service_thread_id:
        try:
            return deps.content.get_thread(thread_id=binding.service_thread_id)
        except NotFound:
            log.warning("thread %s of %s is gone", binding.service_thread_id, binding.key)
    wanted = containing or binding.head_suggestion_id
    if wanted is None:
        return None
    try:
        refined: list[str] = []
        for page_no, found in enumerate(_thread_pages(deps, binding)):
            match = next((t for t in found if t.head_suggestion_id == wanted), None)
            if match is not None:
                return deps.content.get_thread(thread_id=match.id)
            refined += [t.id for t in found if t.turn_count > 1]
            if page_no + 1 >= LOOKUP_MAX_PAGES:
                break
        for thread_id in refined[:TURN_SCAN_MAX]:
            thread = deps.content.get_thread(thread_id=thread_id)
            if any(turn.suggestion_id == wanted for turn in thread.turns or []):
                return thread
    except ContentApiError as exc:
        log.warning("looking up the thread of %s failed: %s", binding.key, exc)
    return None


def _thread_pages(deps: Deps, binding: ThreadBinding) -> Iterator[list[Thread]]:
    cursor: str | None = None
    while True:
        page = deps.content.list_threads_page(
            cursor=cursor,
            segment_id=binding.segment_id,
            use_case_id=binding.use_case_id,
            limit=LOOKUP_PAGE_SIZE,
        )
        yield page.items
        cursor = page.next_cursor
        if not cursor:
            return


def remember_thread(deps: Deps, binding: ThreadBinding) -> ThreadBinding:
    """Learn the service thread's id (and name) if it exists already; best effort."""
    if binding.service_thread_id:
        return binding
    thread = find_service_thread(deps, binding)
    return renamed(deps, binding, thread=thread) if thread is not None else binding


def thread_status(binding: ThreadBinding) -> ThreadStatus:
    """What a thread's root shows about it (name, turns, chosen variant, who refined last)."""
    return ThreadStatus(
        name=binding.thread_name,
        turn_count=binding.turn_count,
        chosen_variant=binding.chosen_variant,
        variants=len(binding.suggestions),
        last_turn_by=binding.last_turn_by,
        can_rename=binding.service_thread_id is not None,
        thread_key=binding.key,
    )


def refresh_root(deps: Deps, binding: ThreadBinding) -> None:
    """Show the lineage's head and turn count under the thread's root (best effort)."""
    fresh = get(deps, channel=binding.channel, thread_ts=binding.thread_ts) or binding
    base: Message | None = None
    if fresh.request_id:
        req = deps.records.requests.get(fresh.request_id)
        base = requests.root_message(req) if req is not None else None
    elif fresh.root is not None:
        base = Message(text=str(fresh.root.get("text") or ""), blocks=list(fresh.root["blocks"]))
    if base is None:
        return
    extra = build_thread_status(lang=fresh.lang, status=thread_status(fresh))
    message = Message(text=base.text, blocks=[*base.blocks, *extra])
    try:
        slackio.update(deps, channel=fresh.channel, ts=fresh.thread_ts, message=message)
    except Exception:
        log.exception("could not update the root of thread %s", fresh.key)
