"""``/suggest brief [text]``: straight to a run with the person's remembered choices, else the
brief modal prefilled with the text."""

from __future__ import annotations

import logging
import time
from typing import Any

from suggestbot.contentapi.checks import check_brief
from suggestbot.flows.brief import sending as brief
from suggestbot.flows.brief.modal import open_brief_modal, quick_request
from suggestbot.flows.common import interactions
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.linking import accounts as linking
from suggestbot.slackapp.listeners.askers import answer_command
from suggestbot.store import StoreUnavailable
from suggestbot.store.records import HeldInput
from suggestbot.ui import field_errors
from suggestbot.ui.blocks.modals import MODAL_INPUT_MAX
from suggestbot.ui.blocks.notices import build_connect_needed, build_returned_text
from suggestbot.ui.payloads import delivery_key, parse_command

log = logging.getLogger(__name__)

# When a recorded brief's send meets an unreachable store: how often to look whether it is
# back, and for how long before leaving the brief to the recovery at the next start.
STORE_RETRY_S = 0.5
STORE_WAIT_S = 600.0


COMMAND = "/suggest"
# A quick brief repeated (the same delivery again): recorded before, nothing more to do.
REPEATED = ""


def claims_its_own_delivery(body: dict[str, Any]) -> bool:
    """``/suggest brief <text>``: the brief's own record, keyed by the delivery, is what makes
    a repeated delivery count once, so the delivery log is not written first (the ack waits
    for one write, not two). If it turns out not to go straight to a run, the listener claims
    the delivery itself (:func:`claim_delivery`)."""
    if body.get("command") != COMMAND or body.get("type") is not None:
        return False
    sub, rest = parse_command(body.get("text"))
    return sub == "brief" and bool(rest)


def claim_delivery(deps: Deps, body: dict[str, Any]) -> bool:
    """The delivery log's claim the middleware left to this command (see
    :func:`claims_its_own_delivery`); False for a repeated delivery."""
    key = delivery_key(body)
    if key is None or deps.deliveries is None:
        return True
    return deps.deliveries.first_time(key)


def record_quick_brief(deps: Deps, body: dict[str, Any]) -> str | None:
    """Record ``/suggest brief <text>`` from a linked user with remembered choices (the one
    command that goes straight to a run), before the ack, in one write; the request id,
    :data:`REPEATED` for a delivery recorded before, or None for anything else. The request id
    comes from the delivery, so a repeated delivery finds its brief instead of a second one."""
    sub, rest = parse_command(body.get("text"))
    team_id, user_id, channel_id = body.get("team_id"), body.get("user_id"), body.get("channel_id")
    if sub != "brief" or not (rest and team_id and user_id and channel_id):
        return None
    if check_brief(rest) or not linking.is_linked(deps, team_id=team_id, user_id=user_id):
        return None
    quick = quick_request(deps, team_id=team_id, user_id=user_id, text=rest)
    if quick is None:
        return None
    run_request, labels = quick
    key = delivery_key(body) if deps.deliveries is not None else None
    req = brief.record_new(
        deps,
        team_id=team_id,
        user_id=user_id,
        channel_id=channel_id,
        run_request=run_request,
        labels=labels,
        request_id=interactions.derived_id("quick-brief", key) if key else None,
    )
    return req.id if req is not None else REPEATED


def launch(deps: Deps, request_id: str, response_url: str | None) -> None:
    """Send a brief recorded before the ack.

    If the store goes away meanwhile (a database restarting), the brief is taken up again once
    the store is back, from the state it reached — as recovery does after a crash — so that it
    does not wait for the next start.
    """
    try:
        brief.launch(deps, request_id, response_url=response_url)
    except StoreUnavailable:
        log.warning(
            "request %s: the store cannot be reached; resuming it once it is back", request_id
        )
        resume_when_store_is_back(deps, request_id)


def resume_when_store_is_back(
    deps: Deps, request_id: str, *, every_s: float = STORE_RETRY_S, give_up_s: float = STORE_WAIT_S
) -> None:
    """Wait (in this background thread) until the store answers, then hand the request to the
    timers by the state it reached: sent (again) if no run was accepted yet — a run already
    created is adopted, not created twice — else watched."""
    deadline = time.monotonic() + give_up_s
    while True:
        try:
            req = deps.records.requests.get(request_id)
            break
        except StoreUnavailable:
            if time.monotonic() > deadline:
                log.error(
                    "request %s: the store stayed unreachable for %.0f s; it is resumed at the "
                    "next start",
                    request_id,
                    give_up_s,
                )
                return
            time.sleep(every_s)
    if req is None:
        return
    if req.state in ("new", "sending", "delayed"):
        deps.timers.send_later(request_id, at=deps.clock())
    elif req.state in ("submitted", "posting"):
        deps.timers.watch_run(request_id, delay_s=0)
    else:
        return
    log.info("request %s: the store is back; resumed it (%s)", request_id, req.state)


def send(deps: Deps, body: dict[str, Any], rest: str) -> None:
    """Any other ``/suggest brief``: kept for an unlinked person, handed back when too long for
    the modal, sent when the choices can be reused, else opened in the modal."""
    team_id, user_id, channel_id = body["team_id"], body["user_id"], body["channel_id"]
    lang = deps.lang_of(user_id)
    if not linking.is_linked(deps, team_id=team_id, user_id=user_id):
        held = HeldInput(team_id=team_id, user_id=user_id, channel_id=channel_id, text=rest)
        deps.records.held.put(held.id, held)
        answer_command(deps, body, build_connect_needed(lang=lang, held_id=held.id))
        return
    problem = check_brief(rest) if rest else None
    if problem and len(rest) > MODAL_INPUT_MAX:
        # Too long for the modal to hold for editing: say why, and give the text back whole.
        why = field_errors.brief_problem(code=problem, length=len(rest), lang=lang)
        answer_command(deps, body, build_returned_text(lang=lang, problem=why, text=rest))
        return
    # Decided as before the ack (the catalogue as last known); only an app that never loaded
    # one loads it now, so a linked user's remembered choices are used from the first brief.
    quick = None
    if rest and problem is None:
        quick = quick_request(deps, team_id=team_id, user_id=user_id, text=rest, load=True)
    if quick is not None:
        run_request, labels = quick
        brief.start(
            deps,
            team_id=team_id,
            user_id=user_id,
            channel_id=channel_id,
            run_request=run_request,
            labels=labels,
            response_url=body.get("response_url"),
        )
        return
    open_brief_modal(
        deps,
        trigger_id=body["trigger_id"],
        team_id=team_id,
        user_id=user_id,
        channel_id=channel_id,
        text=rest,
        response_url=body.get("response_url"),
    )
