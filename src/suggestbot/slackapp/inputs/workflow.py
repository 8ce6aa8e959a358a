"""The Workflow Builder step "Generate content suggestions": recorded before the ack, sent
after it.

Slack sends ``function_executed`` once and keeps the step running until the app completes it,
so the delivery is kept (sealed: it holds the step's token) in the same write that claims it; a
process killed before the brief was recorded carries it out at its next start. From then on the
request completes the step when its run ends.
"""

from __future__ import annotations

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.workflow import step as workflow_step
from suggestbot.slackapp.edge.declaration import Function, Happening, Input


def _start(deps: Deps, given: Happening) -> None:
    workflow_step.start(
        deps,
        team_id=given.team_id,
        execution_id=str(given.event["function_execution_id"]),
        token=str(given.event["bot_access_token"]),
        inputs=given.event.get("inputs") or {},
    )


INPUTS: list[Input] = [
    Input("workflow_step", Function(workflow_step.CALLBACK_ID), run=_start),
]
