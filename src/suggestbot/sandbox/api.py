"""The service's own surface: ``/auth/token``, everything under ``/v1``, and signed images.

Design §4 fixes what the contract leaves open: rename is ``PATCH /v1/threads/{id}``; saving a
draft answers 201 with the Suggestion; minting URLs answers 200, unknown or foreign refs 404
``asset_not_found``; 401 is ``unauthorized``; a machine token on a user-only operation is 403
``user_token_required``; 404 is ``not_found``; ``GET /v1/me`` returns the caller's tenants.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from suggestbot.sandbox import content, runs, views, wire
from suggestbot.sandbox.auth import Caller, authenticate, exchange
from suggestbot.sandbox.env import Env
from suggestbot.sandbox.errors import ApiError, failures_from, not_found, validation_failed
from suggestbot.sandbox.http import (
    json_response,
    path_uuid,
    query,
    read_json,
    reject_invalid_text,
    route,
    validate_body,
)
from suggestbot.sandbox.images import render_png
from suggestbot.sandbox.paging import page, page_of_keys
from suggestbot.sandbox.state import catalog_key

_THREAD_NAME_MAX_CHARS = 60
_THREAD_NAME_MAX_WORDS = 8


def _caller(env: Env, request: Request) -> Caller:
    return authenticate(env, request.headers.get("authorization"))


def _user(env: Env, request: Request) -> Caller:
    caller = _caller(env, request)
    if not caller.is_user:
        raise ApiError(403, "user_token_required")
    return caller


def _expand(value: str | None, allowed: str) -> bool:
    """Whether ``allowed`` was requested; any other expand value is 422."""
    if value is None:
        return False
    parts = value.split(",")
    if any(part != allowed for part in parts):
        raise validation_failed(
            [{"loc": ["query", "expand"], "msg": f"Only {allowed} is supported", "type": "enum"}]
        )
    return True


def _collection(items: list[object], next_cursor: str | None) -> dict[str, object]:
    return {"data": items, "meta": {"next_cursor": next_cursor}}


def _page_response(models: Sequence[BaseModel], next_cursor: str | None) -> Response:
    body = _collection([m.model_dump(mode="json") for m in models], next_cursor)
    return json_response(body)


def _clean_thread_name(raw: str) -> str:
    """Normalise a requested name or raise the contract's thread_name_* error."""
    if any(ch in raw for ch in "\u2028\u2029") or any(
        ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F or 0xD800 <= ord(ch) <= 0xDFFF for ch in raw
    ):
        raise ApiError(422, "thread_name_not_plain_text")
    words = raw.split()
    name = " ".join(words)
    if not name:
        raise ApiError(422, "thread_name_empty")
    if len(name) > _THREAD_NAME_MAX_CHARS or len(words) > _THREAD_NAME_MAX_WORDS:
        raise ApiError(422, "thread_name_too_long")
    return name


