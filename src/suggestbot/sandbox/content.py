"""Suggestions, sets, threads and who may read them.

Threads follow the contract's section 3 and the design's §4 reading: a thread is created
together with every root suggestion (each variant of a set, each user draft) with that root as
turn 1, and each successful refinement appends a turn to its parent's thread. The
``thread_on_first_refinement`` knob switches to the other reading the contract allows: a root
gets its thread only when it is first refined (turn 1 = root, turn 2 = the refinement).

All functions here expect the caller to hold ``env.state.lock``.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from suggestbot.sandbox import generator
from suggestbot.sandbox.auth import Caller
from suggestbot.sandbox.env import Env
from suggestbot.sandbox.errors import not_found
from suggestbot.sandbox.images import image_handle
from suggestbot.sandbox.paging import SortKey
from suggestbot.sandbox.records import (
    ImageRec,
    RunRec,
    SegmentRec,
    SetRec,
    SuggestionRec,
    TenantRec,
    ThreadRec,
    TurnRec,
    UseCaseRec,
)

IMAGE_PREFIX = "image:"


# --- visibility -----------------------------------------------------------------------------


def _visible_owner(caller: Caller, tenant_id: str, owner: str | None) -> bool:
    if tenant_id != caller.tenant_id:
        return False
    return not caller.is_user or owner is None or owner == caller.user_id


def can_see_run(caller: Caller, run: RunRec) -> bool:
    if run.tenant_id != caller.tenant_id:
        return False
    return not caller.is_user or run.created_by == caller.user_id


def visible_run_order(env: Env, caller: Caller, created_by: str | None) -> Sequence[SortKey]:
    """The (created_at, id) of the runs the caller sees, filtered to one creator if asked,
    oldest first (the kept listing order; see :meth:`State.add_run`)."""
    state = env.state
    creator = caller.user_id if caller.is_user else created_by
    if caller.is_user and created_by is not None and created_by != caller.user_id:
        return ()
    if creator is None:
        return state.run_order.get(caller.tenant_id, ())
    return state.run_order_by_creator.get((caller.tenant_id, creator), ())


def can_see_thread(caller: Caller, thread: ThreadRec) -> bool:
    return _visible_owner(caller, thread.tenant_id, thread.created_by)


def can_see_set(caller: Caller, record: SetRec) -> bool:
    return _visible_owner(caller, record.tenant_id, record.created_by)


def can_see_suggestion(caller: Caller, record: SuggestionRec) -> bool:
    return _visible_owner(caller, record.tenant_id, record.owner)


# --- lookups --------------------------------------------------------------------------------


def tenant_of(env: Env, caller: Caller) -> TenantRec:
    tenant = env.state.tenants.get(caller.tenant_id)
    if tenant is None:
        raise not_found()
    return tenant


def segment_in(env: Env, tenant_id: str, segment_id: str) -> SegmentRec | None:
    """A segment of the tenant that is set up for content, or None."""
    segment = env.state.segments.get(segment_id)
    if segment is None or segment.tenant_id != tenant_id or not segment.set_up:
        return None
    return segment


def use_case_in(env: Env, tenant_id: str, use_case_id: str) -> UseCaseRec | None:
    use_case = env.state.use_cases.get(use_case_id)
    if use_case is None or use_case.tenant_id != tenant_id:
        return None
    return use_case


def context_for(
    env: Env, *, tenant_id: str, segment_id: str, use_case_id: str
) -> generator.Context:
    tenant = env.state.tenants[tenant_id]
    segment = env.state.segments[segment_id]
    use_case = env.state.use_cases[use_case_id]
    return generator.Context(
        locale=tenant.locale,
        tenant_name=tenant.name,
        segment_name=segment.name,
        segment_description=segment.description,
        use_case_name=use_case.name,
    )


def image_of(record: SuggestionRec) -> dict[str, Any] | None:
    asset = record.payload.get("asset")
    return asset if isinstance(asset, dict) else None


# --- creation -------------------------------------------------------------------------------


def new_asset_ref(tenant_id: str) -> str:
    """An opaque reference shaped like a real one: long, mixed case, with ``:``, ``/`` and ``=``.

    A client that splits, truncates, case-folds or puts a reference into a URL path breaks on
    these, as it would against the real service."""
    tag = tenant_id.replace("-", "")[:8]
    token = base64.b64encode(secrets.token_bytes(40)).decode()  # 40 bytes: ends with "=="
    return f"{IMAGE_PREFIX}Sbx:v2:Tn{tag}/Img/{token}"


def image_by_ref(env: Env, ref: str) -> ImageRec | None:
    """The image ``ref`` names, or None when no image has exactly this reference."""
    image = env.state.images.get(image_handle(ref))
    return image if image is not None and image.ref == ref else None


def _new_image(env: Env, *, tenant_id: str, alt_text: str) -> str:
    ref = new_asset_ref(tenant_id)
    handle = image_handle(ref)
    env.state.images[handle] = ImageRec(id=handle, tenant_id=tenant_id, alt_text=alt_text, ref=ref)
    return ref


def _stored_payload(env: Env, tenant_id: str, made: generator.Generated) -> dict[str, Any]:
    payload = dict(made.payload)
    if made.kind == generator.SOCIAL:
        alt = made.alt_text or "Illustration"
        payload["asset"] = {
            "ref": _new_image(env, tenant_id=tenant_id, alt_text=alt),
            "alt_text": alt,
        }
    return payload


def create_thread(env: Env, root: SuggestionRec) -> ThreadRec:
    """A thread whose turn 1 is ``root`` (created when the root was generated or saved)."""
    thread = ThreadRec(
        id=env.ids.new(),
        tenant_id=root.tenant_id,
        segment_id=root.segment_id,
        use_case_id=root.use_case_id,
        locale=root.locale,
        root_origin=root.root_origin,
        created_at=root.created_at,
        updated_at=root.created_at,
        created_by=root.owner,
        turns=[
            TurnRec(
                version=1, suggestion_id=root.id, generated_at=root.created_at, instruction=None
            )
        ],
    )
    env.state.threads[thread.id] = thread
    root.thread_id = thread.id
    return thread


def _add_root(
    env: Env,
    *,
    tenant_id: str,
    segment_id: str,
    use_case_id: str,
    set_id: str | None,
    variant_no: int,
    made: generator.Generated,
    owner: str | None,
    root_origin: str,
    now: datetime,
) -> SuggestionRec:
    record = SuggestionRec(
        id=env.ids.new(),
        tenant_id=tenant_id,
        suggestion_set_id=set_id,
        kind=made.kind,
        variant_no=variant_no,
        parent_suggestion_id=None,
        rationale=made.rationale if root_origin != "user_draft" else None,
        payload=_stored_payload(env, tenant_id, made),
        created_at=now,
        owner=owner,
        segment_id=segment_id,
        use_case_id=use_case_id,
        locale=env.state.tenants[tenant_id].locale,
        root_origin=root_origin,
    )
    env.state.suggestions[record.id] = record
    if not env.faults.thread_on_first_refinement:
        create_thread(env, record)
    return record


def create_set(
    env: Env,
    *,
    tenant_id: str,
    segment_id: str,
    use_case_id: str,
    origin: str,
    variant_count: int,
    brief: str | None,
    run_id: str | None,
    created_by: str | None,
) -> SetRec:
    """A complete suggestion set (steered or ready-made), each variant the root of a thread."""
    now = env.now()
    ctx = context_for(env, tenant_id=tenant_id, segment_id=segment_id, use_case_id=use_case_id)
    locale = env.state.tenants[tenant_id].locale
    version = None
    if origin == "precompute":
        version = env.state.next_version(tenant_id, segment_id, use_case_id, locale)
    record = SetRec(
        id=env.ids.new(),
        tenant_id=tenant_id,
        segment_id=segment_id,
        use_case_id=use_case_id,
        locale=locale,
        version=version,
        created_at=now,
        origin=origin,
        generation_run_id=run_id,
        steering_text=brief if origin == "steered" else None,
        created_by=created_by,
        suggestion_ids=[],
    )
    steered_kind = generator.choose_kind(brief=brief or "", use_case_name=ctx.use_case_name)
    for variant_no in range(1, variant_count + 1):
        if env.faults.roll_unknown_kind():
            kind = generator.UNKNOWN_KIND
        elif origin == "precompute":
            kind = generator.precompute_kind(variant_no)
        else:
            kind = steered_kind
        made = generator.generate(
            ctx, kind=kind, variant_no=variant_no, brief=brief, version=version
        )
        if origin == "steered" and env.faults.output_body_chars:
            made = generator.lengthened(made, chars=env.faults.output_body_chars)
        root = _add_root(
            env,
            tenant_id=tenant_id,
            segment_id=segment_id,
            use_case_id=use_case_id,
            set_id=record.id,
            variant_no=variant_no,
            made=made,
            owner=created_by,
            root_origin=origin,
            now=now,
        )
        record.suggestion_ids.append(root.id)
    env.state.sets[record.id] = record
    if origin == "precompute":
        env.state.add_to_catalog(record)
    env.state.touch()
    return record


def save_draft(
    env: Env, *, caller: Caller, segment_id: str, use_case_id: str, subject: str, body: str
) -> SuggestionRec:
    """A user-written email saved as the root of a thread (``root_origin`` user_draft)."""
    made = generator.Generated(generator.EMAIL, {"subject": subject, "body": body}, "")
    record = _add_root(
        env,
        tenant_id=caller.tenant_id,
        segment_id=segment_id,
        use_case_id=use_case_id,
        set_id=None,
        variant_no=1,
        made=made,
        owner=caller.user_id,
        root_origin="user_draft",
        now=env.now(),
    )
    env.state.touch()
    return record


def head_check(env: Env, parent: SuggestionRec) -> bool:
    """True if ``parent`` may be refined now: it heads its thread, or is a thread-less root."""
    if parent.thread_id is None:
        return parent.parent_suggestion_id is None
    thread = env.state.threads[parent.thread_id]
    return thread.turns[-1].suggestion_id == parent.id


def refine(env: Env, *, run: RunRec, parent: SuggestionRec) -> SuggestionRec:
    """Append a refinement of the head ``parent`` to its thread (creating it if needed)."""
    now = env.now()
    thread = env.state.threads[parent.thread_id] if parent.thread_id else create_thread(env, parent)
    ctx = context_for(
        env,
        tenant_id=parent.tenant_id,
        segment_id=parent.segment_id,
        use_case_id=parent.use_case_id,
    )
    instruction = str(run.request["instruction"])
    made = generator.refine(ctx, kind=parent.kind, payload=parent.payload, instruction=instruction)
    payload = dict(made.payload)
    old_image = image_of(parent)
    if old_image is not None:
        if run.request.get("image") == "regenerate":
            alt = made.alt_text or old_image["alt_text"]
            payload["asset"] = {
                "ref": _new_image(env, tenant_id=parent.tenant_id, alt_text=alt),
                "alt_text": alt,
            }
        else:
            payload["asset"] = dict(old_image)
    record = SuggestionRec(
        id=env.ids.new(),
        tenant_id=parent.tenant_id,
        suggestion_set_id=None,
        kind=parent.kind,
        variant_no=1,
        parent_suggestion_id=parent.id,
        rationale=made.rationale,
        payload=payload,
        created_at=now,
        instruction=instruction,
        owner=parent.owner,
        segment_id=parent.segment_id,
        use_case_id=parent.use_case_id,
        locale=parent.locale,
        root_origin=parent.root_origin,
        thread_id=thread.id,
    )
    env.state.suggestions[record.id] = record
    thread.turns.append(
        TurnRec(
            version=len(thread.turns) + 1,
            suggestion_id=record.id,
            generated_at=now,
            instruction=instruction,
        )
    )
    thread.updated_at = now
    if thread.name is None:
        thread.name = generator.thread_name(ctx)
    env.state.touch()
    return record


def lineage(env: Env, record: SuggestionRec) -> list[SuggestionRec]:
    """Earlier suggestions, closest first, the original last."""
    chain: list[SuggestionRec] = []
    current = record
    while current.parent_suggestion_id is not None:
        parent = env.state.suggestions.get(current.parent_suggestion_id)
        if parent is None:
            break
        chain.append(parent)
        current = parent
    return chain
