"""A brief: ``/suggest brief [text]``, the brief modal, "Turn into a brief" on a message, and the
buttons on a brief's root message: [Retry], [Edit and resend], [Change] the reused choices,
[Check again], and [Refresh preview] of a variant's image.

``/suggest brief <text>`` from a linked person with remembered choices goes straight to a run:
the brief is recorded as its request, keyed by the delivery, before the ack — that one write is
also what makes a repeated delivery count once. Any other ``/suggest brief`` is recorded as any
input. A brief from the modal is recorded as its request before the ack too; only "edit and
resend" is carried out again from the recorded submission.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from suggestbot.contentapi import SteeredGenerationRequest
from suggestbot.contentapi.checks import MAX_VARIANTS, check_brief
from suggestbot.flows.brief import modal as brief_modal
from suggestbot.flows.brief import results
from suggestbot.flows.brief import sending as brief
from suggestbot.flows.brief.modal import open_brief_modal, quick_request
from suggestbot.flows.common import access, interactions, requests
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.linking import accounts as linking
from suggestbot.slackapp.edge.answer import answer, needs_trigger, person
from suggestbot.slackapp.edge.declaration import (
    REPEATED,
    Action,
    Command,
    CommandGiven,
    Input,
    Press,
    Refusal,
    Shortcut,
    Submission,
    View,
)
from suggestbot.slackapp.inputs.help import COMMAND
from suggestbot.store import StoreUnavailable
from suggestbot.store.records import HeldInput, Preferences, user_key
from suggestbot.ui import field_errors
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.modals import MODAL_INPUT_MAX
from suggestbot.ui.blocks.notices import (
    build_connect_needed,
    build_only_author,
    build_returned_text,
)
from suggestbot.ui.payloads import button_place, delivery_key, selected_label, shortcut_message

log = logging.getLogger(__name__)

# When a recorded brief's send meets an unreachable store: how often to look whether it is
# back, and for how long before leaving the brief to the recovery at the next start.
STORE_RETRY_S = 0.5
STORE_WAIT_S = 600.0


# --- /suggest brief -------------------------------------------------------------------------


def _record_quick(deps: Deps, given: CommandGiven) -> Callable[[], None] | str | None:
    """``/suggest brief <text>`` from a linked person with remembered choices: recorded as its
    request in one write before the ack (the request id comes from the delivery, so a repeated
    delivery finds its brief instead of a second one); the launch after the ack,
    :data:`REPEATED`, or None for any other brief (then recorded as any input)."""
    rest = given.text
    if not (rest and given.team_id and given.user_id and given.channel_id):
        return None
    if check_brief(rest) or not linking.is_linked(
        deps, team_id=given.team_id, user_id=given.user_id
    ):
        return None
    quick = quick_request(deps, team_id=given.team_id, user_id=given.user_id, text=rest)
    if quick is None:
        return None
    run_request, labels = quick
    key = delivery_key(_command_body(given)) if deps.deliveries is not None else None
    req = brief.record_new(
        deps,
        team_id=given.team_id,
        user_id=given.user_id,
        channel_id=given.channel_id,
        run_request=run_request,
        labels=labels,
        request_id=interactions.derived_id("quick-brief", key) if key else None,
    )
    if req is None:
        return REPEATED
    request_id = req.id
    return lambda: launch(deps, request_id, given.response_url)


def _command_body(given: CommandGiven) -> dict[str, Any]:
    return {"command": COMMAND, "trigger_id": given.trigger_id}


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
    created is adopted, not created twice, and a send still written down (another replica may
    hold it by now) is left to its claimer — else watched."""
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
        # Unless its send is still written down: the hold this process lost in the outage runs
        # out and whichever replica claims it then sends once. Sending it again now would
        # free that unit while another replica that took it over is creating the run.
        deps.timers.resume_send(request_id, at=deps.clock())
    elif req.state in ("submitted", "posting"):
        deps.timers.watch_run(request_id, delay_s=0)
    else:
        return
    log.info("request %s: the store is back; resumed it (%s)", request_id, req.state)