def build_routes(env: Env) -> list[Route]:
    state = env.state

    async def token(request: Request) -> Response:
        body = await request.body()
        access_token, expires_in = exchange(
            env, content_type=request.headers.get("content-type"), body=body
        )
        return json_response(wire.TokenResponse(access_token=access_token, expires_in=expires_in))

    async def me(request: Request) -> Response:
        caller = _caller(env, request)
        with state.lock:
            tenant_ids = {caller.tenant_id}
            if caller.is_user:
                tenant_ids |= {
                    t.tenant_id
                    for t in state.user_tokens.values()
                    if t.user_id == caller.user_id and not t.revoked
                }
            summaries = [
                wire.TenantSummary(id=t.id, name=t.name)
                for t in sorted(state.tenants.values(), key=lambda t: t.id)
                if t.id in tenant_ids
            ]
            active = state.tenants[caller.tenant_id]
        return json_response(
            wire.Me(
                active_tenant=wire.TenantSummary(id=active.id, name=active.name), tenants=summaries
            )
        )

    async def segments(request: Request) -> Response:
        caller = _caller(env, request)
        with state.lock:
            items = [
                wire.Segment(id=s.id, name=s.name, description=s.description)
                for s in state.segments.values()
                if s.tenant_id == caller.tenant_id and s.set_up
            ]
        items.sort(key=lambda s: s.name)
        return _page_response(items, None)

    async def use_cases(request: Request) -> Response:
        caller = _caller(env, request)
        with state.lock:
            items = [
                wire.UseCaseSummary(id=u.id, name=u.name)
                for u in state.use_cases.values()
                if u.tenant_id == caller.tenant_id
            ]
        items.sort(key=lambda u: u.name)
        return _page_response(items, None)

    async def inspiration(request: Request) -> Response:
        caller = _caller(env, request)
        params = query(request, wire.InspirationQuery)
        with_urls = _expand(params.expand, "asset_urls")
        urls = (
            views.UrlMinting(base_url=str(request.base_url), now=env.now()) if with_urls else None
        )
        with state.lock:
            tenant = content.tenant_of(env, caller)
            found = None
            if (
                params.locale == tenant.locale
                and content.segment_in(env, tenant.id, params.segment_id) is not None
                and content.use_case_in(env, tenant.id, params.use_case_id) is not None
            ):
                key = catalog_key(tenant.id, params.segment_id, params.use_case_id, params.locale)
                sets = [state.sets[i] for i in state.catalog.get(key, [])]
                if params.version is not None:
                    sets = [s for s in sets if s.version == params.version]
                if sets:
                    found = max(sets, key=lambda s: s.version or 0)
            data = [views.suggestion_set(env, found, urls=urls)] if found else []
        return _page_response(data, None)

    async def trigger_inspiration(request: Request) -> Response:
        caller = _caller(env, request)
        data, bad_text = await read_json(request)
        reject_invalid_text(bad_text)
        body = validate_body(wire.GenerationTriggerRequest, data)
        with state.lock:
            if content.segment_in(env, caller.tenant_id, body.segment_id) is None:
                raise not_found()
            if content.use_case_in(env, caller.tenant_id, body.use_case_id) is None:
                raise not_found()
        runs.trigger_precompute(
            env,
            tenant_id=caller.tenant_id,
            segment_id=body.segment_id,
            use_case_id=body.use_case_id,
        )
        return Response(status_code=202)

    async def list_runs(request: Request) -> Response:
        caller = _caller(env, request)
        params = query(request, wire.PageQuery)
        with state.lock:
            keys, cursor = page_of_keys(
                content.visible_run_order(env, caller, params.created_by),
                listing="runs",
                cursor=params.cursor,
                limit=params.limit,
                short_pages=env.faults.short_pages,
                overlap=env.faults.overlap_pages,
            )
            models = [views.run(state.runs[run_id]) for _, run_id in keys]
        return _page_response(models, cursor)

    async def create_run(request: Request) -> Response:
        caller = _user(env, request)
        data, bad_text = await read_json(request)
        invalid_text = reject_invalid_text(
            bad_text, allowed=frozenset({"steering_text", "instruction"})
        )
        try:
            body = wire.GENERATION_RUN_REQUEST.validate_python(data, strict=True)
        except ValidationError as exc:
            raise validation_failed(failures_from(exc, prefix="body")) from None
        run = runs.create_run(env, caller=caller, request=body, invalid_text=invalid_text)
        with state.lock:
            model = views.run(run)
        return json_response(model, status=202)

    async def get_run(request: Request) -> Response:
        caller = _caller(env, request)
        run_id = path_uuid(request, "run_id")
        with state.lock:
            run = state.runs.get(run_id)
            if run is None or not content.can_see_run(caller, run):
                raise not_found()
            model = views.run(run)
        return json_response(model)

    async def list_threads(request: Request) -> Response:
        caller = _caller(env, request)
        params = query(request, wire.ThreadListQuery)
        with state.lock:
            items = [
                t
                for t in state.threads.values()
                if content.can_see_thread(caller, t)
                and (params.created_by is None or t.created_by == params.created_by)
                and (params.segment_id is None or t.segment_id == params.segment_id)
                and (params.use_case_id is None or t.use_case_id == params.use_case_id)
            ]
            chunk, cursor = page(
                items,
                key=lambda t: (t.created_at, t.id),
                listing="threads",
                cursor=params.cursor,
                limit=params.limit,
                short_pages=env.faults.short_pages,
                overlap=env.faults.overlap_pages,
            )
            models = [views.thread(t, with_turns=False) for t in chunk]
        return _page_response(models, cursor)

    async def get_thread(request: Request) -> Response:
        caller = _caller(env, request)
        thread_id = path_uuid(request, "thread_id")
        with state.lock:
            thread = state.threads.get(thread_id)
            if thread is None or not content.can_see_thread(caller, thread):
                raise not_found()
            model = views.thread(thread, with_turns=True)
        return json_response(model)

    async def rename_thread(request: Request) -> Response:
        caller = _user(env, request)
        thread_id = path_uuid(request, "thread_id")
        data, bad_text = await read_json(request)
        reject_invalid_text(bad_text)
        body = validate_body(wire.ThreadUpdateRequest, data)
        with state.lock:
            thread = state.threads.get(thread_id)
            if thread is None or not content.can_see_thread(caller, thread):
                raise not_found()
            thread.name = _clean_thread_name(body.name)
            thread.updated_at = env.now()
            state.touch()
            model = views.thread(thread, with_turns=True)
        return json_response(model)

    async def list_sets(request: Request) -> Response:
        caller = _caller(env, request)
        params = query(request, wire.SetListQuery)
        with state.lock:
            items = [
                s
                for s in state.sets.values()
                if content.can_see_set(caller, s)
                and (params.created_by is None or s.created_by == params.created_by)
                and (params.segment_id is None or s.segment_id == params.segment_id)
                and (params.use_case_id is None or s.use_case_id == params.use_case_id)
            ]
            chunk, cursor = page(
                items,
                key=lambda s: (s.created_at, s.id),
                listing="sets",
                cursor=params.cursor,
                limit=params.limit,
                short_pages=env.faults.short_pages,
                overlap=env.faults.overlap_pages,
            )
            models = [views.suggestion_set(env, s) for s in chunk]
        return _page_response(models, cursor)

    async def get_set(request: Request) -> Response:
        caller = _caller(env, request)
        set_id = path_uuid(request, "set_id")
        with state.lock:
            record = state.sets.get(set_id)
            if record is None or not content.can_see_set(caller, record):
                raise not_found()
            model = views.suggestion_set(env, record)
        return json_response(model)

    async def get_suggestion(request: Request) -> Response:
        caller = _caller(env, request)
        suggestion_id = path_uuid(request, "suggestion_id")
        params = query(request, wire.SuggestionQuery)
        with_lineage = _expand(params.expand, "lineage")
        with state.lock:
            record = state.suggestions.get(suggestion_id)
            if record is None or not content.can_see_suggestion(caller, record):
                raise not_found()
            chain = content.lineage(env, record) if with_lineage else None
            model = views.suggestion(env, record, lineage=chain)
        return json_response(model)

    async def save_draft(request: Request) -> Response:
        caller = _user(env, request)
        data, bad_text = await read_json(request)
        reject_invalid_text(bad_text)
        body = validate_body(wire.DraftSuggestionRequest, data)
        with state.lock:
            if content.segment_in(env, caller.tenant_id, body.segment_id) is None:
                raise not_found()
            if content.use_case_in(env, caller.tenant_id, body.use_case_id) is None:
                raise not_found()
            record = content.save_draft(
                env,
                caller=caller,
                segment_id=body.segment_id,
                use_case_id=body.use_case_id,
                subject=body.payload.subject,
                body=body.payload.body,
            )
            model = views.suggestion(env, record)
        return json_response(model, status=201)

    async def mint_urls(request: Request) -> Response:
        caller = _caller(env, request)
        data, bad_text = await read_json(request)
        reject_invalid_text(bad_text)
        body = validate_body(wire.AssetUrlMintRequest, data)
        now = env.now()
        base_url = str(request.base_url)
        minted = []
        with state.lock:
            for ref in body.refs:
                image = content.image_by_ref(env, ref)
                if image is None or image.tenant_id != caller.tenant_id:
                    raise ApiError(404, "asset_not_found")
                url, expires_at = env.signer.mint(base_url=base_url, ref=ref, now=now)
                minted.append(wire.MintedAssetUrl(ref=ref, url=url, url_expires_at=expires_at))
        return _page_response(minted, None)

    async def image(request: Request) -> Response:
        name = str(request.path_params["image_file"])
        image_id = name.removesuffix(".png")
        expires = request.query_params.get("expires", "")
        sig = request.query_params.get("sig", "")
        with state.lock:
            found = state.images.get(image_id)
        # The signature covers the reference; an unknown handle cannot carry a valid one.
        ref = found.ref if found is not None and found.ref else ""
        if not name.endswith(".png") or not env.signer.check(
            ref=ref, expires=expires, sig=sig, now=env.now()
        ):
            raise ApiError(403, "forbidden")
        if found is None:
            raise not_found()
        return Response(
            render_png(image_id),
            media_type="image/png",
            headers={"Cache-Control": "private, max-age=60"},
        )

    return [
        route(env, "POST", "/auth/token", token),
        route(env, "GET", "/v1/me", me),
        route(env, "GET", "/v1/segments", segments),
        route(env, "GET", "/v1/use-cases", use_cases),
        route(env, "GET", "/v1/inspiration", inspiration),
        route(env, "POST", "/v1/inspiration", trigger_inspiration),
        route(env, "GET", "/v1/generation-runs", list_runs),
        route(env, "POST", "/v1/generation-runs", create_run),
        route(env, "GET", "/v1/generation-runs/{run_id}", get_run),
        route(env, "GET", "/v1/threads", list_threads),
        route(env, "GET", "/v1/threads/{thread_id}", get_thread),
        route(env, "PATCH", "/v1/threads/{thread_id}", rename_thread),
        route(env, "GET", "/v1/suggestion-sets", list_sets),
        route(env, "GET", "/v1/suggestion-sets/{set_id}", get_set),
        route(env, "GET", "/v1/suggestions/{suggestion_id}", get_suggestion),
        route(env, "POST", "/v1/suggestions", save_draft),
        route(env, "POST", "/v1/assets/urls", mint_urls),
        route(env, "GET", "/images/{image_file}", image, faults=False),
    ]
