"""``SlackDriver``: Slack's side of the conversation with an app, plus a person's hands.

It sends the app what Slack sends — signed slash commands, Events API callbacks (and their
retries), ``block_actions``, ``view_submission``, ``view_closed``, ``block_suggestion`` — and
applies the app's answers the way Slack and its client do: a slash command's ack text becomes
an ephemeral message, a ``response_action`` updates the modal, a late answer shows Slack's
error instead. Every call returns the HTTP status, the body and how long the app took.

The driver never holds the workspace lock while waiting for the app, because the app calls
the emulator back while it handles the request.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any

import httpx

from suggestbot.slackemu import blockkit, browser, images, payloads
from suggestbot.slackemu.driver_hands import Interactions
from suggestbot.slackemu.driver_surfaces import AgentSurfaces
from suggestbot.slackemu.emulator import SlackEmulator
from suggestbot.slackemu.errors import ApiError, DriverError
from suggestbot.slackemu.model import BOT_USER_ID, Channel, UploadedFile, User
from suggestbot.slackemu.results import (
    ACK_DEADLINE_S,
    AppResponse,
    PostedMessage,
    RetriedDelivery,
)
from suggestbot.slackemu.signing import signed_headers
from suggestbot.slackemu.workspace import Workspace

_FORM = "application/x-www-form-urlencoded"
_JSON = "application/json"


class SlackDriver(AgentSurfaces, Interactions):
    """Talks to a Slack app at ``app_url`` exactly as Slack does, for one emulator.

    The AI-app surfaces (Messages tab, suggested prompts, feedback buttons, message shortcuts,
    workflow steps) come from :class:`AgentSurfaces`; buttons, selects and modals from
    :class:`~suggestbot.slackemu.driver_hands.Interactions`.

    Args:
        emu: the workspace the person acts in.
        app_url: where the app receives Slack requests, e.g.
            ``http://127.0.0.1:PORT/slack/events``.
        signing_secret: the app's signing secret; every request is signed with it.
        timeout: how long to wait for the app before giving up on a request.
        timestamp_clock: epoch seconds for ``X-Slack-Request-Timestamp``.
        timer: measures how long the app took (``time.perf_counter``; injectable so ack
            deadlines can be tested without waiting).
    """

    def __init__(
        self,
        emu: SlackEmulator,
        *,
        app_url: str,
        signing_secret: str,
        timeout: float = 30.0,
        timestamp_clock: Callable[[], float] = time.time,
        timer: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.emu = emu
        self.app_url = app_url
        self._secret = signing_secret
        self._timeout = timeout
        self._timestamp_clock = timestamp_clock
        self._timer = timer
        # A fresh connection per delivery, as Slack's requests arrive: a kept-alive one that the
        # app's server closes for idleness just as the next request goes out fails that request
        # with "Server disconnected" before the app ever saw it (a race of the client, not the
        # app).
        self._http = httpx.Client(timeout=timeout, limits=httpx.Limits(max_keepalive_connections=0))

    def __repr__(self) -> str:
        return f"SlackDriver(app_url={self.app_url!r})"

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> SlackDriver:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def _ws(self) -> Workspace:
        return self.emu.ws

    # -- transport -----------------------------------------------------------------------
    def send(
        self,
        body: bytes,
        *,
        content_type: str,
        headers: Mapping[str, str] | None = None,
        client: httpx.Client | None = None,
    ) -> AppResponse:
        """POST a signed request to the app and time its answer."""
        signed = signed_headers(
            signing_secret=self._secret, timestamp=int(self._timestamp_clock()), body=body
        )
        all_headers = {"Content-Type": content_type, **signed, **dict(headers or {})}
        started = self._timer()
        reply = (client or self._http).post(self.app_url, content=body, headers=all_headers)
        elapsed = self._timer() - started
        return AppResponse(reply.status_code, reply.text, dict(reply.headers), elapsed)

    # -- slash commands ------------------------------------------------------------------
    def slash_command(
        self, user_id: str, channel_id: str, text: str, *, command: str = "/suggest"
    ) -> AppResponse:
        """Type ``{command} {text}`` in a channel; the ack's content is shown like Slack does."""
        with self._ws.lock:
            user, channel = self._person_in(user_id, channel_id)
            trigger_id = self._ws.issue_trigger(user.id)
            response_url = self._ws.issue_response_url(
                kind="commands", user_id=user.id, channel_id=channel.id
            )
        body = payloads.slash_command_form(
            team_id=self.emu.team_id,
            team_domain=self.emu.team_domain,
            channel=channel,
            user=user,
            command=command,
            text=text,
            response_url=response_url,
            trigger_id=trigger_id,
        )
        response = self.send(body, content_type=_FORM)
        self._show_command_ack(response, command, user, channel)
        return response

    def _show_command_ack(
        self, response: AppResponse, command: str, user: User, channel: Channel
    ) -> None:
        probed: dict[str, str | None] = {}
        if self._ws.check_image_urls and response.body.strip():
            probed = images.probe(images.image_urls(response.body))
        failure = None
        if response.status != 200:
            failure = "dispatch_failed"
        elif response.elapsed_s > ACK_DEADLINE_S:
            failure = "operation_timeout"
        with self._ws.lock:
            if failure:
                self._slack_says(user, channel, f'{command} failed with the error "{failure}"')
                return
            if not response.body.strip():
                return
            message = _ack_message(response)
            self._ws.image_problems = probed
            try:
                self._ws.check_message_content(
                    method="slash command ack",
                    text=message.get("text"),
                    blocks=message.get("blocks"),
                    attachments=message.get("attachments"),
                )
            except ApiError as exc:
                self._ws.warnings.append(f"{command} ack refused by Slack: {exc.error}")
                self._slack_says(user, channel, f'{command} failed with the error "{exc.error}"')
                return
            finally:
                self._ws.image_problems = {}
            text = blockkit.truncate_text(str(message.get("text") or ""))[0]
            blocks = message.get("blocks") or None
            if message.get("response_type") == "in_channel":
                self._ws.add_message(channel, user=BOT_USER_ID, text=text, blocks=blocks, bot=True)
            else:
                self._ws.add_ephemeral(
                    channel_id=channel.id,
                    user_id=user.id,
                    text=text,
                    blocks=blocks,
                    thread_ts=None,
                    source="ack",
                )

    def _slack_says(self, user: User, channel: Channel, text: str) -> None:
        self._ws.add_ephemeral(
            channel_id=channel.id,
            user_id=user.id,
            text=text,
            blocks=None,
            thread_ts=None,
            source="slack",
            from_bot=False,
        )

    # -- Events API ----------------------------------------------------------------------
    def new_event_id(self) -> str:
        return f"Ev{self._ws.ids.new('')}"

    def event_body(self, event: dict[str, Any], *, event_id: str) -> bytes:
        envelope = payloads.event_envelope(
            team_id=self.emu.team_id,
            event=event,
            event_id=event_id,
            event_time=int(self._ws.wall_clock()),
        )
        return json.dumps(envelope).encode("utf-8")

    def event(
        self,
        event: dict[str, Any],
        *,
        event_id: str | None = None,
        retry_num: int | None = None,
        retry_reason: str | None = None,
    ) -> AppResponse:
        """Deliver an Events API callback; a retry carries ``X-Slack-Retry-*`` headers."""
        body = self.event_body(event, event_id=event_id or self.new_event_id())
        return self.send(body, content_type=_JSON, headers=_retry_headers(retry_num, retry_reason))

    def deliver_with_retry_while_running(
        self,
        event: dict[str, Any],
        *,
        event_id: str | None = None,
        retry_reason: str = "http_timeout",
        retry_num: int = 1,
        send_retry_when: Callable[[], bool] | None = None,
        max_wait_s: float = 10.0,
    ) -> RetriedDelivery:
        """Deliver ``event``, then Slack's retry of it while the first is still being handled.

        The retry goes out as soon as the first request is on its way, or once
        ``send_retry_when()`` turns true (e.g. "the app has posted its first message").
        """
        event_id = event_id or self.new_event_id()
        body = self.event_body(event, event_id=event_id)
        started = threading.Event()
        result: dict[str, AppResponse | BaseException] = {}

        def first_delivery() -> None:
            with httpx.Client(timeout=self._timeout) as client:
                started.set()
                try:
                    result["first"] = self.send(body, content_type=_JSON, client=client)
                except BaseException as exc:  # surfaced to the caller below
                    result["first"] = exc

        worker = threading.Thread(target=first_delivery, name="slack-first-delivery")
        worker.start()
        started.wait()
        deadline = time.monotonic() + max_wait_s
        while send_retry_when is not None and not send_retry_when():
            if time.monotonic() > deadline or not worker.is_alive():
                break
            time.sleep(0.005)
        overlapped = worker.is_alive()
        retry = self.send(body, content_type=_JSON, headers=_retry_headers(retry_num, retry_reason))
        worker.join(self._timeout)
        first = result.get("first")
        if not isinstance(first, AppResponse):
            raise DriverError(f"first delivery failed: {first!r}")
        return RetriedDelivery(event_id, first, retry, overlapped)

    def post_user_message(
        self, user_id: str, channel_id: str, text: str, *, thread_ts: str | None = None
    ) -> PostedMessage:
        """A person types a message (in a thread when ``thread_ts``); the app hears of it
        through a ``message`` event only if the bot is in the conversation."""
        with self._ws.lock:
            user, channel = self._person_in(user_id, channel_id)
            if channel.is_archived:
                raise DriverError(f"#{channel.name} is archived")
            try:
                stored = self._ws.add_message(
                    channel,
                    user=user.id,
                    text=text,
                    blocks=[payloads.rich_text_block(text)],
                    thread_ts=thread_ts,
                    bot=False,
                    client_msg_id=str(uuid.uuid4()),
                )
            except ApiError as exc:
                raise DriverError(f"cannot reply there: {exc.error}") from None
            hears = BOT_USER_ID in channel.members and self._hears_messages_in(channel)
            event = payloads.message_event(
                team_id=self.emu.team_id,
                channel=channel,
                user_id=user.id,
                text=text,
                ts=stored.ts,
                client_msg_id=stored.client_msg_id or "",
                thread_ts=stored.thread_ts,
                parent_user_id=self._ws.parent_user(stored),
            )
        delivery = self.event(event) if hears else None
        return PostedMessage(channel.id, stored.ts, delivery)

    def reply_with_files(
        self,
        user_id: str,
        channel_id: str,
        text: str,
        *,
        thread_ts: str,
        filenames: tuple[str, ...] = ("moodboard.png",),
    ) -> PostedMessage:
        """A person attaches files to a reply in a thread, with or without text (``text=""``);
        the app hears a ``file_share`` message event if the bot is in the conversation."""
        with self._ws.lock:
            user, channel = self._person_in(user_id, channel_id)
            try:
                stored = self._ws.add_message(
                    channel,
                    user=user.id,
                    text=text,
                    blocks=[payloads.rich_text_block(text)] if text else None,
                    thread_ts=thread_ts,
                    bot=False,
                    subtype="file_share",
                )
            except ApiError as exc:
                raise DriverError(f"cannot reply there: {exc.error}") from None
            share = {"ts": stored.ts, "thread_ts": stored.thread_ts, "reply_count": 0}
            uploads = [self._users_file(user, name) for name in filenames]
            for uploaded in uploads:
                uploaded.shares[channel.id] = [dict(share)]
            files = [u.to_api(self._ws.base_url) for u in uploads]
            stored.files = files
            hears = BOT_USER_ID in channel.members and self._hears_messages_in(channel)
            event = payloads.file_share_event(
                team_id=self.emu.team_id,
                channel=channel,
                user_id=user.id,
                text=text,
                files=files,
                ts=stored.ts,
                thread_ts=stored.thread_ts,
                parent_user_id=self._ws.parent_user(stored),
            )
        delivery = self.event(event) if hears else None
        return PostedMessage(channel.id, stored.ts, delivery)

    def _users_file(self, user: User, filename: str) -> UploadedFile:
        content = b"\x89PNG\r\n\x1a\n" + filename.encode("utf-8")
        uploaded = UploadedFile(
            id=self._ws.ids.new("F"),
            filename=filename,
            length=len(content),
            alt_txt=None,
            ticket="",
            created=int(self._ws.wall_clock()),
            user=user.id,
            content=content,
            completed=True,
        )
        self._ws.files[uploaded.id] = uploaded
        return uploaded

    def revoke_tokens(self, *, bot: bool = False, user_ids: tuple[str, ...] = ()) -> AppResponse:
        """Revoke the app's bot token (``bot``) and/or people's user tokens, then tell the app
        with ``tokens_revoked`` as Slack does."""
        if bot:
            self.emu.revoke_bot_token()
        return self.event(
            payloads.tokens_revoked_event(
                user_ids=list(user_ids),
                bot_user_ids=[BOT_USER_ID] if bot else [],
                event_ts=self._ws.ts_clock.next_ts(),
            )
        )

    # -- installing and uninstalling (OAuth) ----------------------------------------------
    def install_app(
        self,
        install_url: str,
        *,
        user_id: str,
        deny: bool = False,
        tamper: Callable[[str], str] | None = None,
    ) -> browser.InstallResult:
        """A person opens the app's install URL in a browser and approves (or denies) it."""
        return browser.install(
            self._http,
            install_url=install_url,
            team_id=self.emu.team_id,
            user_id=user_id,
            deny=deny,
            tamper=tamper,
        )

    def uninstall_app(self) -> tuple[AppResponse, AppResponse]:
        """Uninstall the app as a workspace admin would: Slack revokes its tokens, then tells
        it with ``tokens_revoked`` and ``app_uninstalled`` (in that order here; Slack does not
        promise one)."""
        self.emu.uninstall()
        # shape: Slack docs, events/app_uninstalled.
        revoked = self.event(
            payloads.tokens_revoked_event(
                user_ids=[], bot_user_ids=[BOT_USER_ID], event_ts=self._ws.ts_clock.next_ts()
            )
        )
        uninstalled = self.event(
            {"type": "app_uninstalled", "event_ts": self._ws.ts_clock.next_ts()}
        )
        return revoked, uninstalled

    def app_home_opened(self, user_id: str) -> AppResponse:
        with self._ws.lock:
            self._ws.user(user_id)
            dm = self._ws.open_dm(user_id)
            home = self._ws.home_views.get(user_id)
            event = payloads.app_home_opened_event(
                user_id=user_id,
                dm_channel_id=dm.id,
                event_ts=self._ws.ts_clock.next_ts(),
                view=home.to_api() if home else None,
            )
        return self.event(event)

    # -- helpers -------------------------------------------------------------------------
    def _subscribed(self, event: str) -> bool:
        """Whether the app's manifest subscribes ``event`` (always, without a manifest)."""
        manifest = self._ws.manifest
        return manifest is None or manifest.subscribes(event)

    def _hears_messages_in(self, channel: Channel) -> bool:
        kinds = {"channel": "channels", "group": "groups", "im": "im"}
        return self._subscribed(f"message.{kinds[channel.kind]}")

    def _person_in(self, user_id: str, channel_id: str) -> tuple[User, Channel]:
        try:
            user = self._ws.user(user_id)
            channel = self._ws.channel(channel_id)
        except ApiError as exc:
            raise DriverError(f"{exc.error}: {user_id} / {channel_id}") from None
        inside = channel.im_user == user.id if channel.is_im else user.id in channel.members
        if not inside:
            raise DriverError(f"{user.name} is not in {channel.name}")
        return user, channel


def _retry_headers(retry_num: int | None, retry_reason: str | None) -> dict[str, str]:
    # Slack docs, Events API "Retries": X-Slack-Retry-Num and X-Slack-Retry-Reason.
    headers: dict[str, str] = {}
    if retry_num is not None:
        headers["X-Slack-Retry-Num"] = str(retry_num)
        headers["X-Slack-Retry-Reason"] = retry_reason or "http_timeout"
    return headers


def _ack_message(response: AppResponse) -> dict[str, Any]:
    content_type = response.headers.get("content-type", "")
    if "json" in content_type:
        try:
            answer = json.loads(response.body)
        except json.JSONDecodeError:
            return {"text": response.body}
        if isinstance(answer, dict):
            return answer
    return {"text": response.body}
