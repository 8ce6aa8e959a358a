"""The Workflow Builder step "Generate content suggestions": a brief sent from a workflow.

Its inputs (brief, segment, use case, variant count, channel, and the person it runs for)
become a brief like one typed in Slack, posted in the channel; the step ends when the brief's
run ends (:mod:`~suggestbot.flows.workflow.completion`). Segment and use case are matched by name
or id, without regard to case; left empty, the person's last choices are used, else the first
of the workspace. Inputs that cannot be sent fail the step at once, with a sentence that says
which input and why.

The request takes its id from the step's execution, so carrying out the same step again (after
a crash between the ack and this work) finds the request already there.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from suggestbot.contentapi.checks import MAX_VARIANTS, check_brief
from suggestbot.flows.brief import sending as brief
from suggestbot.flows.common import requests, usage
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.linking import accounts as linking
from suggestbot.flows.workflow import completion as step_completion
from suggestbot.store.records import Request, user_key
from suggestbot.ui import failures, steps

log = logging.getLogger(__name__)

CALLBACK_ID = "generate_suggestions"


class BadInput(Exception):
    """An input the step cannot send; the message is for the person who ran the workflow."""


def request_id_of(execution_id: str) -> str:
    """The request id of a workflow step's execution (one request per execution)."""
    return f"step-{execution_id}"


def start(
    deps: Deps, *, team_id: str, execution_id: str, token: str, inputs: Mapping[str, Any]
) -> Request | None:
    """Send the step's brief (posting its root in the channel), or fail the step at once."""
    request_id = request_id_of(execution_id)
    existing = deps.records.requests.get(request_id)
    if existing is not None:
        return existing  # carried out again: the request's own recovery goes on with it
    user_id = str(inputs.get("user") or "")
    lang = deps.lang_of(user_id) if user_id else "en"
    try:
        req = _request(deps, team_id=team_id, lang=lang, inputs=inputs, request_id=request_id)
    except BadInput as exc:
        log.info("workflow step %s refused: its inputs cannot be sent", execution_id)
        step_completion.fail_execution(
            deps, execution_id=execution_id, token=token, message=str(exc)
        )
        return None
    req = req.model_copy(
        update={"step_execution_id": execution_id, "step_token_enc": deps.vault.seal(token)}
    )
    if deps.records.requests.put_if_absent(req.id, req):
        deps.timers.hold_send(req.id)  # ended by launch; another replica's if this one dies
        usage.count(deps, team_id=team_id, briefs=1)
    return brief.launch(deps, req.id)


def _request(
    deps: Deps, *, team_id: str, lang: str, inputs: Mapping[str, Any], request_id: str
) -> Request:
    user_id = str(inputs.get("user") or "")
    if not linking.is_linked(deps, team_id=team_id, user_id=user_id):
        raise BadInput(steps.needs_connect(lang=lang, user=user_id))
    text = str(inputs.get("brief") or "")
    problem = check_brief(text)
    if not text.strip():
        raise BadInput(steps.bad_input(lang=lang, key="no_brief"))
    if problem:
        reason = failures.reason(problem, lang)
        raise BadInput(steps.bad_input(lang=lang, key="bad_brief", reason=reason))
    variants = inputs.get("variant_count") or 1
    if not isinstance(variants, int) or not 1 <= variants <= MAX_VARIANTS:
        raise BadInput(
            steps.bad_input(lang=lang, key="bad_variant_count", most=MAX_VARIANTS, given=variants)
        )
    catalog = deps.catalog()
    prefs = deps.records.preferences.get(user_key(team_id, user_id))
    segment = _pick(
        catalog.segments,
        str(inputs.get("segment") or ""),
        prefs.segment_id if prefs else None,
        lang=lang,
        key="unknown_segment",
    )
    use_case = _pick(
        catalog.use_cases,
        str(inputs.get("use_case") or ""),
        prefs.use_case_id if prefs else None,
        lang=lang,
        key="unknown_use_case",
    )
    run_request = brief.steered_request(
        segment_id=segment[0], use_case_id=use_case[0], text=text, variants=variants
    )
    return Request(
        id=request_id,
        team_id=team_id,
        user_id=user_id,
        lang=lang,
        channel_id=str(inputs.get("channel") or user_id),
        body=requests.wire_body(run_request),
        labels={"segment": segment[1], "use_case": use_case[1]},
    )


def _pick(
    known: Sequence[tuple[str, str]], given: str, remembered: str | None, *, lang: str, key: str
) -> tuple[str, str]:
    """The ``(id, name)`` the input names (by id or name, any case), else the remembered one,
    else the first."""
    if not known:
        raise BadInput(steps.bad_input(lang=lang, key=key, given=given or "-", known="-"))
    wanted = given.strip().casefold()
    if wanted:
        for pair in known:
            if wanted in (pair[0].casefold(), pair[1].casefold()):
                return pair
        names = ", ".join(name for _, name in known)
        raise BadInput(steps.bad_input(lang=lang, key=key, given=given.strip(), known=names))
    return next((pair for pair in known if pair[0] == remembered), known[0])
