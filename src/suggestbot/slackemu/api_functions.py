"""``functions.completeSuccess`` and ``functions.completeError``: a workflow step ends once.

Arguments and errors as Slack's method reference lists them: ``function_execution_id``
required, ``outputs`` (an object conforming to the manifest's output parameters, else
``parameter_validation_failed`` with the problems in ``response_metadata.messages``) or
``error`` (a readable message Slackbot shows the person who ran the workflow). No scope is
needed; the app may call with its bot token or with the execution's own token.
"""

from __future__ import annotations

from typing import Any

from suggestbot.slackemu.args import Args
from suggestbot.slackemu.errors import ApiError
from suggestbot.slackemu.functions import COMPLETED, FAILED, RUNNING, FunctionExecution
from suggestbot.slackemu.workspace import Workspace


def complete_success(ws: Workspace, args: Args) -> dict[str, Any]:
    execution = _running(ws, args)
    if "outputs" not in args.raw:
        raise ApiError("invalid_arguments", messages=["[ERROR] missing required field: outputs"])
    outputs = args.structured("outputs", error="invalid_arguments")
    problems = execution.spec.output_problems(outputs if outputs is not None else {})
    if problems:
        raise ApiError("parameter_validation_failed", messages=problems)
    execution.state = COMPLETED
    execution.outputs = dict(outputs or {})
    return {"ok": True}


def complete_error(ws: Workspace, args: Args) -> dict[str, Any]:
    execution = _running(ws, args)
    message = args.opt("error")
    if message is None or not message.strip():
        raise ApiError("invalid_arguments", messages=["[ERROR] missing required field: error"])
    execution.state = FAILED
    execution.error = message
    return {"ok": True}


def _running(ws: Workspace, args: Args) -> FunctionExecution:
    execution = ws.function_executions.by_id.get(args.req("function_execution_id"))
    if execution is None:
        raise ApiError("function_execution_not_found")
    if execution.state != RUNNING:
        execution.completions_refused += 1
        raise ApiError("function_execution_not_found")
    return execution
