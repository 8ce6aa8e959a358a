"""The HTTP face of the emulator: Slack's Web API under ``/api/``, plus the URLs Slack hosts.

Routes:

- ``POST|GET /api/{method}`` — Web API methods (form-encoded, multipart or JSON bodies);
- ``POST /upload/v1/{ticket}`` — the upload URL from ``files.getUploadURLExternal``;
- ``POST /hooks/{kind}/{team}/{token}`` — ``response_url``s handed to the app;
- ``GET /files/{file_id}/{name}`` — a file's ``url_private`` (bot token required);
- ``GET /oauth/v2/authorize`` — the page where a person approves an install (see ``oauth``).

A call is answered in this order, as Slack does: unknown method, authentication
(``not_authed`` / ``invalid_auth``), injected faults, scope (``missing_scope`` with
``needed``/``provided``), then the method itself. Every call is recorded without its token.
"""

from __future__ import annotations

import asyncio
import email.parser
import email.policy
import json
import logging
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from suggestbot.slackemu import api_files, hooks, images, oauth
from suggestbot.slackemu.args import Args
from suggestbot.slackemu.errors import ApiError
from suggestbot.slackemu.faults import Faults
from suggestbot.slackemu.methods import METHODS
from suggestbot.slackemu.model import RecordedCall
from suggestbot.slackemu.rationing import Rationing
from suggestbot.slackemu.workspace import Workspace

logger = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]
_FORM_TYPES = {"application/x-www-form-urlencoded", "text/plain", ""}


@dataclass
class Outcome:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


class CallLog:
    """Every request the emulator answered, in order."""

    def __init__(self) -> None:
        self._calls: list[RecordedCall] = []
        self._lock = threading.Lock()

    def add(self, call: RecordedCall) -> None:
        with self._lock:
            self._calls.append(call)

    def matching(self, method: str | None = None) -> list[RecordedCall]:
        with self._lock:
            return [c for c in self._calls if method is None or c.method == method]


