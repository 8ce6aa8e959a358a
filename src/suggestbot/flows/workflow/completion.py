"""Completing the Workflow Builder step that sent a request, from wherever the request ends.

Slack sends ``function_executed`` once, and the step runs until the app completes it with the
execution's own token. The request keeps both (the token sealed), so whichever process sees the
run end — the one that took the step, or the one started after it was killed — completes it.
Each end completes before the request is marked ended: a crash in between brings the request
back to this point, and a second completion is answered ``function_execution_not_found``,
which means it is already done.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk.errors import SlackApiError

from suggestbot.flows.common import slackio
from suggestbot.flows.common.deps import Deps
from suggestbot.store import VaultError
from suggestbot.store.records import Request

log = logging.getLogger(__name__)

# Slack's answers that mean the step has already ended (completed here, or timed out there).
_ALREADY_ENDED = frozenset({"function_execution_not_found", "token_expired", "invalid_auth"})
# Outputs are strings; Slack shows them in later steps of the workflow, which read plain text.
OUTPUT_TEXT_MAX = 4000


def succeed(deps: Deps, req: Request, *, permalink: str, first_variant: str) -> None:
    """Complete the request's step with the result's link and its first variant's text."""
    outputs = {"permalink": permalink, "first_variant": first_variant[:OUTPUT_TEXT_MAX]}
    _complete(deps, req, "success", outputs=outputs)


def fail(deps: Deps, req: Request, *, message: str) -> None:
    """Fail the request's step; Slack shows ``message`` to the person who ran the workflow."""
    _complete(deps, req, "error", error=message)


def fail_execution(deps: Deps, *, execution_id: str, token: str, message: str) -> None:
    """Fail a step that never became a request (its inputs could not be sent)."""
    _call(deps, execution_id, token, "error", error=message)


def _complete(deps: Deps, req: Request, how: str, **arguments: Any) -> None:
    if not (req.step_execution_id and req.step_token_enc):
        return
    try:
        token = deps.vault.unseal(req.step_token_enc)
    except VaultError:
        log.error("request %s: its workflow step's token cannot be decrypted", req.id)
        return
    _call(deps, req.step_execution_id, token, how, **arguments)


def _call(deps: Deps, execution_id: str, token: str, how: str, **arguments: Any) -> None:
    try:
        if how == "success":
            deps.slack.functions_completeSuccess(
                token=token, function_execution_id=execution_id, **arguments
            )
        else:
            deps.slack.functions_completeError(
                token=token, function_execution_id=execution_id, **arguments
            )
    except SlackApiError as exc:
        error = slackio.slack_error(exc)
        if error not in _ALREADY_ENDED:
            raise
        log.info("workflow step %s had already ended (%s)", execution_id, error)
        return
    log.info("workflow step %s completed (%s)", execution_id, how)
