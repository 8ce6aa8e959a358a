"""``response_url`` posts: what an app's ``respond()`` does to what the user sees.

Semantics from Slack docs, "Handling user interaction" and "Modifying messages": a post is
ephemeral unless ``response_type`` is ``in_channel``; ``replace_original`` swaps the message the
interaction came from (ephemeral or not), ``delete_original`` removes it; a URL may be used
five times within 30 minutes. The answer is plain text (``ok``), as in
python-slack-sdk tests/slack_sdk/webhook/mock_web_api_server.py; bad blocks get HTTP 400 with
``invalid_blocks`` as the body (as Slack's webhooks answer, see
sourcegraph/sourcegraph-public-snapshot issue #49979).
"""

from __future__ import annotations

import json
from typing import Any

from suggestbot.slackemu import blockkit
from suggestbot.slackemu.errors import ApiError
from suggestbot.slackemu.model import BOT_USER_ID, ResponseUrl
from suggestbot.slackemu.workspace import (
    RESPONSE_URL_MAX_USES,
    RESPONSE_URL_TTL_S,
    Workspace,
)


def handle_response_url(ws: Workspace, token: str, raw: bytes) -> tuple[int, str, list[str]]:
    """Apply one response_url post; returns (HTTP status, body text, warnings)."""
    hook = ws.response_urls.get(token)
    if hook is None:
        return 404, "no_service", []
    if ws.clock() - hook.issued_at > RESPONSE_URL_TTL_S:
        return 404, "expired_url", []
    if hook.uses >= RESPONSE_URL_MAX_USES:
        return 404, "used_url", []
    try:
        payload = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return 400, "invalid_payload", []
    if not isinstance(payload, dict):
        return 400, "invalid_payload", []
    hook.uses += 1
    if _truthy(payload.get("delete_original")):
        _delete_original(ws, hook)
        return 200, "ok", []
    blocks = payload.get("blocks")
    text = payload.get("text") or ""
    try:
        warnings = ws.check_message_content(
            method="response_url", text=text, blocks=blocks, attachments=payload.get("attachments")
        )
    except ApiError as exc:
        return 400, exc.error, []
    text = blockkit.truncate_text(text)[0]
    filled = blockkit.fill_ids(blocks) if blocks else None
    if _truthy(payload.get("replace_original")) and hook.message_ts:
        if _replace_original(ws, hook, text, filled):
            return 200, "ok", warnings
        return 404, "message_not_found", warnings
    thread_ts = payload.get("thread_ts") or hook.thread_ts
    if payload.get("response_type") == "in_channel":
        channel = ws.channel(hook.channel_id)
        # An in_channel response shows up even where the bot is not a member.
        ws.add_message(
            channel,
            user=BOT_USER_ID,
            text=text,
            blocks=filled,
            thread_ts=thread_ts,
            metadata=_metadata(payload),
            bot=True,
        )
    else:
        ws.add_ephemeral(
            channel_id=hook.channel_id,
            user_id=hook.user_id,
            text=text,
            blocks=filled,
            thread_ts=thread_ts,
            source="response_url",
        )
    return 200, "ok", warnings


def _replace_original(
    ws: Workspace, hook: ResponseUrl, text: str, blocks: list[dict[str, Any]] | None
) -> bool:
    assert hook.message_ts is not None
    if hook.message_is_ephemeral:
        ephemeral = ws.find_ephemeral(hook.channel_id, hook.message_ts)
        if ephemeral is None or ephemeral.deleted:
            return False
        ephemeral.text, ephemeral.blocks = text, blocks
        return True
    stored = ws.messages.get(hook.channel_id, {}).get(hook.message_ts)
    if stored is None or stored.deleted:
        return False
    stored.text, stored.blocks = text, blocks
    stored.edited_ts = ws.ts_clock.next_ts()
    return True


def _delete_original(ws: Workspace, hook: ResponseUrl) -> None:
    if not hook.message_ts:
        return
    if hook.message_is_ephemeral:
        ephemeral = ws.find_ephemeral(hook.channel_id, hook.message_ts)
        if ephemeral is not None:
            ephemeral.deleted = True
        return
    stored = ws.messages.get(hook.channel_id, {}).get(hook.message_ts)
    if stored is not None and not stored.deleted:
        ws.delete_message(stored)


def _truthy(value: Any) -> bool:
    return value is True or value in ("true", "1", 1)


def _metadata(payload: dict[str, Any]) -> dict[str, Any] | None:
    metadata = payload.get("metadata")
    return metadata if isinstance(metadata, dict) and metadata else None
