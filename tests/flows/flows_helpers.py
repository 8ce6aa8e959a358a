"""Fast doubles for the flows: Slack and the service in memory, a clock that moves on command.

``ScriptedService`` is the Content Suggestion Service as the flows meet it, behind
``httpx.MockTransport``, so the real ``ContentClient`` reads its answers (errors come from
contract envelopes and map through the client's own error tree). Runs are created by the app
and finished by the test. ``RecordingSlack`` keeps what the app posted per channel, so updates,
threads and metadata look-ups behave as in Slack. ``world()`` wires both into ``Deps`` with an
in-memory store.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from cryptography.fernet import Fernet
from slack_sdk.errors import SlackApiError
from slack_sdk.web import SlackResponse

from suggestbot.contentapi import ClientCredentialsAuth, ContentClient
from suggestbot.flows.brief import sending as brief
from suggestbot.flows.common.deps import Deps
from suggestbot.store import MemoryStore, Store, TokenVault
from suggestbot.store.records import LinkedUser, Records, Request, user_key

BASE_URL = "https://content.test"
TEAM = "T1"
CHANNEL = "C1"
ALICE, BRUNO = "U-alice", "U-bruno"
SEGMENT, USE_CASE = "seg-1", "uc-1"
EPOCH = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


class FakeClock:
    """Epoch seconds that only move when a test says so."""

    def __init__(self, start: float = EPOCH.timestamp()) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class RecordingTimers:
    """The deferred work the flows ask for, noted instead of scheduled."""

    watched: list[tuple[str, float]] = field(default_factory=list)
    sends: list[tuple[str, float]] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)
    held: list[str] = field(default_factory=list)  # sends begun and not yet ended

    def watch_run(self, request_id: str, *, delay_s: float) -> None:
        self.watched.append((request_id, delay_s))

    def watch_runs(
        self, delays: Mapping[str, float], *, groups: Mapping[str, str] | None = None
    ) -> None:
        self.watched.extend(delays.items())

    def resume_watch(self, request_id: str) -> None:
        self.watched.append((request_id, 0.0))

    def send_later(self, request_id: str, *, at: float) -> None:
        self.sends.append((request_id, at))

    def resume_send(self, request_id: str, *, at: float) -> None:
        self.sends.append((request_id, at))

    def resume_many(self, *, watches: Collection[str], sends: Mapping[str, float]) -> None:
        self.watched.extend((request_id, 0.0) for request_id in watches)
        self.sends.extend(sends.items())

    def hold_send(self, request_id: str) -> None:
        self.held.append(request_id)

    def record_held_send(self, requests: Any, req: Any) -> bool:
        """Written, and its send held here (one write in the app)."""
        if not requests.put_if_absent(req.id, req):
            return False
        self.hold_send(req.id)
        return True

    def end_send(self, request_id: str) -> None:
        if request_id in self.held:
            self.held.remove(request_id)

    def cancel(self, request_id: str) -> None:
        self.cancelled.append(request_id)


# ---------------------------------------------------------------- Slack


def slack_error(method: str, error: str, *, status: int = 200) -> SlackApiError:
    """What ``WebClient`` raises when Slack answers ``ok: false`` (or a 5xx) to ``method``."""
    response = SlackResponse(
        client=None,
        http_verb="POST",
        api_url=f"https://slack.test/api/{method}",
        req_args={},
        data={"ok": False, "error": error},
        headers={},
        status_code=status,
    )
    return SlackApiError(f"The request to {method} failed", response)


@dataclass
class Posted:
    """A message as Slack keeps it."""

    channel: str
    ts: str
    text: str
    blocks: list[dict[str, Any]]
    thread_ts: str | None = None
    metadata: dict[str, Any] | None = None
    updates: int = 0


@dataclass
class Ephemeral:
    channel: str
    user: str
    text: str
    blocks: list[dict[str, Any]]
    thread_ts: str | None = None


class RecordingSlack:
    """The Slack Web API methods the flows call, answering like Slack.

    ``refuse[method]`` holds errors the next calls of ``method`` raise, one per call;
    ``closed_channels`` refuse every post (the bot is not a member).
    """

    def __init__(self) -> None:
        self.messages: dict[tuple[str, str], Posted] = {}
        self.ephemerals: list[Ephemeral] = []
        self.refuse: dict[str, list[SlackApiError]] = {}
        self.closed_channels: set[str] = set()
        self.locales: dict[str, str] = {}
        self.admins: set[str] = set()
        self.homes: list[str] = []
        # assistant.threads.setStatus calls: (channel, thread_ts, status, loading_messages)
        self.statuses: list[tuple[str, str, str, list[str] | None]] = []
        self.prompts: list[dict[str, Any]] = []
        self.permalinks: list[tuple[str, str]] = []
        self._ts = itertools.count(1)

    def _refused(self, method: str) -> None:
        queue = self.refuse.get(method)
        if queue:
            raise queue.pop(0)

    def chat_postMessage(
        self,
        *,
        channel: str,
        text: str,
        blocks: list[dict[str, Any]],
        thread_ts: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        self._refused("chat.postMessage")
        if channel in self.closed_channels:
            raise slack_error("chat.postMessage", "not_in_channel")
        ts = f"{1700000000 + next(self._ts)}.000100"
        self.messages[(channel, ts)] = Posted(channel, ts, text, blocks, thread_ts, metadata)
        return {"ok": True, "channel": channel, "ts": ts}

    def chat_update(
        self, *, channel: str, ts: str, text: str, blocks: list[dict[str, Any]]
    ) -> dict[str, Any]:
        self._refused("chat.update")
        message = self.messages.get((channel, ts))
        if message is None:
            raise slack_error("chat.update", "message_not_found")
        message.text, message.blocks = text, blocks
        message.updates += 1
        return {"ok": True, "channel": channel, "ts": ts}

    def chat_postEphemeral(
        self,
        *,
        channel: str,
        user: str,
        text: str,
        blocks: list[dict[str, Any]],
        thread_ts: str | None = None,
    ) -> dict[str, Any]:
        self._refused("chat.postEphemeral")
        if channel in self.closed_channels:
            raise slack_error("chat.postEphemeral", "not_in_channel")
        self.ephemerals.append(Ephemeral(channel, user, text, blocks, thread_ts))
        return {"ok": True, "message_ts": f"{next(self._ts)}.0"}

    def assistant_threads_setStatus(
        self,
        *,
        channel_id: str,
        thread_ts: str,
        status: str,
        loading_messages: list[str] | None = None,
    ) -> dict[str, Any]:
        self._refused("assistant.threads.setStatus")
        if (channel_id, thread_ts) not in self.messages:
            raise slack_error("assistant.threads.setStatus", "invalid_thread_ts")
        self.statuses.append((channel_id, thread_ts, status, loading_messages))
        return {"ok": True}

    def assistant_threads_setSuggestedPrompts(
        self, *, channel_id: str, prompts: list[dict[str, str]], title: str | None = None
    ) -> dict[str, Any]:
        self._refused("assistant.threads.setSuggestedPrompts")
        self.prompts.append({"channel": channel_id, "title": title, "prompts": prompts})
        return {"ok": True}

    def chat_getPermalink(self, *, channel: str, message_ts: str) -> dict[str, Any]:
        self._refused("chat.getPermalink")
        self.permalinks.append((channel, message_ts))
        return {
            "ok": True,
            "permalink": f"https://team.slack.test/archives/{channel}/p{message_ts}",
        }

    def conversations_open(self, *, users: str) -> dict[str, Any]:
        return {"ok": True, "channel": {"id": f"D-{users}"}}

    def conversations_history(self, *, channel: str, **_: Any) -> dict[str, Any]:
        tops = [m for m in self.messages.values() if m.channel == channel and not m.thread_ts]
        return {"ok": True, "messages": [_as_slack(m) for m in reversed(tops)]}

    def conversations_replies(self, *, channel: str, ts: str, **_: Any) -> dict[str, Any]:
        root = self.messages.get((channel, ts))
        replies = [m for m in self.messages.values() if m.channel == channel and m.thread_ts == ts]
        found = ([root] if root else []) + replies
        return {"ok": True, "messages": [_as_slack(m) for m in found]}

    def users_info(self, *, user: str, include_locale: bool = False) -> dict[str, Any]:
        locale = self.locales.get(user, "en-US")
        return {"ok": True, "user": {"id": user, "locale": locale, "is_admin": user in self.admins}}

    def views_publish(self, *, user_id: str, view: dict[str, Any]) -> dict[str, Any]:
        self.homes.append(user_id)
        return {"ok": True}

    # -- what a person in Slack would see ------------------------------------------------

    def roots(self, channel: str = CHANNEL) -> list[Posted]:
        return [m for m in self.messages.values() if m.channel == channel and not m.thread_ts]

    def thread(self, root: Posted) -> list[Posted]:
        found = self.messages.values()
        return [m for m in found if m.channel == root.channel and m.thread_ts == root.ts]

    def seen_by(self, user: str) -> list[str]:
        """The texts of the ephemerals ``user`` got, oldest first."""
        return [e.text for e in self.ephemerals if e.user == user]


def _as_slack(message: Posted) -> dict[str, Any]:
    shown: dict[str, Any] = {"ts": message.ts, "text": message.text}
    if message.metadata is not None:
        shown["metadata"] = message.metadata
    if message.thread_ts:
        shown["thread_ts"] = message.thread_ts
    return shown


def buttons(blocks: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Each button as (label, action id), in the order shown."""
    found = []
    for block in blocks:
        elements = block.get("elements", []) if block.get("type") == "actions" else []
        accessory = block.get("accessory")
        for element in [*elements, *([accessory] if isinstance(accessory, dict) else [])]:
            if element.get("type") == "button":
                found.append((element["text"]["text"], element["action_id"]))
    return found


