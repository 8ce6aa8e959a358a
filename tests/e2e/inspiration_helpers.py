"""Reading what people see of ready-made content and digests in the emulator."""

from __future__ import annotations

from typing import Any

from suggestbot.demo.stage import Stage, wait_for
from suggestbot.slackemu.transcript import blocks_lines


def text_of(message: dict[str, Any]) -> str:
    """A message as a person reads it: its blocks, else its text."""
    blocks = message.get("blocks")
    return "\n".join(blocks_lines(blocks)) if blocks else str(message.get("text") or "")


def ephemerals_with(stage: Stage, user_id: str, needle: str) -> list[dict[str, Any]]:
    return [e for e in stage.emu.ephemerals(user_id) if needle in text_of(e)]


def wait_ephemeral(stage: Stage, user_id: str, needle: str, *, count: int = 1) -> dict[str, Any]:
    """The newest ephemeral message to ``user_id`` containing ``needle``, once there are
    ``count`` of them."""
    found = wait_for(
        lambda: (
            ephemerals_with(stage, user_id, needle)
            if len(ephemerals_with(stage, user_id, needle)) >= count
            else None
        ),
        what=f"an ephemeral message with {needle!r}",
    )
    return found[-1]


def images(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in message.get("blocks") or [] if b.get("type") == "image"]


def posts_with_role(stage: Stage, channel: str, role: str) -> list[dict[str, Any]]:
    """Top-level messages the app posted in ``channel`` with this metadata role."""
    return [
        m
        for m in stage.emu.messages(channel)
        if ((m.get("metadata") or {}).get("event_payload") or {}).get("role") == role
    ]
