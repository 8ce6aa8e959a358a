"""Applying an app's answer to ``view_submission`` the way Slack does.

Slack docs, "Modals — handling submissions": an empty 200 closes the submitted view;
``response_action`` ``errors`` keeps it open with messages under the named input blocks,
``update`` replaces it, ``push`` stacks a new one (three at most), ``clear`` closes them all.
An answer after 3 seconds, a non-200 status or an invalid view leaves the modal as it was,
and Slack shows a generic error instead — reported here as ``problem``.
"""

from __future__ import annotations

import json
from typing import Any

from suggestbot.slackemu.api_views import replace_definition
from suggestbot.slackemu.errors import ApiError
from suggestbot.slackemu.model import StoredView
from suggestbot.slackemu.results import ACK_DEADLINE_S, AppResponse, ViewSubmission
from suggestbot.slackemu.workspace import MAX_MODAL_STACK, Workspace


def apply_answer(
    ws: Workspace, user_id: str, submitted: StoredView, response: AppResponse
) -> ViewSubmission:
    """Change the user's modal stack as Slack would; call with ``ws.lock`` held."""
    stack = ws.modal_stacks.setdefault(user_id, [])
    action, problem, errors = _apply(ws, user_id, stack, submitted, response)
    if problem:
        ws.warnings.append(f"view_submission: {problem}")
    by_label, by_block = errors
    return ViewSubmission(
        response,
        action,
        errors=by_label,
        errors_by_block_id=by_block,
        view=stack[-1].to_api() if stack else None,
        problem=problem,
    )


def _no_errors() -> tuple[dict[str, str], dict[str, str]]:
    return {}, {}


def _apply(
    ws: Workspace,
    user_id: str,
    stack: list[StoredView],
    submitted: StoredView,
    response: AppResponse,
) -> tuple[str | None, str | None, tuple[dict[str, str], dict[str, str]]]:
    if response.status != 200:
        return None, f"app answered HTTP {response.status}", _no_errors()
    if response.elapsed_s > ACK_DEADLINE_S:
        return None, "timeout: no answer within 3 seconds", _no_errors()
    if not response.body.strip():
        if stack and stack[-1].id == submitted.id:
            stack.pop()
        return None, None, _no_errors()
    try:
        answer = json.loads(response.body)
    except json.JSONDecodeError:
        return None, "answer is not JSON", _no_errors()
    action = answer.get("response_action") if isinstance(answer, dict) else None
    if action == "errors":
        problem, errors = _field_errors(submitted, answer.get("errors"))
        return action, problem, errors
    if action == "clear":
        stack.clear()
        return action, None, _no_errors()
    if action in ("update", "push"):
        return action, _replace_or_push(ws, user_id, stack, submitted, action, answer), _no_errors()
    return None, f"unknown response_action {action!r}", _no_errors()


def _replace_or_push(
    ws: Workspace,
    user_id: str,
    stack: list[StoredView],
    submitted: StoredView,
    action: str,
    answer: dict[str, Any],
) -> str | None:
    try:
        definition = ws.check_view(answer.get("view"))
    except ApiError as exc:
        return f"invalid view: {exc.error} {exc.messages}"
    if definition.get("type") != "modal":
        return "invalid view: not a modal"
    if action == "update":
        replace_definition(ws, submitted, definition)
        return None
    if len(stack) >= MAX_MODAL_STACK:
        return "push_limit_reached"
    pushed = ws.new_view(user_id, definition, root=stack[0].id)
    pushed.previous_view_id = stack[-1].id
    stack.append(pushed)
    return None


def _field_errors(
    submitted: StoredView, errors: Any
) -> tuple[str | None, tuple[dict[str, str], dict[str, str]]]:
    if not isinstance(errors, dict) or not errors:
        return "response_action errors without an errors object", _no_errors()
    labels = {
        b["block_id"]: b["label"]["text"]
        for b in submitted.definition.get("blocks", [])
        if b.get("type") == "input"
    }
    unknown = [block_id for block_id in errors if block_id not in labels]
    if unknown:
        # Slack shows a generic failure instead of field errors in this case.
        return f"errors name blocks that are not inputs: {unknown}", _no_errors()
    by_label = {labels[block_id]: str(message) for block_id, message in errors.items()}
    return None, (by_label, {str(k): str(v) for k, v in errors.items()})