# ---------------------------------------------------------------- the service


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def _error(status: int, code: str, headers: dict[str, str] | None = None) -> httpx.Response:
    body = {"errors": [{"code": code, "message": "Refused in this test"}]}
    return httpx.Response(status, json=body, headers=headers)


def email(sid: str, variant_no: int, subject: str, body: str = "Hello there") -> dict[str, Any]:
    return {
        "id": sid,
        "kind": "email",
        "variant_no": variant_no,
        "rationale": None,
        "payload": {"subject": subject, "body": body},
    }


Answer = httpx.Response | Callable[[httpx.Request], httpx.Response]


class ScriptedService:
    """The Content Suggestion Service in memory (see the module docstring).

    ``tokens`` maps each user token it accepts to that user's id in the service.
    ``create_answers`` are given, one each, to the next run creations instead of a new run.
    """

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.tokens: dict[str, str] = {}
        self.create_answers: list[Answer] = []
        self.runs: dict[str, dict[str, Any]] = {}
        self.sets: dict[str, dict[str, Any]] = {}
        self.suggestions: dict[str, dict[str, Any]] = {}
        self.created: list[dict[str, Any]] = []  # bodies of the runs created, in order
        self._ids = itertools.count(1)

    # -- the test moves runs on ------------------------------------------------------------

    def run_of(self, index: int = -1) -> dict[str, Any]:
        return list(self.runs.values())[index]

    def running(self, run_id: str, *, attempt: int = 1) -> None:
        self.runs[run_id].update(status="running", attempt_count=attempt)

    def succeed(self, run_id: str, suggestions: list[dict[str, Any]]) -> None:
        run = self.runs[run_id]
        for suggestion in suggestions:
            self.suggestions[suggestion["id"]] = suggestion
        if run["type"] == "refinement":
            run.update(status="succeeded", suggestion_id=suggestions[0]["id"])
            return
        set_id = f"set-{next(self._ids)}"
        self.sets[set_id] = {
            "id": set_id,
            "segment_id": run["request"]["segment_id"],
            "use_case_id": run["request"]["use_case_id"],
            "locale": "en",
            "created_at": run["created_at"],
            "origin": "steered",
            "generation_run_id": run_id,
            "suggestions": suggestions,
        }
        run.update(status="succeeded", suggestion_set_id=set_id, attempt_count=1)

    def fail(self, run_id: str, code: str) -> None:
        self.runs[run_id].update(status="failed", error={"code": code, "message": "failed"})

    # -- the wire --------------------------------------------------------------------------

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def handle(self, request: httpx.Request) -> httpx.Response:
        path, method = request.url.path, request.method
        if path == "/auth/token":
            body = {"access_token": "machine-token", "token_type": "Bearer", "expires_in": 900}
            return httpx.Response(200, json=body)
        bearer = request.headers.get("Authorization", "").removeprefix("Bearer ")
        if bearer != "machine-token" and bearer not in self.tokens:
            return _error(401, "unauthorized")
        if (method, path) == ("POST", "/v1/generation-runs"):
            if bearer not in self.tokens:
                return _error(403, "user_token_required")
            if self.create_answers:
                return self._answer(self.create_answers.pop(0), request)
            return self.create_run(request, created_by=self.tokens[bearer])
        if (method, path) == ("GET", "/v1/generation-runs"):
            return _collection(sorted(self.runs.values(), key=lambda r: r["created_at"])[::-1])
        parts = path.strip("/").split("/")
        found = {
            ("generation-runs", "GET"): self.runs,
            ("suggestion-sets", "GET"): self.sets,
            ("suggestions", "GET"): self.suggestions,
        }.get((parts[1], method))
        if found is not None and len(parts) == 3:
            return httpx.Response(200, json=found[parts[2]]) if parts[2] in found else _404()
        if (method, path) == ("GET", "/v1/threads"):
            return _collection([])  # no service thread yet: the first refinement makes one
        if parts[1] == "threads":
            return _404()
        return _error(404, "not_found")

    def _answer(self, answer: Answer, request: httpx.Request) -> httpx.Response:
        return answer if isinstance(answer, httpx.Response) else answer(request)

    def create_run(self, request: httpx.Request, *, created_by: str) -> httpx.Response:
        body = json.loads(request.content)
        self.created.append(body)
        run_id = f"run-{next(self._ids)}"
        created = datetime.fromtimestamp(self.clock(), UTC) + timedelta(microseconds=len(self.runs))
        self.runs[run_id] = {
            "id": run_id,
            "type": body["type"],
            "status": "queued",
            "created_at": _iso(created),
            "created_by": created_by,
            "attempt_count": 0,
            "request": body,
        }
        return httpx.Response(202, json=self.runs[run_id])


