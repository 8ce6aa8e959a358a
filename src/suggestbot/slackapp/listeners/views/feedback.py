"""The optional "what was wrong?" modal after a thumbs-down: kept with the person's vote."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.feedback import votes as feedback
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.ack import in_background
from suggestbot.ui.blocks import ids
from suggestbot.ui.payloads import acting_user, view_values, workspace_of


def register(app: App, deps: Deps) -> None:
    # What the person typed is recorded before the ack (middleware), kept after a crash.
    interactions.on_view(ids.VIEW_FEEDBACK_REASON, _keep_reason)

    @app.view(ids.VIEW_FEEDBACK_REASON)
    def reason_submitted(ack: Ack, body: dict[str, Any]) -> None:
        ack()
        _, user_id = acting_user(body)
        in_background(deps, _keep_reason, deps, body, user_id=user_id, channel_id=None)


def _keep_reason(deps: Deps, body: dict[str, Any]) -> None:
    _, user_id = acting_user(body)
    view = body["view"]
    reason = str(view_values(view).get(ids.INPUT_FEEDBACK_REASON) or "")
    feedback.explain(
        deps,
        team_id=workspace_of(body),
        user_id=user_id,
        value=str(view.get("private_metadata") or ""),
        reason=reason,
    )
