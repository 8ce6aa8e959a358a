"""Workflow Builder custom steps: the executions Slack starts and how each one ends.

Slack runs a step by sending the app ``function_executed`` with a ``bot_access_token`` that
belongs to that execution alone. The step stays running until the app calls
``functions.completeSuccess`` (outputs checked against the manifest's output parameters) or
``functions.completeError``; it ends once. After that the execution's token is dead
(``token_expired``) and a second completion is refused (``function_execution_not_found``, the
answer Slack's reference shows for a completed function). Slack does not deliver
``function_executed`` again once the app acknowledged it, so the app must keep what it needs
to complete the step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from suggestbot.slackemu.ids import IdFactory
from suggestbot.slackemu.manifest import FunctionSpec

RUNNING = "running"
COMPLETED = "completed"
FAILED = "failed"


@dataclass
class FunctionExecution:
    id: str
    workflow_execution_id: str
    spec: FunctionSpec
    inputs: dict[str, Any]
    user_id: str
    token: str = field(repr=False)
    state: str = RUNNING
    outputs: dict[str, Any] | None = None
    error: str | None = None
    completions_refused: int = 0

    def to_dict(self) -> dict[str, Any]:
        """What a test may read: never the token."""
        return {
            "function_execution_id": self.id,
            "workflow_execution_id": self.workflow_execution_id,
            "callback_id": self.spec.callback_id,
            "inputs": dict(self.inputs),
            "user_id": self.user_id,
            "state": self.state,
            "outputs": dict(self.outputs) if self.outputs is not None else None,
            "error": self.error,
            "completions_refused": self.completions_refused,
        }


@dataclass
class FunctionExecutions:
    """Every step execution of the workspace, by id and by token."""

    by_id: dict[str, FunctionExecution] = field(default_factory=dict)

    def start(
        self, *, spec: FunctionSpec, inputs: dict[str, Any], user_id: str, ids: IdFactory
    ) -> FunctionExecution:
        execution = FunctionExecution(
            id=ids.new("Fx"),
            workflow_execution_id=ids.new("Wx"),
            spec=spec,
            inputs=dict(inputs),
            user_id=user_id,
            # Slack's workflow tokens start with xwfp-; this one is valid for one execution.
            token=f"xwfp-emu-{ids.token(16)}",
        )
        self.by_id[execution.id] = execution
        return execution

    def by_token(self, token: str) -> FunctionExecution | None:
        for execution in self.by_id.values():
            if execution.token == token:
                return execution
        return None
