"""The workspace state behind the emulator and the rules Slack applies to it.

Everything a Web API method or the driver changes goes through here, under one lock, so the
HTTP server thread and the test thread always see a consistent workspace. Rules that several
methods share live here once: who may post where (``not_in_channel``, ``channel_not_found``,
``is_archived``), how a thread grows, which files an image block may name.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable, Collection
from typing import Any

from suggestbot.slackemu import blockkit
from suggestbot.slackemu.assistant import AssistantState
from suggestbot.slackemu.errors import ApiError
from suggestbot.slackemu.functions import RUNNING, FunctionExecutions
from suggestbot.slackemu.ids import IdFactory, TsClock
from suggestbot.slackemu.manifest import AppManifest
from suggestbot.slackemu.model import (
    BOT_NAME,
    BOT_USER_ID,
    Channel,
    Ephemeral,
    ResponseUrl,
    StoredMessage,
    StoredView,
    Trigger,
    UploadedFile,
    User,
)
from suggestbot.slackemu.oauth import OAuthState

MESSAGE_TRUNCATED = blockkit.MESSAGE_TRUNCATED
TRIGGER_TTL_S = 3.0
RESPONSE_URL_TTL_S = 30 * 60.0
RESPONSE_URL_MAX_USES = 5
MAX_MODAL_STACK = 3


class Workspace:
    """One Slack workspace with the app installed as a bot user."""

    def __init__(
        self,
        *,
        team_id: str,
        team_domain: str,
        bot_token: str,
        scopes: Collection[str],
        clock: Callable[[], float],
        wall_clock: Callable[[], float] = time.time,
        manifest: AppManifest | None = None,
    ) -> None:
        self.team_id = team_id
        self.team_domain = team_domain
        self.bot_token = bot_token
        self.scopes = frozenset(scopes)
        self.clock = clock
        self.wall_clock = wall_clock
        self.ts_clock = TsClock(wall_clock=wall_clock)
        self.ids = IdFactory()
        self.lock = threading.RLock()
        self.base_url = "http://emulator.invalid/"
        self.users: dict[str, User] = {}
        self.channels: dict[str, Channel] = {}
        self.messages: dict[str, dict[str, StoredMessage]] = {}
        self.ephemerals: list[Ephemeral] = []
        self.modal_stacks: dict[str, list[StoredView]] = {}
        self.home_views: dict[str, StoredView] = {}
        self.files: dict[str, UploadedFile] = {}
        self.upload_tickets: dict[str, str] = {}
        self.triggers: dict[str, Trigger] = {}
        self.response_urls: dict[str, ResponseUrl] = {}
        self.warnings: list[str] = []
        self.oauth = OAuthState()
        # The app's manifest when the test gave one: events, shortcuts, functions, AI views.
        self.manifest = manifest
        self.assistant = AssistantState()
        self.function_executions = FunctionExecutions()
        self.bot_token_revoked = False
        self.check_image_urls = False
        # url -> why Slack could not download it; filled per request before the lock is taken
        self.image_problems: dict[str, str | None] = {}
        # Every image_url checked so, in order: (url, why it did not load or None).
        self.image_checks: list[tuple[str, str | None]] = []
        self.users[BOT_USER_ID] = User(id=BOT_USER_ID, name=BOT_NAME, team_id=team_id, is_bot=True)

    # -- tokens --------------------------------------------------------------------------
    def token_problem(self, token: str) -> str | None:
        """Why a Web API call with ``token`` is refused; None when it is accepted."""
        if token == self.bot_token:
            revoked = self.oauth.uninstalled or self.bot_token_revoked
            return "token_revoked" if revoked else None
        execution = self.function_executions.by_token(token)
        if execution is not None:
            if self.oauth.uninstalled or self.bot_token_revoked:
                return "token_revoked"
            # A step's token lives only until the step completes.
            return None if execution.state == RUNNING else "token_expired"
        if token not in self.oauth.tokens:
            return "invalid_auth"
        return self.oauth.token_problem(token, now=self.clock())

    # -- users and conversations -------------------------------------------------------
    def user(self, user_id: str) -> User:
        user = self.users.get(user_id)
        if user is None:
            raise ApiError("user_not_found")
        return user

    def channel(self, channel_id: str) -> Channel:
        channel = self.channels.get(channel_id)
        if channel is None:
            raise ApiError("channel_not_found")
        return channel

    def add_channel(
        self, name: str, *, members: Collection[str], is_private: bool, archived: bool
    ) -> str:
        for user_id in members:
            self.user(user_id)
        channel_id = self.ids.new("G" if is_private else "C")
        self.channels[channel_id] = Channel(
            id=channel_id,
            name=name,
            created=int(self.wall_clock()),
            is_private=is_private,
            is_archived=archived,
            members=set(members),
        )
        self.messages[channel_id] = {}
        return channel_id

    def open_dm(self, user_id: str) -> Channel:
        """The bot's DM with ``user_id``, created on first use like conversations.open does."""
        user = self.user(user_id)
        for channel in self.channels.values():
            if channel.is_im and channel.im_user == user.id:
                return channel
        channel_id = self.ids.new("D")
        channel = Channel(
            id=channel_id,
            name=user.id,
            created=int(self.wall_clock()),
            is_im=True,
            im_user=user.id,
            members={user.id, BOT_USER_ID},
        )
        self.channels[channel_id] = channel
        self.messages[channel_id] = {}
        return channel

    def readable_channel(self, channel_id: str) -> Channel:
        """A conversation the bot can see at all (private ones only as a member)."""
        channel = self.channel(channel_id)
        if channel.is_private and BOT_USER_ID not in channel.members:
            raise ApiError("channel_not_found")
        return channel

    def postable_channel(self, channel_arg: str, *, allow_public_without_join: bool) -> Channel:
        """Where a bot post to ``channel_arg`` (a conversation or user id) lands, or why not."""
        if channel_arg.startswith(("U", "W")) and channel_arg in self.users:
            return self.open_dm(channel_arg)
        channel = self.readable_channel(self._by_name(channel_arg))
        if channel.is_archived:
            raise ApiError("is_archived")
        if BOT_USER_ID not in channel.members and not allow_public_without_join:
            raise ApiError("not_in_channel")
        return channel

    def resolve_channel_id(self, channel_arg: str) -> str:
        """The conversation id a channel argument means (name, DM user id), without side
        effects; unknown arguments come back unchanged."""
        for channel in self.channels.values():
            if channel.is_im and channel.im_user == channel_arg:
                return channel.id
        return self._by_name(channel_arg)

    def _by_name(self, channel_arg: str) -> str:
        """Slack also takes a channel's name ("#general" or "general") where it posts."""
        if channel_arg in self.channels:
            return channel_arg
        name = channel_arg.removeprefix("#")
        for channel in self.channels.values():
            if not channel.is_im and channel.name == name:
                return channel.id
        return channel_arg

    def member_channel(self, channel_id: str) -> Channel:
        """A conversation whose history the bot may read (it must be a member)."""
        channel = self.readable_channel(channel_id)
        if BOT_USER_ID not in channel.members:
            raise ApiError("not_in_channel")
        return channel

    # -- messages ------------------------------------------------------------------------
    def message(self, channel_id: str, ts: str) -> StoredMessage:
        stored = self.messages.get(channel_id, {}).get(ts)
        if stored is None or stored.deleted:
            raise ApiError("message_not_found")
        return stored

    def thread_root_ts(self, channel_id: str, thread_ts: str) -> str:
        """The root a reply joins: replying to a reply joins its parent's thread."""
        parent = self.messages.get(channel_id, {}).get(thread_ts)
        if parent is None or (parent.deleted and not parent.replies):
            raise ApiError("thread_not_found")
        return parent.thread_ts or parent.ts

    def add_message(
        self,
        channel: Channel,
        *,
        user: str,
        text: str,
        blocks: list[dict[str, Any]] | None = None,
        attachments: list[dict[str, Any]] | None = None,
        files: list[dict[str, Any]] | None = None,
        thread_ts: str | None = None,
        reply_broadcast: bool = False,
        metadata: dict[str, Any] | None = None,
        bot: bool,
        subtype: str | None = None,
        client_msg_id: str | None = None,
    ) -> StoredMessage:
        root_ts = self.thread_root_ts(channel.id, thread_ts) if thread_ts else None
        ts = self.ts_clock.next_ts()
        stored = StoredMessage(
            ts=ts,
            channel_id=channel.id,
            user=user,
            text=text,
            team=self.team_id,
            blocks=blocks,
            attachments=attachments,
            files=files,
            thread_ts=root_ts,
            reply_broadcast=reply_broadcast,
            metadata=metadata,
            bot=bot,
            subtype=subtype,
            client_msg_id=client_msg_id,
        )
        self.messages[channel.id][ts] = stored
        if root_ts is not None:
            root = self.messages[channel.id][root_ts]
            root.thread_ts = root.ts
            root.replies.append(ts)
            if user not in root.reply_users:
                root.reply_users.append(user)
            if bot:
                # The app's reply in a thread, however posted, takes the place of its status.
                self.assistant.app_replied((channel.id, root_ts), now=self.clock())
        return stored

    def parent_user(self, stored: StoredMessage) -> str | None:
        if not stored.is_reply or stored.thread_ts is None:
            return None
        root = self.messages[stored.channel_id].get(stored.thread_ts)
        return root.user if root else None

    def top_level(self, channel_id: str) -> list[StoredMessage]:
        """Channel history as Slack shows it: roots and broadcast replies, oldest first."""
        return [
            m
            for m in sorted(self.messages.get(channel_id, {}).values(), key=_ts_key)
            if (not m.deleted or m.replies) and (not m.is_reply or m.reply_broadcast)
        ]

    def delete_message(self, stored: StoredMessage) -> None:
        """Delete like Slack: a reply leaves its thread; a root with replies stays a tombstone."""
        stored.deleted = True
        if stored.is_reply and stored.thread_ts:
            root = self.messages[stored.channel_id].get(stored.thread_ts)
            if root is not None and stored.ts in root.replies:
                root.replies.remove(stored.ts)

    def thread(self, channel_id: str, root_ts: str) -> list[StoredMessage]:
        root = self.messages.get(channel_id, {}).get(root_ts)
        if root is None:
            return []
        replies = [self.messages[channel_id][ts] for ts in root.replies]
        if root.deleted and not replies:
            return []
        return [root, *replies]

    def permalink(self, channel_id: str, stored: StoredMessage) -> str:
        # shape: slack-ruby/slack-api-ref methods/chat/chat.getPermalink.json examples.
        digits = stored.ts.replace(".", "")
        base = f"https://{self.team_domain}.slack.com/archives/{channel_id}/p{digits}"
        if stored.is_reply:
            return f"{base}?thread_ts={stored.thread_ts}&cid={channel_id}"
        return base

    def add_ephemeral(
        self,
        *,
        channel_id: str,
        user_id: str,
        text: str,
        blocks: list[dict[str, Any]] | None,
        thread_ts: str | None,
        source: str,
        from_bot: bool = True,
    ) -> Ephemeral:
        ephemeral = Ephemeral(
            message_ts=self.ts_clock.next_ts(),
            channel_id=channel_id,
            user_id=user_id,
            text=text,
            blocks=blocks,
            thread_ts=thread_ts,
            source=source,
            from_bot=from_bot,
        )
        self.ephemerals.append(ephemeral)
        return ephemeral

    def find_ephemeral(self, channel_id: str, message_ts: str) -> Ephemeral | None:
        for ephemeral in self.ephemerals:
            if ephemeral.channel_id == channel_id and ephemeral.message_ts == message_ts:
                return ephemeral
        return None

    # -- Block Kit -----------------------------------------------------------------------
    def slack_file_problem(self, slack_file: dict[str, Any]) -> str | None:
        """Why an image may not show this ``slack_file`` (None when it may)."""
        uploaded: UploadedFile | None = None
        if "id" in slack_file:
            uploaded = self.files.get(str(slack_file["id"]))
        else:
            url = str(slack_file.get("url", ""))
            uploaded = next(
                (f for f in self.files.values() if f.url_private(self.base_url) == url), None
            )
        if uploaded is None or uploaded.content is None:
            return "invalid slack file: not an uploaded file"
        if not uploaded.completed:
            return "invalid slack file: upload not completed"
        if not uploaded.is_image:
            return "invalid slack file: not an image"
        return None

    def image_url_problem(self, url: str) -> str | None:
        if not self.check_image_urls:
            return None
        problem = self.image_problems.get(url)
        self.image_checks.append((url, problem))
        return problem

    def check_message_content(
        self, *, method: str, text: Any, blocks: Any, attachments: Any
    ) -> list[str]:
        """Validate a message; raises like Slack, returns warnings worth recording."""
        if blocks is not None and not isinstance(blocks, list):
            raise ApiError("invalid_blocks_format")
        errors, too_long = blockkit.check_message(
            blocks=blocks,
            slack_file_check=self.slack_file_problem,
            image_url_check=self.image_url_problem,
        )
        if errors:
            raise ApiError(
                "invalid_blocks",
                extra={"errors": [e.removeprefix("[ERROR] ") for e in errors]},
                messages=errors,
            )
        if too_long:
            raise ApiError(too_long)
        has_text = isinstance(text, str) and text.strip() != ""
        if not has_text and not blocks and not attachments:
            raise ApiError("no_text")
        warnings: list[str] = []
        if blockkit.truncate_text(text)[1]:
            # Slack keeps the first 40,000 characters and answers ok with this warning.
            warnings.append(f"{method}: {MESSAGE_TRUNCATED} (text over 40,000 characters)")
        if blocks and not has_text:
            warnings.append(
                f"{method}: blocks without top-level `text` — notifications and screen "
                "readers get no fallback"
            )
        return warnings

    def check_view(self, view: Any) -> dict[str, Any]:
        if not isinstance(view, dict):
            raise ApiError("invalid_arguments", messages=["[ERROR] must provide an object"])
        errors = blockkit.check_view(
            view,
            slack_file_check=self.slack_file_problem,
            image_url_check=self.image_url_problem,
        )
        if errors:
            # views.* answer invalid_arguments, not invalid_blocks (see blockkit docstring).
            raise ApiError("invalid_arguments", messages=errors)
        definition = copy.deepcopy(view)
        definition["blocks"] = blockkit.fill_ids(view.get("blocks", []))
        return definition

    # -- interactivity -------------------------------------------------------------------
    def issue_trigger(self, user_id: str) -> str:
        trigger_id = f"{int(self.wall_clock())}.{self.ids.token(4)}.{self.ids.token(16)}"
        self.triggers[trigger_id] = Trigger(trigger_id, user_id, self.clock())
        return trigger_id

    def use_trigger(self, trigger_id: str) -> Trigger:
        """Exchange a trigger like views.open/push do: once, and within 3 seconds."""
        trigger = self.triggers.get(trigger_id)
        if trigger is None:
            raise ApiError("invalid_arguments", messages=["invalid `trigger_id`"])
        if trigger.used:
            raise ApiError("exchanged_trigger_id")
        if self.clock() - trigger.issued_at > TRIGGER_TTL_S:
            raise ApiError("expired_trigger_id")
        trigger.used = True
        return trigger

    def issue_response_url(
        self,
        *,
        kind: str,
        user_id: str,
        channel_id: str,
        message_ts: str | None = None,
        message_is_ephemeral: bool = False,
        thread_ts: str | None = None,
    ) -> str:
        token = self.ids.token(16)
        self.response_urls[token] = ResponseUrl(
            token=token,
            kind=kind,
            user_id=user_id,
            channel_id=channel_id,
            issued_at=self.clock(),
            message_ts=message_ts,
            message_is_ephemeral=message_is_ephemeral,
            thread_ts=thread_ts,
        )
        return f"{self.base_url}hooks/{kind}/{self.team_id}/{token}"

    def new_view(self, user_id: str, definition: dict[str, Any], *, root: str | None) -> StoredView:
        view_id = self.ids.new("V")
        return StoredView(
            id=view_id,
            user_id=user_id,
            team_id=self.team_id,
            definition=definition,
            hash=self.new_view_hash(),
            root_view_id=root or view_id,
        )

    def new_view_hash(self) -> str:
        return f"{int(self.wall_clock())}.{self.ids.token(4)}"

    def find_view(self, *, view_id: str | None, external_id: str | None) -> StoredView:
        candidates = [v for stack in self.modal_stacks.values() for v in stack]
        candidates += list(self.home_views.values())
        for view in candidates:
            if view_id and view.id == view_id:
                return view
            if external_id and view.definition.get("external_id") == external_id:
                return view
        raise ApiError("not_found")


def _ts_key(message: StoredMessage) -> tuple[int, int]:
    seconds, _, micros = message.ts.partition(".")
    return int(seconds), int(micros or 0)
