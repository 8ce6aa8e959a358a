"""``auth.test``, ``users.info`` and the ``conversations.*`` methods."""

from __future__ import annotations

import base64
from typing import Any

from suggestbot.slackemu.args import Args
from suggestbot.slackemu.errors import ApiError
from suggestbot.slackemu.ids import ts_to_float
from suggestbot.slackemu.model import BOT_ID, BOT_NAME, BOT_USER_ID, StoredMessage
from suggestbot.slackemu.workspace import Workspace


def auth_test(ws: Workspace, args: Args) -> dict[str, Any]:
    # shape: bolt-python tests/mock_web_api_server/mock_handler.py BOT_AUTH_TEST_RESPONSE and
    # slackapi/java-slack-sdk json-logs/samples/api/auth.test.json (is_enterprise_install).
    return {
        "ok": True,
        "url": f"https://{ws.team_domain}.slack.com/",
        "team": f"{ws.team_domain} workspace",
        "user": BOT_NAME,
        "team_id": ws.team_id,
        "user_id": BOT_USER_ID,
        "bot_id": BOT_ID,
        "is_enterprise_install": False,
    }


def users_info(ws: Workspace, args: Args) -> dict[str, Any]:
    user = ws.user(args.req("user", error="user_not_found"))
    return {"ok": True, "user": user.to_api(include_locale=args.flag("include_locale"))}


def conversations_info(ws: Workspace, args: Args) -> dict[str, Any]:
    channel = ws.readable_channel(args.req("channel", error="channel_not_found"))
    data = channel.to_api()
    if args.flag("include_num_members") and not channel.is_im:
        data["num_members"] = len(channel.members)
    return {"ok": True, "channel": data}


def conversations_open(ws: Workspace, args: Args) -> dict[str, Any]:
    users = [u for u in (args.opt("users") or "").split(",") if u]
    channel_arg = args.opt("channel")
    if channel_arg:
        channel = ws.channel(channel_arg)
        if not channel.is_im:
            raise ApiError("method_not_supported_for_channel_type")
        existed = True
    else:
        if not users:
            raise ApiError("users_list_not_supplied")
        if len(users) > 1:
            raise ApiError("method_not_supported_for_channel_type")
        existed = any(c.is_im and c.im_user == users[0] for c in ws.channels.values())
        channel = ws.open_dm(users[0])
    # shape: slack-ruby/slack-api-ref methods/conversations/conversations.open.json
    body: dict[str, Any] = {"ok": True}
    if existed:
        body["no_op"] = True
        body["already_open"] = True
    body["channel"] = channel.to_api() if args.flag("return_im") else {"id": channel.id}
    return body


def conversations_members(ws: Workspace, args: Args) -> dict[str, Any]:
    """Members of a conversation the bot can see (a private one only as a member), paged by
    an opaque cursor like Slack's; ``limit`` is at most 1,000."""
    channel = ws.readable_channel(args.req("channel", error="channel_not_found"))
    members = sorted(channel.members)
    limit = max(1, min(args.number("limit", 100), 1000))
    offset = _offset(args.opt("cursor"))
    page = members[offset : offset + limit]
    more = offset + limit < len(members)
    next_cursor = base64.b64encode(f"offset:{offset + limit}".encode()).decode() if more else ""
    # shape: Slack docs, conversations.members response (members, response_metadata).
    return {"ok": True, "members": page, "response_metadata": {"next_cursor": next_cursor}}


def conversations_history(ws: Workspace, args: Args) -> dict[str, Any]:
    channel = ws.member_channel(args.req("channel", error="channel_not_found"))
    messages = list(reversed(ws.top_level(channel.id)))  # newest first, like Slack
    messages = _between(messages, args)
    include_metadata = args.flag("include_all_metadata")
    page, next_cursor = _page(messages, args, default_limit=100)
    # shape: Slack docs, conversations.history response (messages, has_more, pin_count,
    # response_metadata.next_cursor).
    return {
        "ok": True,
        "messages": [_render(ws, m, include_metadata) for m in page],
        "has_more": bool(next_cursor),
        "pin_count": 0,
        "response_metadata": {"next_cursor": next_cursor},
    }


def conversations_replies(ws: Workspace, args: Args) -> dict[str, Any]:
    channel = ws.member_channel(args.req("channel", error="channel_not_found"))
    ts = args.req("ts", error="thread_not_found")
    stored = ws.messages.get(channel.id, {}).get(ts)
    if stored is None or (stored.deleted and not stored.replies):
        raise ApiError("thread_not_found")
    root_ts = stored.thread_ts or stored.ts
    messages = _between(ws.thread(channel.id, root_ts), args)
    include_metadata = args.flag("include_all_metadata")
    page, next_cursor = _page(messages, args, default_limit=1000)
    # shape: slack-ruby/slack-api-ref methods/conversations/conversations.replies.json
    return {
        "ok": True,
        "messages": [_render(ws, m, include_metadata) for m in page],
        "has_more": bool(next_cursor),
        "response_metadata": {"next_cursor": next_cursor},
    }


def _render(ws: Workspace, message: StoredMessage, include_metadata: bool) -> dict[str, Any]:
    return message.to_api(include_metadata=include_metadata, parent_user=ws.parent_user(message))


def _between(messages: list[StoredMessage], args: Args) -> list[StoredMessage]:
    oldest, latest = args.opt("oldest"), args.opt("latest")
    inclusive = args.flag("inclusive")
    try:
        low = ts_to_float(oldest) if oldest else None
        high = ts_to_float(latest) if latest else None
    except ValueError:
        raise ApiError("invalid_ts_oldest" if oldest else "invalid_ts_latest") from None
    kept = []
    for message in messages:
        value = ts_to_float(message.ts)
        if low is not None and (value < low or (value == low and not inclusive)):
            continue
        if high is not None and (value > high or (value == high and not inclusive)):
            continue
        kept.append(message)
    return kept


def _page(
    messages: list[StoredMessage], args: Args, *, default_limit: int
) -> tuple[list[StoredMessage], str]:
    limit = max(1, min(args.number("limit", default_limit), 1000))
    offset = _offset(args.opt("cursor"))
    page = messages[offset : offset + limit]
    more = offset + limit < len(messages)
    next_cursor = base64.b64encode(f"offset:{offset + limit}".encode()).decode() if more else ""
    return page, next_cursor


def _offset(cursor: str | None) -> int:
    """Where a page starts: the emulator's cursors are ``offset:N`` in base64."""
    if not cursor:
        return 0
    try:
        text = base64.b64decode(cursor, validate=True).decode()
        if not text.startswith("offset:"):
            raise ValueError(text)
        return int(text.removeprefix("offset:"))
    except ValueError:
        raise ApiError("invalid_cursor") from None
