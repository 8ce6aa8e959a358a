"""Buttons: connect, resend what was kept, retry, edit and resend, refresh an image preview."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, App

from suggestbot.flows import linking, refine, requests, results, slackio
from suggestbot.flows.deps import Deps
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.background import in_background
from suggestbot.slackapp.listeners.commands import open_brief_modal, open_connect_modal
from suggestbot.store.records import KEEP_HELD
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.notices import build_notice
from suggestbot.ui.messages import t

log = logging.getLogger(__name__)


def _value(body: dict[str, Any]) -> str:
    return str(body["actions"][0].get("value") or "")


def _channel(body: dict[str, Any]) -> str | None:
    channel = body.get("channel") or {}
    return channel.get("id") or (body.get("container") or {}).get("channel_id")


def _tell(deps: Deps, body: dict[str, Any], text: str) -> None:
    user_id = body["user"]["id"]
    slackio.notify(
        deps,
        user_id=user_id,
        channel_id=_channel(body) or user_id,
        message=build_notice(lang=deps.lang_of(user_id), text=text),
        response_url=body.get("response_url"),
    )


def register(app: App, deps: Deps) -> None:
    def on(action_id: str, work: Any) -> None:
        @app.action(action_id)
        def listener(ack: Ack, body: dict[str, Any]) -> None:
            ack()
            in_background(
                deps,
                work,
                deps,
                body,
                user_id=body["user"]["id"],
                channel_id=_channel(body),
                response_url=body.get("response_url"),
            )

    on(ids.ACTION_CONNECT, _connect)
    on(ids.ACTION_RESEND, _resend_held)
    on(ids.ACTION_RETRY, _retry)
    on(ids.ACTION_EDIT_RESEND, _edit_resend)
    on(ids.ACTION_CHANGE_DEFAULTS, _change_choices)
    on(ids.ACTION_REFRESH_PREVIEW, _refresh_preview)
    on(ids.ACTION_CHECK_AGAIN, _check_again)
    # Presses that start work are recorded before the ack and carried out after a crash; the
    # ones that only open a modal cannot be (their trigger expires), the person presses again.
    interactions.on_action(ids.ACTION_RESEND, _resend_held_reply)
    interactions.on_action(ids.ACTION_RETRY, _retry)
    interactions.on_action(ids.ACTION_REFRESH_PREVIEW, _refresh_preview)
    interactions.on_action(ids.ACTION_CHECK_AGAIN, _check_again)


def _connect(deps: Deps, body: dict[str, Any]) -> None:
    value = _value(body)
    held_id = value.removeprefix("held:") if value.startswith("held:") else ""
    open_connect_modal(
        deps,
        trigger_id=body["trigger_id"],
        user_id=body["user"]["id"],
        held_id=held_id,
        channel_id=_channel(body),
        response_url=body.get("response_url"),
    )


def _resend_held(deps: Deps, body: dict[str, Any]) -> None:
    user_id, team_id = body["user"]["id"], body["user"]["team_id"]
    held = deps.records.held.get(_value(body))
    if held is None:
        _tell(deps, body, t("held.gone", deps.lang_of(user_id), days=KEEP_HELD.days))
        return
    if not linking.is_linked(deps, team_id=team_id, user_id=user_id):
        open_connect_modal(deps, trigger_id=body["trigger_id"], user_id=user_id, held_id=held.id)
        return
    if held.thread_ts:  # a reply in a thread: sent as the refinement it was meant to be
        refine.resend_held(deps, held, team_id=team_id, acting_user=user_id)
        return
    open_brief_modal(
        deps,
        trigger_id=body["trigger_id"],
        team_id=team_id,
        user_id=user_id,
        channel_id=held.channel_id,
        text=held.text,
    )
    if len(held.text) <= 3000:
        deps.records.held.delete(held.id)


def _resend_held_reply(deps: Deps, body: dict[str, Any]) -> None:
    """After a restart: a kept thread reply is resent; kept briefs wait for another press
    (they are resent through the brief modal, which only a fresh press can open)."""
    held = deps.records.held.get(_value(body))
    user_id, team_id = body["user"]["id"], body["user"]["team_id"]
    if held is None or not held.thread_ts:
        return
    if linking.is_linked(deps, team_id=team_id, user_id=user_id):
        refine.resend_held(deps, held, team_id=team_id, acting_user=user_id)


def _retry(deps: Deps, body: dict[str, Any]) -> None:
    user_id = body["user"]["id"]
    request_id = _value(body)
    req = deps.records.requests.get(request_id)
    if req is None:
        return
    if not requests.retry(deps, request_id, acting_user=user_id):
        _tell(deps, body, t("error.only_author", deps.lang_of(user_id), user=req.user_id))


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
    req = deps.records.requests.get(_value(body))
    if req is None:
        return
    if req.user_id != user_id:
        _tell(deps, body, t("error.only_author", deps.lang_of(user_id), user=req.user_id))
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
    request_id, _, number = _value(body).rpartition(":")
    channel = _channel(body)
    ts = (body.get("message") or {}).get("ts") or (body.get("container") or {}).get("message_ts")
    if not (channel and ts and number.isdigit()):
        return
    results.refresh_preview(
        deps, request_id=request_id, variant_no=int(number), channel=channel, ts=ts
    )


def _check_again(deps: Deps, body: dict[str, Any]) -> None:
    req = deps.records.requests.get(_value(body))
    if req is None or req.run_id is None:
        return
    deps.records.requests.update(
        req.id,
        lambda r: r.model_copy(
            update={"state": "submitted", "failure": None, "sent_at": deps.clock()}
        ),
    )
    deps.timers.watch_run(req.id, delay_s=0)
