"""What Slack sends to an app, built field by field from Slack's own fixtures.

Each builder names the fixture or reference page its shape follows. Interactive payloads are
sent form-encoded as ``payload=<json>``; slash commands as plain form fields; Events API
callbacks as a JSON body.
"""

from __future__ import annotations

import json
import uuid
from typing import Any
from urllib.parse import urlencode

from suggestbot.slackemu.model import APP_ID, BOT_USER_ID, Channel, User

VERIFICATION_TOKEN = "emu-verification-token"  # legacy field Slack still sends; not a secret


def slash_command_form(
    *,
    team_id: str,
    team_domain: str,
    channel: Channel,
    user: User,
    command: str,
    text: str,
    response_url: str,
    trigger_id: str,
) -> bytes:
    # shape: bolt-python tests/scenario_tests/test_slash_command.py (slash_command_body)
    fields = {
        "token": VERIFICATION_TOKEN,
        "team_id": team_id,
        "team_domain": team_domain,
        "channel_id": channel.id,
        "channel_name": "directmessage" if channel.is_im else channel.name,
        "user_id": user.id,
        "user_name": user.name,
        "command": command,
        "text": text,
        "api_app_id": APP_ID,
        "is_enterprise_install": "false",
        "response_url": response_url,
        "trigger_id": trigger_id,
    }
    return urlencode(fields).encode("utf-8")


