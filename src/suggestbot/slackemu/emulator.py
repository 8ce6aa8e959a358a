"""``SlackEmulator``: a Slack workspace with the app installed, served over loopback HTTP.

Typical use::

    with SlackEmulator() as emu:                       # starts the HTTP server
        alice = emu.add_user("U0ALICE", "alice", locale="de-DE")
        general = emu.add_channel("general", members=[alice])
        emu.invite_bot(general)
        client = WebClient(token=emu.bot_token, base_url=emu.api_url)

``api_url`` ends with ``/api/`` because ``slack_sdk`` appends the method name to ``base_url``.
What a person would see is read back with :meth:`transcript`, :meth:`ephemeral_transcript`,
:meth:`messages`, :meth:`current_view`; what the app called with :meth:`calls`.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from types import TracebackType
from typing import Any

from suggestbot.asgi_thread import BackgroundServer
from suggestbot.slackemu import transcript as _transcript
from suggestbot.slackemu.assistant import StatusChange
from suggestbot.slackemu.faults import Faults
from suggestbot.slackemu.manifest import AppManifest
from suggestbot.slackemu.methods import DEFAULT_SCOPES
from suggestbot.slackemu.model import BOT_ID, BOT_USER_ID, RecordedCall, User
from suggestbot.slackemu.oauth import AUTHORIZE_PATH, OAuthApp
from suggestbot.slackemu.rationing import Rationing
from suggestbot.slackemu.server import ApiServer, CallLog, Sleep, default_sleep
from suggestbot.slackemu.workspace import Workspace


class SlackEmulator:
    """A strict local stand-in for one Slack workspace's Web API.

    Args:
        bot_token: the app's bot token; any other token gets ``invalid_auth`` unless the
            workspace issued it by an install (:meth:`register_app`). A random
            ``xoxb-emu-…`` token when omitted.
        scopes: the bot scopes the app's manifest grants; a method needing another one
            answers ``missing_scope``. Default: the manifest's bot scopes when ``manifest`` is
            given, else ``DEFAULT_SCOPES``.
        manifest: the app's manifest (``manifest.yml`` parsed to a dict). With it the
            emulator behaves as Slack does for that app: only subscribed events are
            delivered, only declared message shortcuts and workflow steps exist, the Messages
            tab is open or read-only as declared, and the AI-app methods follow the declared
            ``agent_view``/``assistant_view``. Without it the driver delivers everything.
        team_id / team_domain: the workspace identity in payloads and permalinks.
        clock: monotonic seconds for trigger expiry, response_url expiry and rate windows.
        wall_clock: epoch seconds for message ``ts`` values.
        sleep: how injected latency waits (an ``async`` function of seconds).
        check_image_urls: download every ``image_url`` when a message or view is posted and
            refuse it (``downloading image failed``) when that fails, as Slack does.
    """

    def __init__(
        self,
        *,
        bot_token: str | None = None,
        scopes: Collection[str] | None = None,
        manifest: Mapping[str, Any] | None = None,
        team_id: str = "T0EMU",
        team_domain: str = "emu",
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        sleep: Sleep = default_sleep,
        check_image_urls: bool = False,
        rationing: bool = True,
    ) -> None:
        self.bot_token = bot_token or f"xoxb-emu-{secrets.token_hex(12)}"
        app_manifest = AppManifest.from_dict(manifest) if manifest is not None else None
        if scopes is None:
            scopes = app_manifest.bot_scopes if app_manifest is not None else DEFAULT_SCOPES
        self.ws = Workspace(
            team_id=team_id,
            team_domain=team_domain,
            bot_token=self.bot_token,
            scopes=scopes,
            clock=clock,
            wall_clock=wall_clock,
            manifest=app_manifest,
        )
        self.ws.check_image_urls = check_image_urls
        self.faults = Faults(clock=clock)
        # Slack's rate limits, on unless a test that needs unlimited calls says otherwise.
        self.rationing = Rationing(clock=clock, on=rationing)
        self._log = CallLog()
        self._api = ApiServer(
            self.ws, self.faults, self._log, sleep=sleep, rationing=self.rationing
        )
        self._server: BackgroundServer | None = None

    def __repr__(self) -> str:
        # Never show the token.
        return f"SlackEmulator(team_id={self.team_id!r}, url={self.url!r})"

    # -- identity ------------------------------------------------------------------------
    @property
    def team_id(self) -> str:
        return self.ws.team_id

    @property
    def team_domain(self) -> str:
        return self.ws.team_domain

    @property
    def bot_user_id(self) -> str:
        return BOT_USER_ID

    @property
    def bot_id(self) -> str:
        return BOT_ID

    # -- serving -------------------------------------------------------------------------
    @property
    def asgi_app(self) -> Any:
        return self._api.asgi_app()

    def start(self) -> SlackEmulator:
        if self._server is not None:
            return self
        server = BackgroundServer(self.asgi_app, name="slack-emulator")
        server.start()
        self._server = server
        with self.ws.lock:
            self.ws.base_url = f"{server.url}/"
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None

    @contextmanager
    def serve(self) -> Iterator[SlackEmulator]:
        """Serve over loopback for the duration of the ``with`` block."""
        self.start()
        try:
            yield self
        finally:
            self.stop()

    def __enter__(self) -> SlackEmulator:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def url(self) -> str | None:
        """Base URL of the running server (``http://127.0.0.1:PORT``), None when stopped."""
        return self._server.url if self._server is not None else None

    @property
    def api_url(self) -> str:
        """``base_url`` for ``slack_sdk.WebClient``; ends with ``/api/``."""
        if self._server is None:
            raise RuntimeError("the emulator is not serving; use `with emu:` or emu.start()")
        return f"{self._server.url}/api/"

    # -- installing the app (OAuth) ------------------------------------------------------
    def register_app(
        self,
        *,
        client_id: str,
        client_secret: str,
        redirect_url: str | None = None,
        token_rotation: bool = False,
        token_lifetime_s: float | None = None,
    ) -> OAuthApp:
        """Configure the app for installs through ``/oauth/v2/authorize`` + ``oauth.v2.access``.

        The returned settings may be changed later (e.g. ``token_lifetime_s``).
        """
        app = OAuthApp(client_id, client_secret, redirect_url, token_rotation)
        if token_lifetime_s is not None:
            app.token_lifetime_s = token_lifetime_s
        with self.ws.lock:
            self.ws.oauth.app = app
        return app

    @property
    def authorize_url(self) -> str:
        """Where an app sends a person to approve an install (Slack's ``/oauth/v2/authorize``)."""
        with self.ws.lock:
            return self.ws.base_url.rstrip("/") + AUTHORIZE_PATH

    def revoke_bot_token(self) -> None:
        """Revoke the app's bot token alone (an admin did it; the app stays installed)."""
        with self.ws.lock:
            self.ws.bot_token_revoked = True

    def uninstall(self) -> None:
        """Uninstall the app: every token it holds is revoked (the driver tells the app)."""
        with self.ws.lock:
            self.ws.oauth.uninstall()

    @property
    def installs(self) -> int:
        """How many codes were exchanged for tokens."""
        with self.ws.lock:
            return self.ws.oauth.installs

    @property
    def token_refreshes(self) -> int:
        """How many refresh tokens were exchanged for new tokens."""
        with self.ws.lock:
            return self.ws.oauth.refreshes

    def token_accepted(self, token: str) -> bool:
        """Whether a Web API call with ``token`` would be accepted now."""
        with self.ws.lock:
            return self.ws.token_problem(token) is None

    # -- workspace setup -----------------------------------------------------------------
    def add_user(
        self,
        user_id: str,
        name: str,
        *,
        locale: str = "en-US",
        tz: str = "Europe/Berlin",
        is_admin: bool = False,
    ) -> str:
        """Add a person to the workspace; returns ``user_id``."""
        if not user_id.startswith(("U", "W")):
            raise ValueError("Slack user ids start with U or W")
        with self.ws.lock:
            self.ws.users[user_id] = User(
                id=user_id,
                name=name,
                team_id=self.team_id,
                locale=locale,
                tz=tz,
                is_admin=is_admin,
                is_owner=False,
            )
        return user_id

    def add_channel(
        self,
        name: str,
        *,
        members: Collection[str] = (),
        is_private: bool = False,
        archived: bool = False,
    ) -> str:
        """Add a channel (without the bot); returns its id."""
        with self.ws.lock:
            return self.ws.add_channel(
                name, members=members, is_private=is_private, archived=archived
            )

    def invite_bot(self, channel_id: str) -> None:
        with self.ws.lock:
            self.ws.channel(channel_id).members.add(BOT_USER_ID)

    def remove_bot(self, channel_id: str) -> None:
        with self.ws.lock:
            self.ws.channel(channel_id).members.discard(BOT_USER_ID)

    def join(self, channel_id: str, user_id: str) -> None:
        with self.ws.lock:
            self.ws.user(user_id)
            self.ws.channel(channel_id).members.add(user_id)

    def dm_channel(self, user_id: str) -> str:
        """The bot's DM with a user (opened if needed), as conversations.open would give."""
        with self.ws.lock:
            return self.ws.open_dm(user_id).id

    # -- what the app did ----------------------------------------------------------------
    def calls(self, method: str | None = None) -> list[RecordedCall]:
        """Recorded requests, oldest first; ``upload_url`` and ``response_url`` included."""
        return self._log.matching(method)

    def image_checks(self) -> list[tuple[str, str | None]]:
        """With ``check_image_urls``: each ``image_url`` fetched as Slack fetches it, oldest
        first, with why it did not load (None when it did)."""
        with self.ws.lock:
            return list(self.ws.image_checks)

    @property
    def warnings(self) -> list[str]:
        with self.ws.lock:
            return list(self.ws.warnings)

    # -- what people see -----------------------------------------------------------------
    def messages(self, channel_id: str, thread_ts: str | None = None) -> list[dict[str, Any]]:
        """Channel history (oldest first) or one thread (root first), in Slack's shape.

        Each dict also carries ``channel`` (as message events do) so it can be handed to
        :meth:`SlackDriver.press_button`.
        """
        with self.ws.lock:
            self.ws.channel(channel_id)
            if thread_ts is None:
                stored = self.ws.top_level(channel_id)
            else:
                stored = self.ws.thread(channel_id, self.ws.thread_root_ts(channel_id, thread_ts))
            return [
                {
                    **m.to_api(include_metadata=True, parent_user=self.ws.parent_user(m)),
                    "channel": channel_id,
                }
                for m in stored
            ]

    def ephemerals(self, user_id: str, channel_id: str | None = None) -> list[dict[str, Any]]:
        """Ephemeral messages a user can still see, oldest first."""
        with self.ws.lock:
            return [
                e.to_dict()
                for e in self.ws.ephemerals
                if e.user_id == user_id
                and not e.deleted
                and (channel_id is None or e.channel_id == channel_id)
            ]

    def current_view(self, user_id: str) -> dict[str, Any] | None:
        """The modal on top of the user's stack, or None when no modal is open."""
        with self.ws.lock:
            stack = self.ws.modal_stacks.get(user_id) or []
            return stack[-1].to_api() if stack else None

    def modal_stack(self, user_id: str) -> list[dict[str, Any]]:
        with self.ws.lock:
            return [v.to_api() for v in self.ws.modal_stacks.get(user_id) or []]

    def home_view(self, user_id: str) -> dict[str, Any] | None:
        with self.ws.lock:
            view = self.ws.home_views.get(user_id)
            return view.to_api() if view else None

    def file_content(self, file_id: str) -> bytes | None:
        with self.ws.lock:
            uploaded = self.ws.files.get(file_id)
            return uploaded.content if uploaded else None

    def file_info(self, file_id: str) -> dict[str, Any] | None:
        with self.ws.lock:
            uploaded = self.ws.files.get(file_id)
            return uploaded.to_api(self.ws.base_url) if uploaded else None

    def transcript(self, channel_id: str, *, thread_ts: str | None = None) -> str:
        with self.ws.lock:
            return _transcript.channel_transcript(self.ws, channel_id, thread_ts=thread_ts)

    def ephemeral_transcript(self, user_id: str, channel_id: str | None = None) -> str:
        with self.ws.lock:
            return _transcript.ephemeral_transcript(self.ws, user_id, channel_id)

    def view_transcript(self, user_id: str) -> str:
        view = self.current_view(user_id)
        return _transcript.view_transcript(view) if view else ""

    # -- AI-app surfaces and workflow steps -----------------------------------------------
    def thread_status(self, channel_id: str, thread_ts: str) -> dict[str, Any] | None:
        """The status line a person sees under a thread now (None: none, cleared or lapsed)."""
        with self.ws.lock:
            shown = self.ws.assistant.current(
                self._thread_key(channel_id, thread_ts), now=self.ws.clock()
            )
            return shown.to_dict() if shown else None

    def status_history(self, channel_id: str, thread_ts: str) -> list[dict[str, Any]]:
        """Every change of a thread's status line, oldest first (``cause``: set, cleared,
        reply or lapsed; ``at`` on the emulator's clock)."""
        with self.ws.lock:
            changes: list[StatusChange] = self.ws.assistant.history(
                self._thread_key(channel_id, thread_ts), now=self.ws.clock()
            )
            return [c.to_dict() for c in changes]

    def suggested_prompts(
        self, channel_id: str, thread_ts: str | None = None
    ) -> dict[str, Any] | None:
        """The prompts set for a Messages tab (``thread_ts`` None) or one of its threads."""
        with self.ws.lock:
            root = self._thread_key(channel_id, thread_ts)[1] if thread_ts else None
            prompts = self.ws.assistant.prompts.get((channel_id, root))
            return prompts.to_dict() if prompts else None

    def thread_titles(self, channel_id: str, thread_ts: str) -> list[str]:
        """Titles the app gave a thread, oldest first (the last one shows)."""
        with self.ws.lock:
            return list(self.ws.assistant.titles.get(self._thread_key(channel_id, thread_ts), []))

    def function_executions(self) -> list[dict[str, Any]]:
        """Every workflow step Slack started, oldest first, with its outcome (no tokens)."""
        with self.ws.lock:
            return [e.to_dict() for e in self.ws.function_executions.by_id.values()]

    def function_execution(self, execution_id: str) -> dict[str, Any]:
        with self.ws.lock:
            return self.ws.function_executions.by_id[execution_id].to_dict()

    def _thread_key(self, channel_id: str, thread_ts: str) -> tuple[str, str]:
        stored = self.ws.messages.get(channel_id, {}).get(thread_ts)
        root = stored.thread_ts if stored is not None and stored.thread_ts else thread_ts
        return channel_id, root

    # -- interactions --------------------------------------------------------------------
    def issue_trigger(self, user_id: str) -> str:
        """A fresh ``trigger_id`` for ``user_id``, as a user interaction would produce."""
        with self.ws.lock:
            self.ws.user(user_id)
            return self.ws.issue_trigger(user_id)
