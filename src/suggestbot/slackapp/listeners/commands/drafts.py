"""``/suggest draft``: the modal for an email the person wrote, saved as a refinable suggestion."""

from __future__ import annotations

from typing import Any

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.drafts import saving as drafts
from suggestbot.slackapp.listeners.commands.linking import connect_first


def open_draft(deps: Deps, body: dict[str, Any], rest: str) -> None:
    if connect_first(deps, body):
        return
    drafts.open_modal(
        deps,
        trigger_id=body["trigger_id"],
        team_id=body["team_id"],
        user_id=body["user_id"],
        channel_id=body["channel_id"],
    )
