"""Buttons on a brief's root message: [Retry], [Edit and resend], [Change] the reused choices,
[Check again], and [Refresh preview] of a variant's image."""

from __future__ import annotations

from typing import Any

from slack_bolt import App

from suggestbot.flows import access, requests, results
from suggestbot.flows.brief_modal import open_brief_modal
from suggestbot.flows.deps import Deps
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.ack import on_button
from suggestbot.slackapp.listeners.askers import answer_press, person_pressing
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.notices import build_only_author
from suggestbot.ui.payloads import action_value, button_place


def register(app: App, deps: Deps) -> None:
    # These open a modal: recorded too; a replay (its trigger expired) asks to press again.
    interactions.on_modal_button(ids.ACTION_EDIT_RESEND)
    interactions.on_modal_button(ids.ACTION_CHANGE_DEFAULTS)
    on_button(app, deps=deps, action=ids.ACTION_RETRY, work=_retry)
    on_button(app, deps=deps, action=ids.ACTION_EDIT_RESEND, work=_edit_resend)
    on_button(app, deps=deps, action=ids.ACTION_CHANGE_DEFAULTS, work=_change_choices)
    on_button(app, deps=deps, action=ids.ACTION_REFRESH_PREVIEW, work=_refresh_preview)
    on_button(app, deps=deps, action=ids.ACTION_CHECK_AGAIN, work=_check_again)
    # These start work: recorded before the ack, carried out after a crash. The other two
    # only open a modal.
    interactions.on_action(ids.ACTION_RETRY, _retry)
    interactions.on_action(ids.ACTION_REFRESH_PREVIEW, _refresh_preview)
    interactions.on_action(ids.ACTION_CHECK_AGAIN, _check_again)


def _retry(deps: Deps, body: dict[str, Any]) -> None:
    user_id = body["user"]["id"]
    request_id = action_value(body)
    # Anyone in the channel sees the button; only the author may send again.
    req = access.request(deps, person_pressing(body), request_id)
    if req is None:
        return
    if not requests.retry(deps, request_id, acting_user=user_id):
        answer_press(deps, body, build_only_author(lang=deps.lang_of(user_id), author=req.user_id))


def _edit_resend(deps: Deps, body: dict[str, Any]) -> None:
    """[Edit and resend]: the brief modal prefilled, to resend this very request edited."""
    _reopen_brief(deps, body, resend=True)


def _change_choices(deps: Deps, body: dict[str, Any]) -> None:
    """[Change] on a quick brief's root: the brief modal with the same text and the choices it
    reused, to send it again with others (which are then remembered)."""
    _reopen_brief(deps, body, resend=False)


def _reopen_brief(deps: Deps, body: dict[str, Any], *, resend: bool) -> None:
    """The brief modal filled from the pressed root's request, for its author only; with
    ``resend`` the submission replaces that request instead of sending a new brief."""
    user_id = body["user"]["id"]
    req = access.request(deps, person_pressing(body), action_value(body))
    if req is None:
        return
    if req.user_id != user_id:
        answer_press(deps, body, build_only_author(lang=deps.lang_of(user_id), author=req.user_id))
        return
    open_brief_modal(
        deps,
        trigger_id=body["trigger_id"],
        team_id=req.team_id,
        user_id=user_id,
        channel_id=req.channel_id,
        text=req.steering_text,
        request_id=req.id if resend else None,
        segment_id=req.body.get("segment_id"),
        use_case_id=req.body.get("use_case_id"),
        variants=int(req.body.get("variant_count") or 1),
    )


def _refresh_preview(deps: Deps, body: dict[str, Any]) -> None:
    request_id, _, number = action_value(body).rpartition(":")
    place = button_place(body)
    if not (place.channel and place.message_ts and number.isdigit()):
        return
    req = access.request(deps, person_pressing(body), request_id)
    if req is None or place.channel != (req.post_channel_id or req.channel_id):
        return  # only in the request's own channel: never another's variant elsewhere
    results.refresh_preview(
        deps,
        request_id=request_id,
        variant_no=int(number),
        channel=place.channel,
        ts=place.message_ts,
    )


def _check_again(deps: Deps, body: dict[str, Any]) -> None:
    req = access.request(deps, person_pressing(body), action_value(body))
    if req is None or req.run_id is None:
        return
    deps.records.requests.update(
        req.id,
        lambda r: r.model_copy(
            update={"state": "submitted", "failure": None, "sent_at": deps.shared_now()}
        ),
    )
    deps.timers.watch_run(req.id, delay_s=0)
