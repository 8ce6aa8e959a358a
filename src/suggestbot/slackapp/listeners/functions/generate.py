"""The step "Generate content suggestions": recorded before the ack, sent after it.

Slack sends ``function_executed`` once and keeps the step running until the app completes it,
so the delivery is kept (sealed: it holds the step's token) in the same write that claims it
(``interactions.on_event``); a process killed before the brief was recorded carries it out at
its next start. From then on the request completes the step when its run ends.
"""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.workflow import step as workflow_step
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.ack import in_background
from suggestbot.ui.payloads import workspace_of


def register(app: App, deps: Deps) -> None:
    interactions.on_event("function_executed", _start)

    @app.function(workflow_step.CALLBACK_ID, auto_acknowledge=False)
    def executed(ack: Ack, body: dict[str, Any], event: dict[str, Any]) -> None:
        ack()
        user_id = str((event.get("inputs") or {}).get("user") or "")
        in_background(deps, _start, deps, body, user_id=user_id, channel_id=None)


def _start(deps: Deps, body: dict[str, Any]) -> None:
    event = body.get("event") or {}
    workflow_step.start(
        deps,
        team_id=str(body.get("team_id") or workspace_of(body)),
        execution_id=str(event["function_execution_id"]),
        token=str(event["bot_access_token"]),
        inputs=event.get("inputs") or {},
    )
