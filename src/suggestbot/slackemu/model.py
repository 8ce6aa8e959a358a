"""The workspace objects the emulator keeps: users, conversations, messages, views, files.

Each object can render itself in the shape Slack's Web API returns, and that rendering is the
only place a shape is built, so every method that returns a message or a view returns the same
one.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

BOT_USER_ID = "U0EMUBOT1"
BOT_ID = "B0EMUBOT1"
APP_ID = "A0EMUAPP1"
BOT_NAME = "suggestbot"


@dataclass
class User:
    id: str
    name: str
    team_id: str
    locale: str = "en-US"
    tz: str = "Europe/Berlin"
    tz_label: str = "Central European Time"
    tz_offset: int = 3600
    is_admin: bool = False
    is_owner: bool = False
    is_bot: bool = False
    deleted: bool = False

    def to_api(self, *, include_locale: bool) -> dict[str, Any]:
        # shape: slack-ruby/slack-api-ref methods/users/users.info.json (Slack's reference
        # example) plus tz/tz_label/tz_offset and locale, which users.info returns only when
        # include_locale=true (Slack docs, users.info "include_locale" argument).
        data: dict[str, Any] = {
            "id": self.id,
            "team_id": self.team_id,
            "name": self.name,
            "deleted": self.deleted,
            "real_name": self.name,
            "tz": self.tz,
            "tz_label": self.tz_label,
            "tz_offset": self.tz_offset,
            "profile": {
                "real_name": self.name,
                "display_name": self.name,
                "real_name_normalized": self.name,
                "display_name_normalized": self.name,
                "team": self.team_id,
            },
            "is_admin": self.is_admin,
            "is_owner": self.is_owner,
            "is_primary_owner": False,
            "is_restricted": False,
            "is_ultra_restricted": False,
            "is_bot": self.is_bot,
            "is_app_user": False,
            "updated": 1700000000,
        }
        if include_locale:
            data["locale"] = self.locale
        return data


@dataclass
class Channel:
    id: str
    name: str
    created: int
    is_private: bool = False
    is_archived: bool = False
    is_im: bool = False
    im_user: str | None = None
    members: set[str] = field(default_factory=set)

    @property
    def kind(self) -> str:
        """``channel``, ``group`` or ``im`` — the ``channel_type`` of message events."""
        if self.is_im:
            return "im"
        return "group" if self.is_private else "channel"

    def to_api(self) -> dict[str, Any]:
        # shape: Slack docs, conversations.info response (conversation object); the IM form
        # follows slack-ruby/slack-api-ref methods/conversations/conversations.open.json.
        if self.is_im:
            return {
                "id": self.id,
                "created": self.created,
                "is_im": True,
                "is_org_shared": False,
                "user": self.im_user,
                "is_user_deleted": False,
                "priority": 0,
            }
        return {
            "id": self.id,
            "name": self.name,
            "is_channel": not self.is_private,
            "is_group": self.is_private,
            "is_im": False,
            "is_mpim": False,
            "is_private": self.is_private,
            "created": self.created,
            "is_archived": self.is_archived,
            "is_general": self.name == "general",
            "unlinked": 0,
            "name_normalized": self.name,
            "is_shared": False,
            "is_org_shared": False,
            "is_ext_shared": False,
            "is_pending_ext_shared": False,
            "is_member": BOT_USER_ID in self.members,
            "creator": "",
            "topic": {"value": "", "creator": "", "last_set": 0},
            "purpose": {"value": "", "creator": "", "last_set": 0},
            "previous_names": [],
        }


@dataclass
class StoredMessage:
    """A message in a channel or thread, as the channel's history holds it."""

    ts: str
    channel_id: str
    user: str
    text: str
    team: str
    blocks: list[dict[str, Any]] | None = None
    attachments: list[dict[str, Any]] | None = None
    files: list[dict[str, Any]] | None = None
    thread_ts: str | None = None
    reply_broadcast: bool = False
    metadata: dict[str, Any] | None = None
    bot: bool = False
    subtype: str | None = None
    client_msg_id: str | None = None
    edited_ts: str | None = None
    deleted: bool = False
    replies: list[str] = field(default_factory=list)
    reply_users: list[str] = field(default_factory=list)

    @property
    def is_reply(self) -> bool:
        return self.thread_ts is not None and self.thread_ts != self.ts

    @property
    def is_root(self) -> bool:
        return bool(self.replies)

    def to_api(self, *, include_metadata: bool = False, parent_user: str | None = None) -> dict:
        # shape: chat.postMessage response "message" (slack-ruby/slack-api-ref
        # methods/chat/chat.postMessage.json) and conversations.replies messages
        # (methods/conversations/conversations.replies.json): thread roots carry
        # reply_count/reply_users/latest_reply, replies carry parent_user_id.
        if self.deleted:
            # A deleted thread root stays as a tombstone while it has replies (Slack docs,
            # "message_deleted": threads keep "This message was deleted.").
            return {
                "type": "message",
                "subtype": "tombstone",
                "text": "This message was deleted.",
                "user": "USLACKBOT",
                "hidden": True,
                "ts": self.ts,
                "thread_ts": self.ts,
                "reply_count": len(self.replies),
                "latest_reply": self.replies[-1] if self.replies else self.ts,
            }
        data: dict[str, Any] = {"type": "message", "user": self.user, "text": self.text}
        if self.subtype:
            data["subtype"] = self.subtype
        data["ts"] = self.ts
        data["team"] = self.team
        if self.bot:
            data["bot_id"] = BOT_ID
            data["app_id"] = APP_ID
            data["bot_profile"] = {
                "id": BOT_ID,
                "app_id": APP_ID,
                "name": BOT_NAME,
                "deleted": False,
                "team_id": self.team,
            }
        if self.client_msg_id:
            data["client_msg_id"] = self.client_msg_id
        if self.blocks is not None:
            data["blocks"] = copy.deepcopy(self.blocks)
        if self.attachments:
            data["attachments"] = copy.deepcopy(self.attachments)
        if self.files:
            data["files"] = copy.deepcopy(self.files)
            data["upload"] = False
        if self.edited_ts:
            data["edited"] = {"user": self.user, "ts": self.edited_ts}
        if self.thread_ts:
            data["thread_ts"] = self.thread_ts
        if self.is_reply and parent_user:
            data["parent_user_id"] = parent_user
        if self.replies:
            data["reply_count"] = len(self.replies)
            data["reply_users_count"] = len(self.reply_users)
            data["latest_reply"] = self.replies[-1]
            data["reply_users"] = list(self.reply_users)
            data["is_locked"] = False
            data["subscribed"] = False
        if include_metadata and self.metadata:
            data["metadata"] = copy.deepcopy(self.metadata)
        return data