def event_envelope(
    *, team_id: str, event: dict[str, Any], event_id: str, event_time: int
) -> dict[str, Any]:
    # shape: bolt-python tests/scenario_tests/test_events.py (valid_event_body) and the
    # envelope of Slack docs reference/events/message/message_replied (authorizations).
    return {
        "token": VERIFICATION_TOKEN,
        "team_id": team_id,
        "api_app_id": APP_ID,
        "event": event,
        "type": "event_callback",
        "event_id": event_id,
        "event_time": event_time,
        "authorizations": [
            {
                "enterprise_id": None,
                "team_id": team_id,
                "user_id": BOT_USER_ID,
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
        "is_ext_shared_channel": False,
        "event_context": f"4-{uuid.uuid4().hex}",
    }


def message_event(
    *,
    team_id: str,
    channel: Channel,
    user_id: str,
    text: str,
    ts: str,
    client_msg_id: str,
    thread_ts: str | None,
    parent_user_id: str | None,
) -> dict[str, Any]:
    # shape: bolt-python tests/scenario_tests/test_message.py (message_body "event"); thread
    # replies carry thread_ts and parent_user_id (Slack docs, message_replied: "examine
    # message events' thread_ts value").
    event: dict[str, Any] = {
        "client_msg_id": client_msg_id,
        "type": "message",
        "text": text,
        "user": user_id,
        "ts": ts,
        "team": team_id,
        "blocks": [rich_text_block(text)],
        "channel": channel.id,
        "event_ts": ts,
        "channel_type": channel.kind,
    }
    if thread_ts and thread_ts != ts:
        event["thread_ts"] = thread_ts
        if parent_user_id:
            event["parent_user_id"] = parent_user_id
    return event


def file_share_event(
    *,
    team_id: str,
    channel: Channel,
    user_id: str,
    text: str,
    files: list[dict[str, Any]],
    ts: str,
    thread_ts: str | None,
    parent_user_id: str | None,
) -> dict[str, Any]:
    # shape: Slack docs, events/message/file_share (files, upload, display_as_bot; a message
    # typed with the files has text and blocks, one without has empty text and no blocks).
    event: dict[str, Any] = {
        "type": "message",
        "subtype": "file_share",
        "text": text,
        "files": files,
        "upload": False,
        "user": user_id,
        "display_as_bot": False,
        "ts": ts,
        "team": team_id,
        "channel": channel.id,
        "event_ts": ts,
        "channel_type": channel.kind,
    }
    if text:
        event["blocks"] = [rich_text_block(text)]
    if thread_ts and thread_ts != ts:
        event["thread_ts"] = thread_ts
        if parent_user_id:
            event["parent_user_id"] = parent_user_id
    return event


def tokens_revoked_event(
    *, user_ids: list[str], bot_user_ids: list[str], event_ts: str
) -> dict[str, Any]:
    # shape: Slack docs, events/tokens_revoked ("tokens": {"oauth": [...], "bot": [...]})
    return {
        "type": "tokens_revoked",
        "tokens": {"oauth": list(user_ids), "bot": list(bot_user_ids)},
        "event_ts": event_ts,
    }


def rich_text_block(text: str) -> dict[str, Any]:
    # shape: bolt-python tests/scenario_tests/test_message.py (blocks of a typed message)
    return {
        "type": "rich_text",
        "block_id": uuid.uuid4().hex[:4],
        "elements": [{"type": "rich_text_section", "elements": [{"type": "text", "text": text}]}],
    }


def app_home_opened_event(
    *,
    user_id: str,
    dm_channel_id: str,
    event_ts: str,
    view: dict[str, Any] | None,
    tab: str = "home",
) -> dict[str, Any]:
    # shape: Slack docs, events/app_home_opened ("view" only once a Home was published;
    # "tab" is "home" or "messages", and the Messages tab carries no view)
    event: dict[str, Any] = {
        "type": "app_home_opened",
        "user": user_id,
        "channel": dm_channel_id,
        "tab": tab,
        "event_ts": event_ts,
    }
    if view is not None:
        event["view"] = view
    return event


def user_ref(user: User) -> dict[str, Any]:
    # shape: "user" of bolt-python tests/scenario_tests/test_block_actions.py
    return {"id": user.id, "username": user.name, "name": user.name, "team_id": user.team_id}


def team_ref(team_id: str, team_domain: str) -> dict[str, Any]:
    return {"id": team_id, "domain": team_domain}


def block_actions(
    *,
    user: User,
    team_id: str,
    team_domain: str,
    container: dict[str, Any],
    trigger_id: str,
    action: dict[str, Any],
    channel: Channel | None = None,
    message: dict[str, Any] | None = None,
    view: dict[str, Any] | None = None,
    response_url: str | None = None,
    state_values: dict[str, Any] | None = None,
) -> dict[str, Any]:
    # shape: bolt-python tests/scenario_tests/test_block_actions.py (body); ephemeral
    # messages come without "message" (container.is_ephemeral), views with "view" and a
    # {"type": "view", "view_id": …} container (Slack docs, block_actions payload).
    payload: dict[str, Any] = {
        "type": "block_actions",
        "user": user_ref(user),
        "api_app_id": APP_ID,
        "token": VERIFICATION_TOKEN,
        "container": container,
        "trigger_id": trigger_id,
        "team": team_ref(team_id, team_domain),
        "enterprise": None,
        "is_enterprise_install": False,
    }
    if channel is not None:
        payload["channel"] = {
            "id": channel.id,
            "name": "directmessage" if channel.is_im else channel.name,
        }
    if message is not None:
        payload["message"] = message
        payload["state"] = {"values": state_values or {}}
    if view is not None:
        payload["view"] = view
    if response_url is not None:
        payload["response_url"] = response_url
    payload["actions"] = [action]
    return payload


def view_submission(
    *, user: User, team_id: str, team_domain: str, trigger_id: str, view: dict[str, Any]
) -> dict[str, Any]:
    # shape: bolt-python tests/scenario_tests/test_view_submission.py (body)
    return {
        "type": "view_submission",
        "team": team_ref(team_id, team_domain),
        "user": user_ref(user),
        "api_app_id": APP_ID,
        "token": VERIFICATION_TOKEN,
        "trigger_id": trigger_id,
        "view": view,
        "response_urls": [],
        "is_enterprise_install": False,
        "enterprise": None,
    }


def view_closed(
    *, user: User, team_id: str, team_domain: str, view: dict[str, Any], is_cleared: bool
) -> dict[str, Any]:
    # shape: bolt-python tests/scenario_tests/test_view_closed.py (body) plus is_cleared
    # (Slack docs, view_closed payload).
    return {
        "type": "view_closed",
        "team": team_ref(team_id, team_domain),
        "user": user_ref(user),
        "api_app_id": APP_ID,
        "token": VERIFICATION_TOKEN,
        "view": view,
        "is_cleared": is_cleared,
        "is_enterprise_install": False,
        "enterprise": None,
    }


def block_suggestion(
    *,
    user: User,
    team_id: str,
    team_domain: str,
    view: dict[str, Any],
    block_id: str,
    action_id: str,
    value: str,
) -> dict[str, Any]:
    # shape: bolt-python tests/scenario_tests/test_block_suggestion.py (block_suggestion body)
    return {
        "type": "block_suggestion",
        "user": user_ref(user),
        "container": {"type": "view", "view_id": view["id"]},
        "api_app_id": APP_ID,
        "token": VERIFICATION_TOKEN,
        "action_id": action_id,
        "block_id": block_id,
        "value": value,
        "team": team_ref(team_id, team_domain),
        "enterprise": None,
        "is_enterprise_install": False,
        "view": view,
    }


def message_action(
    *,
    user: User,
    team_id: str,
    team_domain: str,
    channel: Channel,
    callback_id: str,
    trigger_id: str,
    response_url: str,
    message: dict[str, Any],
    action_ts: str,
) -> dict[str, Any]:
    # shape: bolt-python tests/scenario_tests/test_shortcut.py (message shortcut body) and
    # Slack docs, "Message shortcuts" payload (message_ts and the whole message).
    return {
        "type": "message_action",
        "token": VERIFICATION_TOKEN,
        "action_ts": action_ts,
        "team": team_ref(team_id, team_domain),
        "user": user_ref(user),
        "channel": {"id": channel.id, "name": "directmessage" if channel.is_im else channel.name},
        "is_enterprise_install": False,
        "enterprise": None,
        "callback_id": callback_id,
        "trigger_id": trigger_id,
        "message_ts": message["ts"],
        "message": message,
        "response_url": response_url,
    }


def function_executed_event(
    *,
    function: dict[str, Any],
    inputs: dict[str, Any],
    function_execution_id: str,
    workflow_execution_id: str,
    event_ts: str,
    bot_access_token: str,
) -> dict[str, Any]:
    # shape: Slack docs, events/function_executed (event wrapper and event structure)
    return {
        "type": "function_executed",
        "function": function,
        "inputs": inputs,
        "function_execution_id": function_execution_id,
        "workflow_execution_id": workflow_execution_id,
        "event_ts": event_ts,
        "bot_access_token": bot_access_token,
    }


def interactive_form(payload: dict[str, Any]) -> bytes:
    return urlencode({"payload": json.dumps(payload)}).encode("utf-8")