class ApiServer:
    """Turns HTTP requests into workspace changes and Slack-shaped answers."""

    def __init__(
        self, ws: Workspace, faults: Faults, log: CallLog, *, sleep: Sleep, rationing: Rationing
    ) -> None:
        self.ws = ws
        self.faults = faults
        self.rationing = rationing
        self.log = log
        self._sleep = sleep

    def asgi_app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/api/{method}", self._api, methods=["GET", "POST"]),
                Route("/upload/v1/{ticket}", self._upload, methods=["POST"]),
                Route("/hooks/{kind}/{team}/{token}", self._hook, methods=["POST"]),
                Route("/files/{file_id}/{name}", self._file, methods=["GET"]),
                Route(oauth.AUTHORIZE_PATH, self._authorize, methods=["GET"]),
            ]
        )

    # -- Web API -------------------------------------------------------------------------
    async def _api(self, request: Request) -> Response:
        method = request.path_params["method"]
        raw = await request.body()
        delay = self.faults.delay_for(method)
        if delay:
            await self._sleep(delay)
        outcome, args = self.handle(
            method,
            authorization=request.headers.get("authorization"),
            content_type=request.headers.get("content-type"),
            query=dict(request.query_params),
            raw=raw,
        )
        self.log.add(
            RecordedCall(
                method=method,
                args=args,
                response=outcome.body,
                status=outcome.status,
                warnings=tuple(outcome.warnings),
                delay_s=delay,
            )
        )
        logger.debug(
            "slack api %s -> %s %s",
            method,
            outcome.status,
            "ok" if outcome.body.get("ok") else outcome.body.get("error"),
        )
        with self.ws.lock:
            self.ws.warnings.extend(outcome.warnings)
        return JSONResponse(outcome.body, status_code=outcome.status, headers=outcome.headers)

    def handle(
        self,
        method: str,
        *,
        authorization: str | None,
        content_type: str | None,
        query: dict[str, str],
        raw: bytes,
    ) -> tuple[Outcome, dict[str, Any]]:
        """Answer one Web API call; returns the outcome and the token-free arguments."""
        try:
            params, body_token = parse_body(content_type, raw, query)
        except ApiError as exc:
            return Outcome(exc.status, exc.body()), {}
        if method == "oauth.v2.access":
            # Authenticated with the app's client credentials, not a token; recorded without
            # the secret, the code and the refresh token.
            recorded: dict[str, Any] = {
                k: params[k] for k in ("client_id", "grant_type") if k in params
            }
            with self.ws.lock:
                return self._oauth_access(params, authorization), recorded
        token = _bearer(authorization) or body_token
        probed = self._probe_images(params)
        with self.ws.lock:
            self.ws.image_problems = probed
            try:
                return self._dispatch(method, params, token), params
            finally:
                self.ws.image_problems = {}

    def _probe_images(self, value: Any) -> dict[str, str | None]:
        if not self.ws.check_image_urls:
            return {}
        return images.probe(images.image_urls(value))

    def _dispatch(self, method: str, params: dict[str, Any], token: str | None) -> Outcome:
        spec = METHODS.get(method)
        if spec is None:
            # shape: Slack's answer for a method it does not have, as recorded in public code
            # ({"ok"=>false, "error"=>"unknown_method", "req_method"=>"channels.list"}).
            return Outcome(200, {"ok": False, "error": "unknown_method", "req_method": method})
        if not token:
            return Outcome(200, {"ok": False, "error": "not_authed"})
        problem = self.ws.token_problem(token)
        if problem is not None:
            return Outcome(200, {"ok": False, "error": problem})
        granted = ",".join(sorted(self.ws.scopes))
        raw_channel = params.get("channel")
        channel_arg = (
            self.ws.resolve_channel_id(raw_channel) if isinstance(raw_channel, str) else None
        )
        fault = self.faults.before_call(method, channel_arg)
        if fault is not None:
            return Outcome(fault.status, dict(fault.body), dict(fault.headers))
        refusal = self.rationing.check(method, channel_arg)
        if refusal is not None:
            # shape: Slack docs, "Rate limits": HTTP 429, Retry-After, "ratelimited".
            body = {"ok": False, "error": "ratelimited"}
            return Outcome(429, body, {"Retry-After": str(refusal.retry_after)})
        args = Args(params)
        accepted = spec.scopes(self.ws, args)
        headers = {"x-oauth-scopes": granted, "x-accepted-oauth-scopes": ",".join(accepted)}
        if accepted and not self.ws.scopes.intersection(accepted):
            # shape: {"ok": false, "error": "missing_scope", "needed": …, "provided": …} as
            # Slack answers it (quoted in apache/superset PR #15904).
            body = {
                "ok": False,
                "error": "missing_scope",
                "needed": ",".join(accepted),
                "provided": granted,
            }
            return Outcome(200, body, headers)
        try:
            body = spec.handler(self.ws, args)
        except ApiError as exc:
            outcome = Outcome(exc.status, exc.body(), {**headers, **exc.headers})
        else:
            outcome = Outcome(200, body, headers, list(args.warnings))
        if method == "chat.postMessage" and channel_arg:
            self.faults.after_post(channel_arg, bool(outcome.body.get("ok")))
        return outcome

    def _oauth_access(self, params: dict[str, Any], authorization: str | None) -> Outcome:
        try:
            body = oauth.access(
                self.ws.oauth,
                params,
                authorization=authorization,
                team_id=self.ws.team_id,
                team_name=self.ws.team_domain,
                now=self.ws.clock(),
            )
        except ApiError as exc:
            return Outcome(exc.status, exc.body())
        return Outcome(200, body)

    # -- URLs Slack hosts ---------------------------------------------------------------
    async def _authorize(self, request: Request) -> Response:
        cookies = oauth.cookie_values(request.headers.get("cookie"))
        user_id = cookies.get(oauth.USER_COOKIE)
        with self.ws.lock:
            status, answer = oauth.authorize(
                self.ws.oauth,
                dict(request.query_params),
                granted_scopes=self.ws.scopes,
                known_user=user_id in self.ws.users,
                user_id=user_id,
                deny=oauth.DENY_COOKIE in cookies,
                now=self.ws.clock(),
            )
        self.log.add(
            RecordedCall(
                method="oauth_authorize",
                args={"client_id": request.query_params.get("client_id"), "user": user_id},
                response={"ok": status == 302, "error": None if status == 302 else answer},
                status=status,
            )
        )
        if status == 302:
            return RedirectResponse(answer, status_code=302)
        return PlainTextResponse(answer, status_code=status)

    async def _upload(self, request: Request) -> Response:
        raw = await request.body()
        data = _upload_bytes(request.headers.get("content-type"), raw)
        with self.ws.lock:
            status, text = api_files.receive_upload(self.ws, request.path_params["ticket"], data)
        self.log.add(
            RecordedCall(
                method="upload_url",
                args={"bytes": len(data)},
                response={"ok": status == 200, "body": text},
                status=status,
            )
        )
        return PlainTextResponse(text, status_code=status)

    async def _hook(self, request: Request) -> Response:
        raw = await request.body()
        probed = self._probe_images(raw.decode("utf-8", errors="replace"))
        with self.ws.lock:
            self.ws.image_problems = probed
            try:
                status, text, warnings = hooks.handle_response_url(
                    self.ws, request.path_params["token"], raw
                )
            except ApiError as exc:
                status, text, warnings = 404, exc.error, []
            finally:
                self.ws.image_problems = {}
            self.ws.warnings.extend(warnings)
        self.log.add(
            RecordedCall(
                method="response_url",
                args=_json_or_empty(raw),
                response={"ok": status == 200, "body": text},
                status=status,
                warnings=tuple(warnings),
            )
        )
        return PlainTextResponse(text, status_code=status)

    async def _file(self, request: Request) -> Response:
        token = _bearer(request.headers.get("authorization"))
        with self.ws.lock:
            if token is None or self.ws.token_problem(token) is not None:
                return PlainTextResponse("not_authed", status_code=403)
            uploaded = self.ws.files.get(request.path_params["file_id"])
            if uploaded is None or not uploaded.completed or uploaded.content is None:
                return PlainTextResponse("file_not_found", status_code=404)
            return Response(uploaded.content, media_type=uploaded.mimetype)