@dataclass
class Ephemeral:
    """A message only one user sees; it lives in the client, not in the channel history."""

    message_ts: str
    channel_id: str
    user_id: str
    text: str
    blocks: list[dict[str, Any]] | None = None
    thread_ts: str | None = None
    source: str = "chat.postEphemeral"
    from_bot: bool = True
    deleted: bool = False

    def to_dict(self) -> dict[str, Any]:
        # shape: a message as chat.postMessage returns it, with the recipient, the channel and
        # is_ephemeral added (the emulator's view of the client; Slack has no read API for it).
        data: dict[str, Any] = {
            "type": "message",
            "subtype": "bot_message" if self.from_bot else "slackbot_response",
            "ts": self.message_ts,
            "channel": self.channel_id,
            "user": self.user_id,
            "text": self.text,
            "is_ephemeral": True,
            "source": self.source,
        }
        if self.from_bot:
            data["bot_id"] = BOT_ID
        if self.blocks is not None:
            data["blocks"] = copy.deepcopy(self.blocks)
        if self.thread_ts:
            data["thread_ts"] = self.thread_ts
        return data


@dataclass
class StoredView:
    """A modal in a user's stack or a published App Home."""

    id: str
    user_id: str
    team_id: str
    definition: dict[str, Any]
    hash: str
    root_view_id: str
    previous_view_id: str | None = None
    state_values: dict[str, Any] = field(default_factory=dict)

    @property
    def type(self) -> str:
        return str(self.definition.get("type", ""))

    def to_api(self) -> dict[str, Any]:
        # shape: views.open / views.update responses (slack-ruby/slack-api-ref
        # methods/views/views.open.json, views.update.json) and the "view" of
        # bolt-python tests/scenario_tests/test_view_submission.py.
        d = self.definition
        return {
            "id": self.id,
            "team_id": self.team_id,
            "type": d.get("type"),
            "blocks": copy.deepcopy(d.get("blocks", [])),
            "private_metadata": d.get("private_metadata", ""),
            "callback_id": d.get("callback_id", ""),
            "state": {"values": copy.deepcopy(self.state_values)},
            "hash": self.hash,
            "title": copy.deepcopy(d.get("title")),
            "clear_on_close": bool(d.get("clear_on_close", False)),
            "notify_on_close": bool(d.get("notify_on_close", False)),
            "close": copy.deepcopy(d.get("close")),
            "submit": copy.deepcopy(d.get("submit")),
            "previous_view_id": self.previous_view_id,
            "root_view_id": self.root_view_id,
            "app_id": APP_ID,
            "external_id": d.get("external_id", ""),
            "app_installed_team_id": self.team_id,
            "bot_id": BOT_ID,
        }