def _send(deps: Deps, given: CommandGiven) -> None:
    """Any other ``/suggest brief``: kept for an unlinked person, handed back when too long for
    the modal, sent when the choices can be reused, else opened in the modal."""
    rest, team_id, user_id, channel_id = given.text, given.team_id, given.user_id, given.channel_id
    lang = deps.lang_of(user_id)
    if not linking.is_linked(deps, team_id=team_id, user_id=user_id):
        # The same id when carried out again after a crash: kept once.
        held = HeldInput(
            id=interactions.derived_id("held-brief"),
            team_id=team_id,
            user_id=user_id,
            channel_id=channel_id,
            text=rest,
        )
        deps.records.held.put(held.id, held)
        answer(deps, given, build_connect_needed(lang=lang, held_id=held.id))
        return
    problem = check_brief(rest) if rest else None
    if problem and len(rest) > MODAL_INPUT_MAX:
        # Too long for the modal to hold for editing: say why, and give the text back whole.
        why = field_errors.brief_problem(code=problem, length=len(rest), lang=lang)
        answer(deps, given, build_returned_text(lang=lang, problem=why, text=rest))
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
            response_url=given.response_url,
        )
        return
    trigger_id = needs_trigger(deps, given)
    if trigger_id is None:
        return
    open_brief_modal(
        deps,
        trigger_id=trigger_id,
        team_id=team_id,
        user_id=user_id,
        channel_id=channel_id,
        text=rest,
        response_url=given.response_url,
    )


# --- the brief modal ------------------------------------------------------------------------


def _variant_count(values: dict[str, Any]) -> int | None:
    """The chosen number of variants, or None when it is not one the service takes."""
    raw = str(values.get(ids.INPUT_VARIANTS) or "1")
    count = int(raw) if raw.isdecimal() else 0
    return count if 1 <= count <= MAX_VARIANTS else None


def _held_text(deps: Deps, given: Submission) -> str | None:
    """The text of a brief kept aside (too long for the input), or None for a typed one."""
    if not given.metadata.get("held"):
        return None
    held = access.held(deps, person(given), str(given.metadata["held"]))
    return held.text if held else ""


def _check_modal(given: Submission) -> Refusal | None:
    """What can be told from the submission alone (a kept brief's text is checked before the
    ack, :func:`_record_modal_brief`)."""
    values = given.values
    if not given.metadata.get("held"):
        text = str(values.get(ids.INPUT_BRIEF) or "")
        code = check_brief(text)
        if code:
            return Refusal(
                errors=lambda lang: {
                    ids.INPUT_BRIEF: field_errors.brief_problem(
                        code=code, length=len(text), lang=lang
                    )
                }
            )
    missing = [b for b in (ids.INPUT_SEGMENT, ids.INPUT_USE_CASE) if not values.get(b)]
    if missing:
        return Refusal(
            errors=lambda lang: field_errors.brief_missing_choice(block_ids=missing, lang=lang)
        )
    if _variant_count(values) is None:
        return Refusal(
            errors=lambda lang: field_errors.brief_variants(most=MAX_VARIANTS, lang=lang)
        )
    return None


def _modal_text(deps: Deps, given: Submission) -> str:
    held = _held_text(deps, given)
    return held if held is not None else str(given.values.get(ids.INPUT_BRIEF) or "")


def _brief_request(given: Submission, text: str) -> tuple[SteeredGenerationRequest, dict[str, str]]:
    """The ``steered_generation`` request and the display labels from a submitted brief modal."""
    values, view = given.values, given.body.get("view") or {}
    segment_id, use_case_id = values[ids.INPUT_SEGMENT], values[ids.INPUT_USE_CASE]
    variants = _variant_count(values) or 1
    labels = {
        "segment": selected_label(view, ids.INPUT_SEGMENT) or segment_id,
        "use_case": selected_label(view, ids.INPUT_USE_CASE) or use_case_id,
    }
    run_request = brief.steered_request(
        segment_id=segment_id, use_case_id=use_case_id, text=text, variants=variants
    )
    return run_request, labels


