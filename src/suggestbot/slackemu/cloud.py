"""Several emulated workspaces behind one address, as ``slack.com`` serves every workspace.

An app installed in several workspaces has one Slack API address. :class:`SlackCloud` serves
a few :class:`~suggestbot.slackemu.SlackEmulator` workspaces there and hands each request to
the workspace it belongs to:

- Web API calls and file downloads: the workspace that issued the token;
- ``oauth.v2.access``: the workspace that issued the code or refresh token;
- response URLs (``/hooks/{kind}/{team}/…``): the team in the path;
- the authorize page: the workspace the browser is signed in to (``emu_team`` cookie);
- uploads: the workspace that issued the upload ticket.

A request no workspace claims goes to the first one, which answers as Slack would
(``invalid_auth``, ``invalid_code``, …). The emulators are not served on their own meanwhile.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from types import TracebackType
from typing import Any
from urllib.parse import parse_qsl

from suggestbot.asgi_thread import BackgroundServer
from suggestbot.slackemu.emulator import SlackEmulator
from suggestbot.slackemu.oauth import TEAM_COOKIE, cookie_values
from suggestbot.slackemu.server import parse_body

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class SlackCloud:
    """Serve ``emulators`` (at least one) behind one loopback address."""

    def __init__(self, *emulators: SlackEmulator) -> None:
        if not emulators:
            raise ValueError("a SlackCloud needs at least one workspace")
        self.emulators = list(emulators)
        self._apps = {emu.team_id: emu.asgi_app for emu in emulators}
        self._server: BackgroundServer | None = None

    def start(self) -> SlackCloud:
        if self._server is None:
            self._server = BackgroundServer(self, name="slack-cloud").start()
            for emu in self.emulators:
                with emu.ws.lock:
                    emu.ws.base_url = f"{self._server.url}/"
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None

    def __enter__(self) -> SlackCloud:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the cloud is not serving; use `with cloud:` or cloud.start()")
        return self._server.url

    @property
    def api_url(self) -> str:
        """``base_url`` for ``slack_sdk.WebClient`` (ends with ``/api/``)."""
        return f"{self.url}/api/"

    # -- routing -------------------------------------------------------------------------
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        emu = self._owner(scope, body)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self._apps[emu.team_id](scope, replay, send)

    def _owner(self, scope: Scope, body: bytes) -> SlackEmulator:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        path: str = scope["path"]
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        parts = path.strip("/").split("/")
        if parts[0] == "hooks" and len(parts) >= 3:
            return self._by_team(parts[2])
        if parts[0] == "oauth":
            return self._by_team(cookie_values(headers.get("cookie")).get(TEAM_COOKIE))
        if parts[0] == "upload" and len(parts) >= 3:
            return self._first(lambda emu: parts[2] in emu.ws.upload_tickets)
        secrets = [_bearer(headers.get("authorization"))]
        if parts[0] == "api":
            try:
                params, body_token = parse_body(headers.get("content-type"), body, query)
            except Exception:  # the owner answers malformed bodies as Slack would
                params, body_token = {}, None
            secrets += [body_token, params.get("code"), params.get("refresh_token")]
        known = [s for s in secrets if isinstance(s, str) and s]
        return self._first(
            lambda emu: any(
                s == emu.bot_token
                or emu.ws.oauth.knows(s)
                or emu.ws.function_executions.by_token(s) is not None
                for s in known
            )
        )

    def _by_team(self, team_id: str | None) -> SlackEmulator:
        return self._first(lambda emu: emu.team_id == team_id)

    def _first(self, owns: Callable[[SlackEmulator], bool]) -> SlackEmulator:
        for emu in self.emulators:
            with emu.ws.lock:
                if owns(emu):
                    return emu
        return self.emulators[0]


def _bearer(authorization: str | None) -> str | None:
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip() or None
    return None