@dataclass
class UploadedFile:
    id: str
    filename: str
    length: int
    alt_txt: str | None
    ticket: str
    created: int
    user: str
    content: bytes | None = None
    title: str | None = None
    completed: bool = False
    shares: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def mimetype(self) -> str:
        ext = self.filename.rsplit(".", 1)[-1].lower() if "." in self.filename else ""
        return _MIMETYPES.get(ext, "application/octet-stream")

    @property
    def is_image(self) -> bool:
        return self.mimetype.startswith("image/")

    def url_private(self, base_url: str) -> str:
        return f"{base_url}files/{self.id}/{self.filename}"

    def to_api(self, base_url: str) -> dict[str, Any]:
        # shape: Slack docs, file object (files.info response "file").
        return {
            "id": self.id,
            "created": self.created,
            "timestamp": self.created,
            "name": self.filename,
            "title": self.title or self.filename,
            "mimetype": self.mimetype,
            "filetype": self.filename.rsplit(".", 1)[-1].lower() if "." in self.filename else "",
            "pretty_type": self.mimetype,
            "user": self.user,
            "size": len(self.content) if self.content is not None else self.length,
            "mode": "hosted",
            "is_external": False,
            "is_public": any(cid.startswith("C") for cid in self.shares),
            "url_private": self.url_private(base_url),
            "url_private_download": self.url_private(base_url) + "?download=1",
            "permalink": f"https://emu.slack.test/files/{self.user}/{self.id}/{self.filename}",
            "alt_txt": self.alt_txt,
            "channels": sorted(c for c in self.shares if c.startswith("C")),
            "groups": sorted(c for c in self.shares if c.startswith("G")),
            "ims": sorted(c for c in self.shares if c.startswith("D")),
            "shares": _shares_by_visibility(self.shares),
        }


def _shares_by_visibility(shares: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    public = {cid: entries for cid, entries in shares.items() if cid.startswith("C")}
    private = {cid: entries for cid, entries in shares.items() if not cid.startswith("C")}
    result: dict[str, Any] = {}
    if public:
        result["public"] = copy.deepcopy(public)
    if private:
        result["private"] = copy.deepcopy(private)
    return result


_MIMETYPES = {
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
    "txt": "text/plain",
    "json": "application/json",
    "pdf": "application/pdf",
}


@dataclass
class Trigger:
    """A ``trigger_id`` Slack issued for one user interaction (valid 3 s, usable once)."""

    id: str
    user_id: str
    issued_at: float
    used: bool = False


@dataclass
class ResponseUrl:
    """A ``response_url`` Slack issued (usable five times within 30 minutes)."""

    token: str
    kind: str
    user_id: str
    channel_id: str
    issued_at: float
    message_ts: str | None = None
    message_is_ephemeral: bool = False
    thread_ts: str | None = None
    uses: int = 0


@dataclass(frozen=True)
class RecordedCall:
    """One Web API call as the emulator saw it (the token is never kept)."""

    method: str
    args: dict[str, Any]
    response: dict[str, Any]
    status: int
    warnings: tuple[str, ...] = ()
    delay_s: float = 0.0

    @property
    def ok(self) -> bool:
        return bool(self.response.get("ok"))

    @property
    def error(self) -> str | None:
        err = self.response.get("error")
        return str(err) if err is not None else None
