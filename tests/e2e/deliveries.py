"""Signed deliveries that name any record: a press of a button with a value of the test's
choosing, a modal submitted with any ``private_metadata``, a command with any text.

Real Slack only returns what the app put in a button or a modal, but the app cannot tell a
value it made from one someone made for it, so the tests send both. The person, their
workspace and the channel are those Slack would vouch for (the emulator's own users and
channels); everything else is up to the test.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from suggestbot.demo.stage import Stage
from suggestbot.slackemu import payloads
from suggestbot.slackemu.results import AppResponse

FORM = "application/x-www-form-urlencoded"


def press(stage: Stage, user_id: str, channel_id: str, **action: Any) -> AppResponse:
    """``user_id`` presses (or, with ``selected``, picks in) an element of a message in
    ``channel_id`` whose action and value are the test's (see :func:`press_payload`)."""
    return send_payload(stage, press_payload(stage, user_id, channel_id, **action))


def press_payload(
    stage: Stage,
    user_id: str,
    channel_id: str,
    *,
    action_id: str,
    value: str = "",
    block_id: str = "b",
    message_ts: str = "1700000000.000100",
    thread_ts: str | None = None,
    selected: str | None = None,
) -> dict[str, Any]:
    ws = stage.emu.ws
    with ws.lock:
        user, channel = ws.user(user_id), ws.channel(channel_id)
        trigger_id = ws.issue_trigger(user.id)
        response_url = ws.issue_response_url(
            kind="actions", user_id=user.id, channel_id=channel.id, message_ts=message_ts
        )
    action: dict[str, Any] = {
        "action_id": action_id,
        "block_id": block_id,
        "action_ts": f"{time.time():.6f}",
    }
    if selected is None:
        action.update(
            {"type": "button", "value": value, "text": {"type": "plain_text", "text": "x"}}
        )
    else:
        action.update(
            {
                "type": "static_select",
                "selected_option": {"text": {"type": "plain_text", "text": "x"}, "value": selected},
            }
        )
    container: dict[str, Any] = {
        "type": "message",
        "message_ts": message_ts,
        "channel_id": channel_id,
        "is_ephemeral": False,
    }
    if thread_ts:
        container["thread_ts"] = thread_ts
    message = {"type": "message", "ts": message_ts, "text": "", "blocks": []}
    if thread_ts:
        message["thread_ts"] = thread_ts
    return payloads.block_actions(
        user=user,
        team_id=stage.emu.team_id,
        team_domain=stage.emu.team_domain,
        container=container,
        trigger_id=trigger_id,
        action=action,
        channel=channel,
        message=message,
        response_url=response_url,
    )


def submit(stage: Stage, user_id: str, **modal: Any) -> AppResponse:
    """``user_id`` submits a modal with the values and metadata of the test's choosing (see
    :func:`submit_payload`)."""
    return send_payload(stage, submit_payload(stage, user_id, **modal))


def submit_payload(
    stage: Stage,
    user_id: str,
    *,
    callback_id: str,
    values: dict[str, dict[str, Any]],
    private_metadata: dict[str, Any] | str,
) -> dict[str, Any]:
    ws = stage.emu.ws
    with ws.lock:
        user = ws.user(user_id)
        trigger_id = ws.issue_trigger(user.id)
    metadata = (
        private_metadata if isinstance(private_metadata, str) else json.dumps(private_metadata)
    )
    view = {
        "id": f"V{time.monotonic_ns()}",
        "type": "modal",
        "callback_id": callback_id,
        "private_metadata": metadata,
        "blocks": [],
        "state": {"values": {block: {"el": state} for block, state in values.items()}},
        "hash": "h",
    }
    return payloads.view_submission(
        user=user,
        team_id=stage.emu.team_id,
        team_domain=stage.emu.team_domain,
        trigger_id=trigger_id,
        view=view,
    )


def text_input(value: str) -> dict[str, Any]:
    return {"type": "plain_text_input", "value": value}


def select(value: str, label: str = "x") -> dict[str, Any]:
    return {
        "type": "static_select",
        "selected_option": {"text": {"type": "plain_text", "text": label}, "value": value},
    }


def send_payload(stage: Stage, payload: dict[str, Any]) -> AppResponse:
    return stage.slack.send(urlencode({"payload": json.dumps(payload)}).encode(), content_type=FORM)


def settle(stage: Stage, *, quiet_s: float = 0.6, most_s: float = 15.0) -> None:
    """Wait until the app has made no Slack call for ``quiet_s`` (its work after the ack)."""
    deadline = time.monotonic() + most_s
    seen, since = len(stage.emu.calls()), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.05)
        now = len(stage.emu.calls())
        if now != seen:
            seen, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet_s:
            return


def calls_since(stage: Stage, mark: int, where: Callable[[Any], bool] = lambda c: True) -> list:
    return [c for c in stage.emu.calls()[mark:] if where(c)]