def _str(value: Any) -> str | None:
    """A metadata value as an id (None when it is none)."""
    return str(value) if value else None


def _record_modal_brief(deps: Deps, given: Submission) -> Refusal | Callable[[], None]:
    """Recorded before the ack: once the modal has closed nobody submits it again, so a crash
    right after the ack must not lose the brief (recovery sends what is recorded). Remembers
    the choices; a brief that edits an earlier one of the person's is resent in place after
    the ack."""
    text = _modal_text(deps, given)
    code = check_brief(text)
    if code:  # a kept brief's text: it has no field of its own
        return Refusal(
            errors=lambda lang: {
                ids.INPUT_SEGMENT: field_errors.brief_problem(
                    code=code, length=len(text), lang=lang
                )
            }
        )
    run_request, labels = _brief_request(given, text)
    deps.records.preferences.put(
        user_key(given.team_id, given.user_id),
        Preferences(
            segment_id=run_request.segment_id,
            use_case_id=run_request.use_case_id,
            variants=run_request.variant_count,
        ),
    )
    who = person(given)
    held = access.held(deps, who, _str(given.metadata.get("held")))
    if held is not None:
        deps.records.held.delete(held.id)
    if access.own_request(deps, who, _str(given.metadata.get("request"))) is not None:
        return lambda: _resend_edited(deps, given, text)
    if given.metadata.get("source"):  # made from a message ("Turn into a brief")
        labels = {**labels, requests.SOURCE_LABEL: str(given.metadata["source"])}
    req = brief.record(
        deps,
        team_id=given.team_id,
        user_id=given.user_id,
        channel_id=given.channel_id or given.user_id,
        run_request=run_request,
        labels=labels,
    )
    request_id = req.id
    return lambda: _send_recorded(deps, given, request_id)


def _send_recorded(deps: Deps, given: Submission, request_id: str) -> None:
    _post_where_allowed(deps, given, request_id)
    brief.launch(deps, request_id, response_url=given.response_url)


def _post_where_allowed(deps: Deps, given: Submission, request_id: str) -> None:
    """A brief goes to the channel its modal was opened in only if its author is a member of
    it, else to their DM (asked of Slack after the ack: a big channel takes several calls)."""
    req = deps.records.requests.get(request_id)
    if req is None or req.state != "new":
        return
    where = access.where_to_post(deps, person(given), req.channel_id)
    if where != req.channel_id:
        deps.records.requests.update(
            request_id, lambda r: r.model_copy(update={"channel_id": where})
        )


def _resend_edited(deps: Deps, given: Submission, text: str) -> None:
    run_request, labels = _brief_request(given, text)
    requests.resend_edited(
        deps,
        given.metadata["request"],
        acting_user=given.user_id,
        run_request=run_request,
        labels=labels,
    )


def _modal_submitted(deps: Deps, given: Submission) -> None:
    """After a restart: a new brief was recorded as its request (recovery sends it); an
    "edit and resend" is resent from the recorded submission."""
    earlier = access.own_request(deps, person(given), _str(given.metadata.get("request")))
    if earlier is None or given.metadata.get("held"):
        return
    text = str(given.values.get(ids.INPUT_BRIEF) or "")
    if check_brief(text):
        return
    _resend_edited(deps, given, text)


# --- "Turn into a brief" --------------------------------------------------------------------


def _from_message(deps: Deps, press: Press) -> None:
    """The brief modal, prefilled with the message's text and keeping its permalink as the
    brief's context; from there it goes as any modal brief."""
    assert press.trigger_id is not None
    source = shortcut_message(press.body)
    brief_modal.open_from_message(
        deps,
        trigger_id=press.trigger_id,
        team_id=source.team_id,
        user_id=source.user_id,
        channel_id=source.channel_id,
        message_ts=source.message_ts,
        text=source.text,
        response_url=press.response_url,
    )