def parse_body(
    content_type: str | None, raw: bytes, query: dict[str, str]
) -> tuple[dict[str, Any], str | None]:
    """Arguments of a call and a token given as an argument (forms and queries only)."""
    params: dict[str, Any] = dict(query)
    body_token = params.pop("token", None)
    if not raw:
        return params, body_token
    if content_type is None:
        raise ApiError("missing_post_type")
    ctype = content_type.split(";", 1)[0].strip().lower()
    if ctype == "application/json":
        try:
            decoded = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise ApiError("invalid_json") from None
        if not isinstance(decoded, dict):
            raise ApiError("json_not_object")
        # Slack ignores a token inside a JSON body: it must come in the Authorization header.
        decoded.pop("token", None)
        params.update(decoded)
        return params, body_token
    if ctype in _FORM_TYPES:
        try:
            pairs = parse_qsl(raw.decode("utf-8"), keep_blank_values=True, strict_parsing=True)
        except (UnicodeDecodeError, ValueError):
            raise ApiError("invalid_form_data") from None
    elif ctype == "multipart/form-data":
        pairs = _multipart_pairs(content_type, raw)
    else:
        raise ApiError("invalid_post_type")
    for key, value in pairs:
        params[key] = value
    form_token = params.pop("token", None)
    return params, form_token or body_token


def _multipart_pairs(content_type: str, raw: bytes) -> list[tuple[str, str]]:
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + raw
    )
    if not message.is_multipart():
        raise ApiError("invalid_form_data")
    pairs = []
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True) or b""
        if isinstance(name, str) and isinstance(payload, bytes):
            pairs.append((name, payload.decode("utf-8", errors="replace")))
    return pairs


def _upload_bytes(content_type: str | None, raw: bytes) -> bytes:
    """File bytes from a raw POST body (slack_sdk) or the first file part of a multipart form."""
    if content_type and content_type.lower().startswith("multipart/form-data"):
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            f"Content-Type: {content_type}\r\n\r\n".encode() + raw
        )
        for part in message.iter_parts() if message.is_multipart() else []:
            if part.get_filename():
                payload = part.get_payload(decode=True)
                return payload if isinstance(payload, bytes) else b""
    return raw


def _bearer(authorization: str | None) -> str | None:
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip() or None
    return None


def _json_or_empty(raw: bytes) -> dict[str, Any]:
    try:
        decoded = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return decoded if isinstance(decoded, dict) else {}


async def default_sleep(seconds: float) -> None:
    await asyncio.sleep(seconds)
