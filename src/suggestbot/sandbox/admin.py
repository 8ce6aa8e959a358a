"""The operator surface under ``/sandbox/``, guarded by the ``X-Sandbox-Admin-Key`` header.

Everything here calls the functions of :mod:`~suggestbot.sandbox.tenants` and
:mod:`~suggestbot.sandbox.auth` that :class:`~suggestbot.sandbox.core.Sandbox` wraps too, so
Python callers, HTTP callers and the CLI share one implementation. Not part of the service's
contract.
"""

from __future__ import annotations

import hmac
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from suggestbot.sandbox import auth, tenants
from suggestbot.sandbox.env import Env
from suggestbot.sandbox.errors import ApiError, failures_from, validation_failed
from suggestbot.sandbox.http import (
    json_response,
    read_json,
    reject_invalid_text,
    route,
    validate_body,
)

ADMIN_KEY_HEADER = "X-Sandbox-Admin-Key"


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class NewTenant(_Body):
    name: Annotated[str, Field(min_length=1)]
    locale: Literal["en", "de"]


class NewSegment(_Body):
    name: Annotated[str, Field(min_length=1)]
    description: str = ""
    set_up: bool = True


class NewUseCase(_Body):
    name: Annotated[str, Field(min_length=1)]
    precompute_variants: Annotated[int, Field(ge=1, le=10)] = 3


class NewCredential(_Body):
    expires_in_s: Annotated[float, Field(gt=0)] | None = None


class NewUserToken(_Body):
    user_id: str | None = None


class TokenRef(_Body):
    token: Annotated[str, Field(min_length=1)]


class Steering(_Body):
    enabled: bool


class Precompute(_Body):
    segment_id: str | None = None
    use_case_id: str | None = None


def build_routes(env: Env, *, admin_key: str) -> list[Route]:
    """The ``/sandbox/`` routes over ``env``, each refused without ``admin_key``."""

    def guard(request: Request) -> None:
        given = request.headers.get(ADMIN_KEY_HEADER, "")
        if not hmac.compare_digest(given.encode(), admin_key.encode()):
            raise ApiError(401, "unauthorized")

    async def body_of(request: Request, model: type[_Body]) -> Any:
        data, bad_text = await read_json(request)
        reject_invalid_text(bad_text)
        return validate_body(model, data)

    async def list_tenants(request: Request) -> Response:
        guard(request)
        return json_response({"data": tenants.describe_tenants(env)})

    async def create_tenant(request: Request) -> Response:
        guard(request)
        body = await body_of(request, NewTenant)
        tenant_id = tenants.create_tenant(env, name=body.name, locale=body.locale)
        return json_response({"id": tenant_id}, status=201)

    async def add_segment(request: Request) -> Response:
        guard(request)
        body = await body_of(request, NewSegment)
        segment_id = tenants.add_segment(
            env,
            tenant_id=request.path_params["tenant_id"],
            name=body.name,
            description=body.description,
            set_up=body.set_up,
        )
        return json_response({"id": segment_id}, status=201)

    async def add_use_case(request: Request) -> Response:
        guard(request)
        body = await body_of(request, NewUseCase)
        use_case_id = tenants.add_use_case(
            env,
            tenant_id=request.path_params["tenant_id"],
            name=body.name,
            precompute_variants=body.precompute_variants,
        )
        return json_response({"id": use_case_id}, status=201)

    async def create_credential(request: Request) -> Response:
        guard(request)
        body = await body_of(request, NewCredential)
        client_id, secret = auth.create_credential(
            env, tenant_id=request.path_params["tenant_id"], expires_in_s=body.expires_in_s
        )
        return json_response({"client_id": client_id, "client_secret": secret}, status=201)

    async def revoke_credential(request: Request) -> Response:
        guard(request)
        auth.revoke_credential(env, client_id=request.path_params["client_id"])
        return Response(status_code=204)

    async def rotate_credential(request: Request) -> Response:
        guard(request)
        secret = auth.rotate_credential(env, client_id=request.path_params["client_id"])
        return json_response({"client_secret": secret})

    async def create_user_token(request: Request) -> Response:
        guard(request)
        body = await body_of(request, NewUserToken)
        user_id, token = auth.create_user_token(
            env, tenant_id=request.path_params["tenant_id"], user_id=body.user_id
        )
        return json_response({"user_id": user_id, "token": token}, status=201)

    async def revoke_user_token(request: Request) -> Response:
        guard(request)
        body = await body_of(request, TokenRef)
        auth.revoke_user_token(env, token=body.token)
        return Response(status_code=204)

    async def steering(request: Request) -> Response:
        guard(request)
        body = await body_of(request, Steering)
        failed = tenants.set_steering(
            env, tenant_id=request.path_params["tenant_id"], enabled=body.enabled
        )
        return json_response({"enabled": body.enabled, "failed_runs": failed})

    async def precompute(request: Request) -> Response:
        guard(request)
        body = await body_of(request, Precompute)
        set_ids = tenants.run_precompute(
            env,
            tenant_id=request.path_params["tenant_id"],
            segment_id=body.segment_id,
            use_case_id=body.use_case_id,
        )
        return json_response({"suggestion_set_ids": set_ids})

    async def get_faults(request: Request) -> Response:
        guard(request)
        return json_response(env.faults.snapshot())

    async def patch_faults(request: Request) -> Response:
        guard(request)
        data, bad_text = await read_json(request)
        reject_invalid_text(bad_text)
        if not isinstance(data, dict):
            raise validation_failed([{"loc": ["body"], "msg": "Must be an object", "type": "dict"}])
        try:
            env.faults.update(data)
        except ValidationError as exc:
            raise validation_failed(failures_from(exc, prefix="body")) from None
        env.wake.set()
        return json_response(env.faults.snapshot())

    async def reset_faults(request: Request) -> Response:
        guard(request)
        env.faults.reset()
        env.wake.set()
        return json_response(env.faults.snapshot())

    async def counters(request: Request) -> Response:
        guard(request)
        return json_response(env.counters.snapshot())

    async def reset_counters(request: Request) -> Response:
        guard(request)
        env.counters.reset()
        return Response(status_code=204)

    def admin(method: str, path: str, handler: Any) -> Route:
        return route(env, method, path, handler, faults=False)

    return [
        admin("GET", "/sandbox/tenants", list_tenants),
        admin("POST", "/sandbox/tenants", create_tenant),
        admin("POST", "/sandbox/tenants/{tenant_id}/segments", add_segment),
        admin("POST", "/sandbox/tenants/{tenant_id}/use-cases", add_use_case),
        admin("POST", "/sandbox/tenants/{tenant_id}/credentials", create_credential),
        admin("POST", "/sandbox/credentials/{client_id}/revoke", revoke_credential),
        admin("POST", "/sandbox/credentials/{client_id}/rotate", rotate_credential),
        admin("POST", "/sandbox/tenants/{tenant_id}/user-tokens", create_user_token),
        admin("POST", "/sandbox/user-tokens/revoke", revoke_user_token),
        admin("PUT", "/sandbox/tenants/{tenant_id}/steering", steering),
        admin("POST", "/sandbox/tenants/{tenant_id}/precompute", precompute),
        admin("GET", "/sandbox/faults", get_faults),
        admin("PATCH", "/sandbox/faults", patch_faults),
        admin("DELETE", "/sandbox/faults", reset_faults),
        admin("GET", "/sandbox/counters", counters),
        admin("DELETE", "/sandbox/counters", reset_counters),
    ]