# --- buttons on a brief's root ----------------------------------------------------------------


def _retry(deps: Deps, press: Press) -> None:
    # Anyone in the channel sees the button; only the author may send again.
    req = access.request(deps, person(press), press.value)
    if req is None:
        return
    if not requests.retry(deps, press.value, acting_user=press.user_id):
        lang = deps.lang_of(press.user_id)
        answer(deps, press, build_only_author(lang=lang, author=req.user_id))


def _edit_resend(deps: Deps, press: Press) -> None:
    """[Edit and resend]: the brief modal prefilled, to resend this very request edited."""
    _reopen_brief(deps, press, resend=True)


def _change_choices(deps: Deps, press: Press) -> None:
    """[Change] on a quick brief's root: the brief modal with the same text and the choices it
    reused, to send it again with others (which are then remembered)."""
    _reopen_brief(deps, press, resend=False)


def _reopen_brief(deps: Deps, press: Press, *, resend: bool) -> None:
    """The brief modal filled from the pressed root's request, for its author only; with
    ``resend`` the submission replaces that request instead of sending a new brief."""
    assert press.trigger_id is not None
    req = access.request(deps, person(press), press.value)
    if req is None:
        return
    if req.user_id != press.user_id:
        lang = deps.lang_of(press.user_id)
        answer(deps, press, build_only_author(lang=lang, author=req.user_id))
        return
    open_brief_modal(
        deps,
        trigger_id=press.trigger_id,
        team_id=req.team_id,
        user_id=press.user_id,
        channel_id=req.channel_id,
        text=req.steering_text,
        request_id=req.id if resend else None,
        segment_id=req.body.get("segment_id"),
        use_case_id=req.body.get("use_case_id"),
        variants=int(req.body.get("variant_count") or 1),
    )


def _refresh_preview(deps: Deps, press: Press) -> None:
    request_id, _, number = press.value.rpartition(":")
    channel, ts = press.channel_id, button_place(press.body).message_ts
    if not (channel and ts and number.isdigit()):
        return
    req = access.request(deps, person(press), request_id)
    if req is None or channel != (req.post_channel_id or req.channel_id):
        return  # only in the request's own channel: never another's variant elsewhere
    results.refresh_preview(
        deps, request_id=request_id, variant_no=int(number), channel=channel, ts=ts
    )


def _check_again(deps: Deps, press: Press) -> None:
    req = access.request(deps, person(press), press.value)
    if req is None or req.run_id is None:
        return
    deps.records.requests.update(
        req.id,
        lambda r: r.model_copy(
            update={"state": "submitted", "failure": None, "sent_at": deps.shared_now()}
        ),
    )
    deps.timers.watch_run(req.id, delay_s=0)


INPUTS: list[Input] = [
    Input(
        "brief_command",
        Command(COMMAND, "brief"),
        run=_send,
        before_ack=_record_quick,
        records_itself=True,
    ),
    Input(
        "brief_submitted",
        View(ids.VIEW_BRIEF),
        run=_modal_submitted,
        check=_check_modal,
        before_ack=_record_modal_brief,
    ),
    Input("turn_into_brief", Shortcut(ids.SHORTCUT_BRIEF), run=_from_message, opens_modal=True),
    Input("retry", Action(ids.ACTION_RETRY), run=_retry),
    Input("edit_resend", Action(ids.ACTION_EDIT_RESEND), run=_edit_resend, opens_modal=True),
    Input(
        "change_choices", Action(ids.ACTION_CHANGE_DEFAULTS), run=_change_choices, opens_modal=True
    ),
    Input("refresh_preview", Action(ids.ACTION_REFRESH_PREVIEW), run=_refresh_preview),
    Input("check_again", Action(ids.ACTION_CHECK_AGAIN), run=_check_again),
]
