"""Request parsing and the one wrapper every route goes through.

The wrapper counts the request, applies the per-request fault knobs (latency, 5xx, injected
error codes), and turns :class:`ApiError` into an ErrorEnvelope response. It is plain code
around each endpoint rather than middleware, which keeps the hot path (run polling) short.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from suggestbot.sandbox.env import Env
from suggestbot.sandbox.errors import ApiError, failures_from, validation_failed
from suggestbot.sandbox.ids import UUID_PATTERN

logger = logging.getLogger(__name__)

Handler = Callable[[Request], Awaitable[Response]]
M = TypeVar("M", bound=BaseModel)
JSON_TYPE = "application/json"
_UUID = re.compile(UUID_PATTERN)


def json_response(body: BaseModel | dict[str, Any], *, status: int = 200) -> Response:
    if isinstance(body, BaseModel):
        content = body.model_dump_json().encode()
    else:
        content = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
    return Response(content, status_code=status, media_type=JSON_TYPE)


def error_response(env: Env, err: ApiError, *, knobs: bool = True) -> Response:
    body = err.envelope(extra_entry=knobs and env.faults.multi_error_entries)
    return Response(
        json.dumps(body, separators=(",", ":")).encode(),
        status_code=err.status,
        media_type=JSON_TYPE,
        headers=err.headers,
    )


async def _apply_faults(env: Env, request: Request) -> None:
    faults = env.faults
    method, path = request.method, request.scope["path"]
    # Cheap checks first: this runs on every request, including the run-polling hot path.
    if faults.latency_s:
        delay = faults.latency_for(method, path)
        if delay > 0:
            await asyncio.sleep(delay)
    if (faults.next_5xx or faults.error_rate_5xx) and faults.take_5xx():
        raise ApiError(503, "service_unavailable")
    if faults.unknown_error_codes:
        injected = faults.take_injected_error(method, path)
        if injected is not None:
            headers = {"Retry-After": "1"} if injected.status == 429 else None
            raise ApiError(injected.status, injected.code, headers=headers)


def route(env: Env, method: str, path: str, handler: Handler, *, faults: bool = True) -> Route:
    """A Starlette route for ``handler`` with counting, fault knobs and error envelopes."""
    key = f"{method} {path}"

    async def endpoint(request: Request) -> Response:
        env.counters.add(key)
        try:
            if faults:
                await _apply_faults(env, request)
            return await handler(request)
        except ApiError as err:
            return error_response(env, err, knobs=faults)
        except Exception:
            # The message names the route only: request data may hold secrets.
            logger.exception("unexpected error on %s", key)
            return error_response(env, ApiError(500, "internal_error"), knobs=faults)

    return Route(path, endpoint, methods=[method])


def _surrogate_locs(value: Any, loc: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """Where strings hold lone surrogates (invalid UTF-8 or a lone ``\\ud800`` escape)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return [loc]
        return []
    if isinstance(value, dict):
        return [hit for k, v in value.items() for hit in _surrogate_locs(v, (*loc, k))]
    if isinstance(value, list):
        return [hit for i, v in enumerate(value) for hit in _surrogate_locs(v, (*loc, i))]
    return []


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


async def read_json(request: Request) -> tuple[Any, list[tuple[Any, ...]]]:
    """The JSON body and the locations of strings that are not valid text.

    Invalid text does not fail here: a brief with such text gets ``input_invalid_encoding``,
    anything else ``validation_error`` (see :func:`reject_invalid_text`).
    """
    media = (request.headers.get("content-type") or "").split(";")[0].strip().lower()
    if media != JSON_TYPE:
        raise validation_failed(
            [{"loc": ["header", "content-type"], "msg": f"Must be {JSON_TYPE}", "type": "type"}]
        )
    raw = await request.body()
    try:
        data = json.loads(raw.decode("utf-8", "surrogateescape"), parse_constant=_reject_constant)
    except ValueError:
        raise validation_failed(
            [{"loc": ["body"], "msg": "Invalid JSON", "type": "json_invalid"}]
        ) from None
    return data, _surrogate_locs(data, ())


def reject_invalid_text(
    locs: list[tuple[Any, ...]], *, allowed: frozenset[str] = frozenset()
) -> bool:
    """Raise for invalid text outside ``allowed`` top-level fields; True if any was allowed."""
    others = [loc for loc in locs if not (len(loc) == 1 and loc[0] in allowed)]
    if others:
        raise validation_failed(
            [
                {"loc": ["body", *loc], "msg": "Not valid text", "type": "string_unicode"}
                for loc in others
            ]
        )
    return bool(locs)


def validate_body(model: type[M], data: Any) -> M:
    try:
        return model.model_validate(data, strict=True)
    except ValidationError as exc:
        raise validation_failed(failures_from(exc, prefix="body")) from None


def query(request: Request, model: type[M]) -> M:
    """Query parameters as ``model``; repeated parameters and schema failures are 422."""
    params: dict[str, str] = {}
    failures: list[dict[str, Any]] = []
    for name, value in request.query_params.multi_items():
        if name in params:
            failures.append(
                {"loc": ["query", name], "msg": "Given more than once", "type": "duplicate"}
            )
        params[name] = value
    try:
        parsed = model.model_validate(params)
    except ValidationError as exc:
        failures.extend(failures_from(exc, prefix="query"))
        raise validation_failed(failures) from None
    if failures:
        raise validation_failed(failures)
    return parsed


def path_uuid(request: Request, name: str) -> str:
    value = str(request.path_params[name])
    if not _UUID.fullmatch(value):
        raise validation_failed(
            [{"loc": ["path", name], "msg": "Must be a lower-case UUID", "type": "uuid"}]
        )
    return value