def _collection(items: list[dict[str, Any]]) -> httpx.Response:
    return httpx.Response(200, json={"data": items, "meta": {"next_cursor": None}})


def _404() -> httpx.Response:
    return _error(404, "not_found")


def refused(status: int, code: str, **headers: str) -> httpx.Response:
    """A run creation the service refuses with ``code`` (``retry_after="30"`` and the like)."""
    return _error(status, code, {k.replace("_", "-"): v for k, v in headers.items()})


# ---------------------------------------------------------------- the whole world


@dataclass
class World:
    deps: Deps
    slack: RecordingSlack
    service: ScriptedService
    timers: RecordingTimers
    clock: FakeClock

    def link(self, user_id: str, *, token: str | None = None) -> str:
        """Link ``user_id`` with a token the service accepts; returns the token."""
        token = token or f"user-token-{user_id}"
        self.service.tokens[token] = f"svc-{user_id}"
        linked = LinkedUser(
            team_id=TEAM,
            user_id=user_id,
            token_enc=self.deps.vault.encrypt(token),
            linked_at=self.clock(),
        )
        self.deps.records.users.put(user_key(TEAM, user_id), linked)
        return token


def world(*, store: Store | None = None) -> World:
    """The flows wired to the doubles, on ``store`` (a fresh in-memory one by default)."""
    clock = FakeClock()
    service = ScriptedService(clock)
    slack = RecordingSlack()
    timers = RecordingTimers()
    auth = ClientCredentialsAuth(f"{BASE_URL}/auth/token", "client-id", "client-secret")
    content = ContentClient(
        BASE_URL, auth=auth, transport=service.transport(), sleep=lambda s: None, max_retries=0
    )
    deps = Deps(
        records=Records(store if store is not None else MemoryStore()),
        vault=TokenVault([Fernet.generate_key().decode()]),
        content=content,
        slack=slack,  # type: ignore[arg-type]
        timers=timers,
        clock=clock,
    )
    return World(deps=deps, slack=slack, service=service, timers=timers, clock=clock)


def record_brief(
    w: World, segment: str = SEGMENT, names: tuple[str, str] = ("Hikers", "Spring")
) -> Request:
    """Alice's brief "Boots" (two variants), recorded as a listener records it before its ack."""
    return brief.record(
        w.deps,
        team_id=TEAM,
        user_id=ALICE,
        channel_id=CHANNEL,
        run_request=brief.steered_request(
            segment_id=segment, use_case_id=USE_CASE, text="Boots", variants=2
        ),
        labels={"segment": names[0], "use_case": names[1]},
    )
