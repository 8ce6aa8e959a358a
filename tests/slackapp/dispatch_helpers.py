"""The real Bolt app, driven through ``app.dispatch`` with signed requests, no servers at all.

What the app is built from: an in-memory store, a Slack client that records every call and
answers like Slack, and the content client speaking to a sandbox held in memory (its ASGI app
called directly, not over a port). Requests are signed and shaped the way Slack sends them
(``suggestbot.slackemu.payloads``), so the tests know listeners only by what goes in and what
comes out, never by which module holds them.
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import json
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

import httpx
from slack_bolt import App, BoltRequest, BoltResponse
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.web import SlackResponse

from suggestbot.contentapi import ClientCredentialsAuth, ContentClient
from suggestbot.flows.common.deps import Deps
from suggestbot.sandbox import Sandbox
from suggestbot.slackapp.app import build_app
from suggestbot.slackemu import forms, payloads
from suggestbot.slackemu.model import BOT_ID, BOT_USER_ID, Channel, User
from suggestbot.slackemu.signing import signed_headers
from suggestbot.store import DeliveryLog, MemoryStore, TokenVault, generate_key
from suggestbot.store.records import Records

SIGNING_SECRET = "dispatch-test-signing-secret"
TEAM_ID, TEAM_DOMAIN = "T0DISPATCH", "dispatch"
ALICE = User(id="U0ALICE01", name="alice", team_id=TEAM_ID)
BRUNO = User(id="U0BRUNO01", name="bruno", team_id=TEAM_ID)
GENERAL = Channel(id="C0GENERAL1", name="general", created=1_700_000_000)
SERVICE_URL = "http://content-service.invalid"


class SandboxTransport(httpx.BaseTransport):
    """Hands each request to the sandbox's ASGI app in this process: the content client, its
    auth and the contract checks all run for real, with no port and no thread of its own."""

    def __init__(self, sandbox: Sandbox) -> None:
        self._asgi = httpx.ASGITransport(app=sandbox.app)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        async def call() -> httpx.Response:
            answer = await self._asgi.handle_async_request(request)
            body = b"".join([chunk async for chunk in answer.stream])  # type: ignore[union-attr]
            return httpx.Response(answer.status_code, headers=answer.headers, content=body)

        return asyncio.run(call())


@dataclass
class Call:
    method: str
    args: dict[str, Any]
    answer: dict[str, Any] = field(default_factory=dict)


class RecordingSlack(WebClient):
    """A ``WebClient`` that records each Web API call and answers as Slack does, offline.

    ``refuse`` maps a method to the error Slack answers it with (e.g. ``not_in_channel``).
    """

    def __init__(self) -> None:
        super().__init__(token="xoxb-dispatch-test-token", base_url="http://slack.invalid/api/")
        self.calls: list[Call] = []
        self.refuse: dict[str, str] = {}
        self.locales: dict[str, str] = {}  # user id -> Slack locale; else en-US
        self.admins: set[str] = set()  # user ids Slack says administer the workspace
        self._ts = itertools.count(1)
        self._views = itertools.count(1)
        self._messages: dict[tuple[str, str], dict[str, Any]] = {}  # (channel, ts) -> message

    def api_call(
        self, api_method: str, *, json: Any = None, data: Any = None, params: Any = None, **_: Any
    ) -> SlackResponse:
        args = {**(params or {}), **(data or {}), **(json or {})}
        call = Call(api_method, {k: v for k, v in args.items() if k != "token"})
        self.calls.append(call)
        if api_method in self.refuse:
            error = {"ok": False, "error": self.refuse[api_method]}
            raise SlackApiError(error["error"], self._response(api_method, error))
        call.answer = {"ok": True, **self._answer(api_method, args)}
        return self._response(api_method, call.answer)

    def _response(self, method: str, data: dict[str, Any]) -> SlackResponse:
        return SlackResponse(
            client=self,
            http_verb="POST",
            api_url=f"http://slack.invalid/api/{method}",
            req_args={},
            data=data,
            headers={},
            status_code=200,
        )

    def _answer(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        if method == "auth.test":
            return {"team_id": TEAM_ID, "user_id": BOT_USER_ID, "bot_id": BOT_ID, "team": "T"}
        if method == "users.info":
            user = str(args.get("user"))
            locale = self.locales.get(user, "en-US")
            shown = {"id": user, "locale": locale, "tz": "Europe/Berlin"}
            return {"user": {**shown, "is_admin": user in self.admins}}
        if method in ("chat.postMessage", "chat.update"):
            channel = str(args.get("channel"))
            ts = args.get("ts") or f"{1_700_000_000 + next(self._ts)}.000100"
            message = self._messages.setdefault((channel, ts), {"ts": ts, "bot_id": BOT_ID})
            message.update({"type": "message", "user": BOT_USER_ID, "text": args.get("text")})
            message.update({k: args[k] for k in ("blocks", "thread_ts", "metadata") if k in args})
            return {"channel": channel, "ts": ts, "message": message}
        if method == "chat.postEphemeral":
            return {"message_ts": f"{1_700_000_000 + next(self._ts)}.000200"}
        if method in ("views.open", "views.update", "views.push", "views.publish"):
            view = args.get("view")
            view = json_loads(view) if isinstance(view, str) else dict(view or {})
            view_id = args.get("view_id") or f"V0{next(self._views):08d}"
            return {"view": {**view, "id": view_id, "hash": f"h{view_id}"}}
        if method == "conversations.open":
            return {"channel": {"id": "D0" + str(args.get("users"))[2:]}}
        if method in ("conversations.history", "conversations.replies"):
            return {"messages": self._history(method, args), "has_more": False}
        if method == "conversations.members":  # #general has everyone; a DM its person
            channel = str(args.get("channel"))
            everyone = [ALICE.id, BRUNO.id, BOT_USER_ID]
            members = everyone if channel == GENERAL.id else ["U0" + channel[2:], BOT_USER_ID]
            return {"members": members, "response_metadata": {"next_cursor": ""}}
        return {}

    def _history(self, method: str, args: dict[str, Any]) -> list[dict[str, Any]]:
        """A channel's messages newest first, or a thread's oldest first, as Slack lists them;
        ``metadata`` only when asked for (``include_all_metadata``)."""
        channel = str(args.get("channel"))
        found = [m for (c, _), m in self._messages.items() if c == channel]
        if method == "conversations.replies":
            root = str(args.get("ts"))
            found = sorted(
                (m for m in found if root in (m["ts"], m.get("thread_ts"))), key=lambda m: m["ts"]
            )
        else:
            found = sorted((m for m in found if not m.get("thread_ts")), key=lambda m: m["ts"])
            found.reverse()
        found = found[: int(args.get("limit") or 100)]
        if args.get("include_all_metadata"):
            return [dict(m) for m in found]
        return [{k: v for k, v in m.items() if k != "metadata"} for m in found]

    def made(self, method: str) -> list[dict[str, Any]]:
        """The arguments of every call of ``method``, in order."""
        return [c.args for c in self.calls if c.method == method]


def json_loads(text: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(text)
    return loaded


class SameThread(Executor):
    """Runs each listener to its end inside ``dispatch``: the test sees everything the listener
    and the work it handed over did, without waiting on another thread."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        done: Future[Any] = Future()
        try:
            done.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # handed to the future, as a pool does
            done.set_exception(exc)
        return done


