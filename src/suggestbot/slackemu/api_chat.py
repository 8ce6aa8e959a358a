"""``chat.*`` methods: post, post ephemeral, update, delete, permalink."""

from __future__ import annotations

from typing import Any

from suggestbot.slackemu import blockkit
from suggestbot.slackemu.args import Args
from suggestbot.slackemu.errors import ApiError
from suggestbot.slackemu.model import BOT_USER_ID
from suggestbot.slackemu.workspace import Workspace


def post_message(ws: Workspace, args: Args) -> dict[str, Any]:
    channel = ws.postable_channel(
        args.req("channel", error="channel_not_found"),
        allow_public_without_join="chat:write.public" in ws.scopes,
    )
    text, blocks, attachments = _content(ws, "chat.postMessage", args)
    text, truncated = blockkit.truncate_text(text)
    metadata = _metadata(args)
    stored = ws.add_message(
        channel,
        user=BOT_USER_ID,
        text=text,
        blocks=blocks,
        attachments=attachments,
        thread_ts=args.opt("thread_ts"),
        reply_broadcast=args.flag("reply_broadcast"),
        metadata=metadata,
        bot=True,
    )
    # shape: chat.postMessage response, slack-ruby/slack-api-ref methods/chat/chat.postMessage.json
    return _warn_if(
        truncated,
        {
            "ok": True,
            "channel": channel.id,
            "ts": stored.ts,
            "message": stored.to_api(include_metadata=True, parent_user=ws.parent_user(stored)),
        },
    )


def _warn_if(truncated: bool, body: dict[str, Any]) -> dict[str, Any]:
    """Slack answers ok with ``warning: message_truncated`` when it cut the text to 40,000."""
    if truncated:
        body["warning"] = blockkit.MESSAGE_TRUNCATED
        body["response_metadata"] = {"warnings": [blockkit.MESSAGE_TRUNCATED]}
    return body


def post_ephemeral(ws: Workspace, args: Args) -> dict[str, Any]:
    channel = ws.postable_channel(
        args.req("channel", error="channel_not_found"), allow_public_without_join=False
    )
    user = ws.user(args.req("user", error="user_not_found"))
    if user.id not in channel.members:
        raise ApiError("user_not_in_channel")
    text, blocks, _ = _content(ws, "chat.postEphemeral", args)
    text, truncated = blockkit.truncate_text(text)
    thread_ts = args.opt("thread_ts")
    ephemeral = ws.add_ephemeral(
        channel_id=channel.id,
        user_id=user.id,
        text=text,
        blocks=blocks,
        thread_ts=ws.thread_root_ts(channel.id, thread_ts) if thread_ts else None,
        source="chat.postEphemeral",
    )
    # shape: slack-ruby/slack-api-ref methods/chat/chat.postEphemeral.json ({"message_ts": …})
    return _warn_if(truncated, {"ok": True, "message_ts": ephemeral.message_ts})


def update(ws: Workspace, args: Args) -> dict[str, Any]:
    channel = ws.readable_channel(args.req("channel", error="channel_not_found"))
    stored = ws.message(channel.id, args.req("ts", error="message_not_found"))
    if not stored.bot:
        raise ApiError("cant_update_message")
    if channel.is_archived:
        raise ApiError("is_inactive")
    has_blocks = "blocks" in args.raw
    text_arg = args.opt("text")
    blocks_arg = args.structured("blocks", error="invalid_blocks_format")
    attachments = args.structured("attachments", error="invalid_attachments")
    # Slack keeps the old blocks when the update leaves them out (chat.update "blocks" doc).
    effective_blocks = blocks_arg if has_blocks else stored.blocks
    text = text_arg if text_arg is not None else ("" if has_blocks else stored.text)
    args.warnings += ws.check_message_content(
        method="chat.update", text=text, blocks=effective_blocks, attachments=attachments
    )
    stored.text, truncated = blockkit.truncate_text(text)
    if has_blocks:
        stored.blocks = blockkit.fill_ids(blocks_arg) if blocks_arg else None
    if attachments is not None:
        stored.attachments = attachments
    if "metadata" in args.raw:
        stored.metadata = _metadata(args) or None
    stored.edited_ts = ws.ts_clock.next_ts()
    # shape: slack-ruby/slack-api-ref methods/chat/chat.update.json
    return _warn_if(
        truncated,
        {
            "ok": True,
            "channel": channel.id,
            "ts": stored.ts,
            "text": stored.text,
            "message": stored.to_api(include_metadata=True, parent_user=ws.parent_user(stored)),
        },
    )


def delete(ws: Workspace, args: Args) -> dict[str, Any]:
    channel = ws.readable_channel(args.req("channel", error="channel_not_found"))
    stored = ws.message(channel.id, args.req("ts", error="message_not_found"))
    if not stored.bot:
        raise ApiError("cant_delete_message")
    ws.delete_message(stored)
    # shape: Slack docs, chat.delete response {"ok": true, "channel": …, "ts": …}
    return {"ok": True, "channel": channel.id, "ts": stored.ts}


def get_permalink(ws: Workspace, args: Args) -> dict[str, Any]:
    channel = ws.readable_channel(args.req("channel", error="channel_not_found"))
    stored = ws.message(channel.id, args.req("message_ts", error="message_not_found"))
    # shape: slack-ruby/slack-api-ref methods/chat/chat.getPermalink.json
    return {"ok": True, "channel": channel.id, "permalink": ws.permalink(channel.id, stored)}


def _content(
    ws: Workspace, method: str, args: Args
) -> tuple[str, list[dict[str, Any]] | None, list[dict[str, Any]] | None]:
    text = args.opt("text") or ""
    blocks = args.structured("blocks", error="invalid_blocks_format")
    attachments = args.structured("attachments", error="invalid_attachments")
    args.warnings += ws.check_message_content(
        method=method, text=text, blocks=blocks, attachments=attachments
    )
    return text, (blockkit.fill_ids(blocks) if blocks else None), attachments


def _metadata(args: Args) -> dict[str, Any] | None:
    metadata = args.structured("metadata", error="invalid_metadata_format")
    if metadata is None or metadata == {}:
        return None
    # shape: Slack docs, "Using message metadata" ({"event_type": str, "event_payload": {...}})
    if (
        not isinstance(metadata, dict)
        or not isinstance(metadata.get("event_type"), str)
        or not isinstance(metadata.get("event_payload"), dict)
    ):
        raise ApiError("invalid_metadata_schema")
    return {"event_type": metadata["event_type"], "event_payload": metadata["event_payload"]}
