"""Test doubles for the contentapi tests: a scripted service behind httpx.MockTransport.

``FakeService`` issues tokens ``tok-1``, ``tok-2``, ... at ``POST /auth/token`` and answers every
other request from a script: per method and path, a queue of answers whose last entry repeats
(so "fail, then succeed" is ``service.on("GET", path, fail, ok)``). An answer is an
``httpx.Response``, a callable taking the request, or an exception instance to raise. Requests with
a token that was never issued, was revoked or has expired on the fake clock get a 401.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

import httpx

from suggestbot.contentapi import ClientCredentialsAuth, ContentClient

BASE_URL = "https://content.test"
CLIENT_ID = "client-123"
CLIENT_SECRET = "s3cr3t-client-secret-value"

Answer = httpx.Response | Callable[[httpx.Request], httpx.Response] | Exception


class FakeClock:
    """Monotonic seconds that only move when a test says so."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class FakeService:
    clock: FakeClock = field(default_factory=FakeClock)
    expires_in: int = 900
    user_tokens: set[str] = field(default_factory=set)
    revoked: set[str] = field(default_factory=set)
    token_answers: list[Answer] = field(default_factory=list)
    token_requests: list[httpx.Request] = field(default_factory=list)
    api_requests: list[httpx.Request] = field(default_factory=list)
    # The bearer each API request carried when it arrived (a resent request is the same object).
    api_bearers: list[str] = field(default_factory=list)
    _routes: dict[tuple[str, str], list[Answer]] = field(default_factory=dict)
    _expiry: dict[str, float] = field(default_factory=dict)

    def on(self, method: str, path: str, *answers: Answer) -> None:
        self._routes[(method, path)] = list(answers)

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def requests_to(self, method: str, path: str) -> list[httpx.Request]:
        return [r for r in self.api_requests if r.method == method and r.url.path == path]

    def handle(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/auth/token":
            return self._token(request)
        self.api_requests.append(request)
        bearer = request.headers.get("Authorization", "").removeprefix("Bearer ")
        self.api_bearers.append(bearer)
        if not self._accepts(bearer):
            return error_response(401, "unauthorized", "Invalid or expired token")
        key = (request.method, request.url.path)
        if key not in self._routes:
            return error_response(404, "not_found", "No such route in this test")
        queue = self._routes[key]
        answer = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(answer, Exception):
            raise answer
        if isinstance(answer, httpx.Response):
            return answer
        return answer(request)

    def _accepts(self, bearer: str) -> bool:
        if bearer in self.user_tokens:
            return True
        expiry = self._expiry.get(bearer)
        return expiry is not None and bearer not in self.revoked and self.clock() < expiry

    def _token(self, request: httpx.Request) -> httpx.Response:
        self.token_requests.append(request)
        if self.token_answers:
            answer = self.token_answers.pop(0)
            if isinstance(answer, Exception):
                raise answer
            if isinstance(answer, httpx.Response):
                return answer
            return answer(request)
        token = f"tok-{len(self.token_requests)}"
        self._expiry[token] = self.clock() + self.expires_in
        return httpx.Response(
            200, json={"access_token": token, "token_type": "Bearer", "expires_in": self.expires_in}
        )


def form_of(request: httpx.Request) -> dict[str, list[str]]:
    return parse_qs(request.content.decode())


def body_of(request: httpx.Request) -> Any:
    return json.loads(request.content)


def bearer_of(request: httpx.Request) -> str:
    return request.headers["Authorization"].removeprefix("Bearer ")


def error_response(
    status: int,
    code: str,
    message: str = "Something failed",
    details: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> httpx.Response:
    entry: dict[str, Any] = {"code": code, "message": message}
    if details is not None:
        entry["details"] = details
    return httpx.Response(status, json={"errors": [entry]}, headers=headers)


def collection(items: list[Any], next_cursor: str | None = None) -> httpx.Response:
    return httpx.Response(200, json={"data": items, "meta": {"next_cursor": next_cursor}})


class SleepRecorder:
    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def make_client(
    service: FakeService, *, margin_s: float = 60, max_retries: int = 2, **kwargs: Any
) -> tuple[ContentClient, ClientCredentialsAuth, SleepRecorder]:
    auth = ClientCredentialsAuth(
        f"{BASE_URL}/auth/token", CLIENT_ID, CLIENT_SECRET, margin_s=margin_s, clock=service.clock
    )
    sleep = SleepRecorder()
    client = ContentClient(
        BASE_URL,
        auth=auth,
        transport=service.transport(),
        sleep=sleep,
        max_retries=max_retries,
        **kwargs,
    )
    return client, auth, sleep


# --- JSON builders (wire shapes from the contract) ----------------------------------------------

TS = "2024-05-01T10:00:00Z"
SIGNED_URL = "https://img.content.test/i/abc.png?X-Signature=topsecretsignature&X-Expires=900"


def email_json(id: str = "sg-1", variant_no: int = 1, **extra: Any) -> dict[str, Any]:
    return {
        "id": id,
        "suggestion_set_id": "set-1",
        "kind": "email",
        "variant_no": variant_no,
        "parent_suggestion_id": None,
        "rationale": "Because",
        "payload": {"subject": "Hello", "body": "Line one\nLine two"},
        **extra,
    }


def social_json(
    id: str = "sg-2", variant_no: int = 2, *, url: str | None = None, ref: str = "image:img-1"
) -> dict[str, Any]:
    return {
        "id": id,
        "suggestion_set_id": "set-1",
        "kind": "social_single_image",
        "variant_no": variant_no,
        "parent_suggestion_id": None,
        "rationale": None,
        "payload": {
            "body": "Post text",
            "asset": {
                "type": "image",
                "ref": ref,
                "url": url,
                "url_expires_at": "2024-05-01T10:15:00Z" if url else None,
                "alt_text": "A red bicycle",
            },
        },
    }


def set_json(
    id: str = "set-1", suggestions: list[dict[str, Any]] | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        "id": id,
        "segment_id": "seg-1",
        "use_case_id": "uc-1",
        "locale": "en",
        "version": 4,
        "created_at": TS,
        "origin": "precompute",
        "generation_run_id": None,
        "steering_text": None,
        "suggestions": suggestions if suggestions is not None else [email_json()],
        **extra,
    }


def thread_json(id: str = "th-1", *, turns: bool = False, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": id,
        "name": "Spring sale",
        "segment_id": "seg-1",
        "use_case_id": "uc-1",
        "locale": "en",
        "head_suggestion_id": "sg-1",
        "root_origin": "steered",
        "turn_count": 1,
        "created_at": TS,
        "updated_at": TS,
    }
    if turns:
        body["turns"] = [
            {"version": 1, "suggestion_id": "sg-1", "generated_at": TS, "instruction": None}
        ]
    return {**body, **extra}


def run_json(id: str = "run-1", status: str = "queued", **extra: Any) -> dict[str, Any]:
    return {
        "id": id,
        "type": "steered_generation",
        "status": status,
        "created_at": TS,
        "created_by": "user-1",
        "attempt_count": 0,
        "request": {
            "type": "steered_generation",
            "segment_id": "seg-1",
            "use_case_id": "uc-1",
            "steering_text": "Spring sale for cyclists",
            "variant_count": 2,
        },
        "suggestion_set_id": None,
        "suggestion_id": None,
        "error": None,
        **extra,
    }