class DiesAfterTheAck(Executor):
    """Background work that never runs: the process died right after the ack."""

    def __init__(self) -> None:
        self.dropped = 0

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.dropped += 1
        return Future()


@dataclass
class RecordingTimers:
    """The deferred work the flows asked for (``suggestbot.jobs`` would carry it out)."""

    watched: list[str] = field(default_factory=list)
    sent_later: list[str] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)

    def watch_run(self, request_id: str, *, delay_s: float) -> None:
        self.watched.append(request_id)

    def send_later(self, request_id: str, *, at: float) -> None:
        self.sent_later.append(request_id)

    def hold_send(self, request_id: str) -> None:
        """A send begun here; a replica taking it over is the jobs' business."""

    def record_held_send(self, requests: Any, req: Any) -> bool:
        """Written, and its send held here, in one write (as the app's timers do it)."""
        if not requests.put_if_absent_held(
            req.id, req, queue="run_sends", owner="dispatch-test", now=time.time(), lease_s=10.0
        ):
            return False
        self.hold_send(req.id)
        return True

    def end_send(self, request_id: str) -> None:
        """The send begun here is over."""

    def cancel(self, request_id: str) -> None:
        self.cancelled.append(request_id)


class Workspace:
    """One workspace with the real app: send it what Slack would send, read what it did."""

    def __init__(self, *, background: Executor | None = None) -> None:
        self.sandbox = Sandbox(time_factor=0.01)
        demo = self.sandbox.demo
        assert demo is not None
        self.demo = demo
        auth = ClientCredentialsAuth.for_base_url(SERVICE_URL, demo.client_id, demo.client_secret)
        self.content = ContentClient(
            SERVICE_URL, auth=auth, transport=SandboxTransport(self.sandbox), max_retries=0
        )
        self.store = MemoryStore()
        self.slack = RecordingSlack()
        self.timers = RecordingTimers()
        self.deps = Deps(
            records=Records(self.store),
            vault=TokenVault([generate_key()]),
            content=self.content,
            slack=self.slack,
            timers=self.timers,
            deliveries=DeliveryLog(self.store),
            background=background,
        )
        self.app: App = build_app(deps=self.deps, client=self.slack, signing_secret=SIGNING_SECRET)
        self.app.listener_runner.listener_executor = SameThread()
        self._triggers = itertools.count(1)

    def close(self) -> None:
        self.content.close()

    # -- what Slack sends --------------------------------------------------------------------

    def dispatch(self, body: bytes, *, content_type: str, secret: str = SIGNING_SECRET) -> Any:
        headers = signed_headers(signing_secret=secret, timestamp=int(time.time()), body=body)
        request = BoltRequest(
            body=body.decode("utf-8"), headers={**headers, "Content-Type": content_type}
        )
        # In its own context, as the HTTP edge runs each request: what the middleware sets for
        # one delivery (its workspace, the interaction it serves) must not leak into the next
        # test.
        return contextvars.copy_context().run(self.app.dispatch, request)

    def command(self, text: str, *, user: User = ALICE, secret: str = SIGNING_SECRET) -> Any:
        """``/suggest <text>`` typed in #general. No ``response_url``: answering one would leave
        this process, so the app answers with ``chat.postEphemeral`` as it does without one."""
        form = payloads.slash_command_form(
            team_id=TEAM_ID,
            team_domain=TEAM_DOMAIN,
            channel=GENERAL,
            user=user,
            command="/suggest",
            text=text,
            response_url="",
            trigger_id=self._trigger(),
        )
        fields = {k: v for k, v in _form(form).items() if k != "response_url"}
        body = urlencode(fields).encode()
        return self.dispatch(body, content_type="application/x-www-form-urlencoded", secret=secret)

    def reply(self, text: str, *, thread_ts: str, user: User = ALICE) -> BoltResponse:
        """A person's reply in a thread of #general."""
        ts = f"{time.time():.6f}"
        event = payloads.message_event(
            team_id=TEAM_ID,
            channel=GENERAL,
            user_id=user.id,
            text=text,
            ts=ts,
            client_msg_id=f"msg-{ts}",
            thread_ts=thread_ts,
            parent_user_id=BOT_USER_ID,
        )
        envelope = payloads.event_envelope(
            team_id=TEAM_ID, event=event, event_id=f"Ev{self._trigger()}", event_time=int(ts[:10])
        )
        result: BoltResponse = self.dispatch(
            json.dumps(envelope).encode(), content_type="application/json"
        )
        return result

    def press(
        self, action_id: str, value: str, *, message_ts: str, user: User = ALICE
    ) -> BoltResponse:
        """A button pressed on a message the app posted in #general."""
        payload = payloads.block_actions(
            user=user,
            team_id=TEAM_ID,
            team_domain=TEAM_DOMAIN,
            container={
                "type": "message",
                "message_ts": message_ts,
                "channel_id": GENERAL.id,
                "is_ephemeral": False,
            },
            trigger_id=self._trigger(),
            action={
                "action_id": action_id,
                "block_id": "actions",
                "type": "button",
                "value": value,
                "action_ts": f"{time.time():.6f}",
            },
            channel=GENERAL,
            message={"ts": message_ts, "type": "message", "user": BOT_USER_ID},
        )
        return self._interaction(payload)

    def pick_in_home(self, action_id: str, value: str, *, user: User = ALICE) -> BoltResponse:
        """An option picked in a static select of the user's App Home."""
        payload = payloads.block_actions(
            user=user,
            team_id=TEAM_ID,
            team_domain=TEAM_DOMAIN,
            container={"type": "view", "view_id": "V0HOME"},
            trigger_id=self._trigger(),
            action={
                "action_id": action_id,
                "block_id": "admin-language",
                "type": "static_select",
                "selected_option": {"text": {"type": "plain_text", "text": value}, "value": value},
                "action_ts": f"{time.time():.6f}",
            },
            view={"id": "V0HOME", "type": "home", "blocks": []},
        )
        return self._interaction(payload)

    def submit(
        self, view: dict[str, Any], values: Mapping[str, forms.Value], *, user: User = ALICE
    ) -> BoltResponse:
        """``view`` (as the app opened it) filled in by its labels and submitted."""
        state = forms.fill(view, values)
        submitted = {**view, "type": "modal", "state": {"values": state}}
        payload = payloads.view_submission(
            user=user,
            team_id=TEAM_ID,
            team_domain=TEAM_DOMAIN,
            trigger_id=self._trigger(),
            view=submitted,
        )
        return self._interaction(payload)

    def _interaction(self, payload: dict[str, Any]) -> BoltResponse:
        body = urlencode({"payload": json.dumps(payload)}).encode()
        result: BoltResponse = self.dispatch(body, content_type="application/x-www-form-urlencoded")
        return result

    def _trigger(self) -> str:
        return f"{next(self._triggers)}.{int(time.time())}.0a1b2c3d4e5f"

    # -- what the user sees -----------------------------------------------------------------

    def ephemeral_texts(self, user: User = ALICE) -> list[str]:
        return [c["text"] for c in self.slack.made("chat.postEphemeral") if c["user"] == user.id]

    def posts(self, channel: Channel = GENERAL) -> list[dict[str, Any]]:
        return [c for c in self.slack.made("chat.postMessage") if c["channel"] == channel.id]

    def posted_ts(self, message: dict[str, Any]) -> str:
        """The ``ts`` Slack gave the message posted with ``message``'s arguments."""
        [call] = [c for c in self.slack.calls if c.args is message]
        return str(call.answer["ts"])

    def opened_view(self) -> dict[str, Any]:
        """The last modal the app opened or filled in (what the user sees on screen)."""
        views = [c for c in self.slack.calls if c.method in ("views.open", "views.update")]
        assert views, "the app opened no modal"
        view = views[-1].args["view"]
        return json_loads(view) if isinstance(view, str) else dict(view)


def _form(body: bytes) -> dict[str, str]:
    return dict(parse_qsl(body.decode(), keep_blank_values=True))


def texts_of(blocks: Any) -> str:
    """Every text in a message's blocks (a list, or its JSON), joined by spaces."""
    return " ".join(_texts(json.loads(blocks) if isinstance(blocks, str) else blocks))


def _texts(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "text" and isinstance(value, str):
                yield value
            else:
                yield from _texts(value)
    elif isinstance(node, list):
        for item in node:
            yield from _texts(item)
