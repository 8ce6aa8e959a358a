"""Modal submissions: connect an account, send (or resend) a brief."""

from __future__ import annotations

import logging
from concurrent.futures import Future
from typing import Any

from slack_bolt import Ack, App

from suggestbot.contentapi import SteeredGenerationRequest
from suggestbot.contentapi.checks import check_brief
from suggestbot.flows import brief, home, linking, requests, slackio
from suggestbot.flows.deps import Deps
from suggestbot.flows.linking import LinkResult
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.background import in_background
from suggestbot.slackapp.listeners.commands import brief_problem
from suggestbot.store.records import Preferences, user_key
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.notices import build_notice
from suggestbot.ui.blocks.results import Button
from suggestbot.ui.messages import t
from suggestbot.ui.payloads import load_metadata, selected_label, view_values

log = logging.getLogger(__name__)


def _field_error(text: str, lang: str) -> str | None:
    """The field error for a brief the service would refuse, checked before sending."""
    return brief_problem(text, lang) if check_brief(text) else None


def register(app: App, deps: Deps) -> None:
    # Recorded before the ack (middleware) and carried out after a crash. A new brief is
    # recorded as a request instead; only "edit and resend" is replayed from the submission.
    interactions.on_view(ids.VIEW_CONNECT, _replay_connect)
    interactions.on_view(ids.VIEW_BRIEF, _replay_edited_brief)

    @app.view(ids.VIEW_CONNECT)
    def connect_submitted(ack: Ack, body: dict[str, Any], view: dict[str, Any]) -> None:
        user_id = body["user"]["id"]
        token = str(view_values(view).get(ids.INPUT_TOKEN) or "")
        if not token.strip():
            lang = deps.lang_of(user_id)  # a Slack call: only to word the error
            ack(response_action="errors", errors={ids.INPUT_TOKEN: t("connect.empty", lang)})
            interactions.finish_current(deps)  # the modal stays open: nothing to carry out
            return
        # The token is checked before the ack, within a budget under Slack's 3 seconds: a
        # token the service refuses is shown as an error next to the field, with the modal
        # still open and what was typed kept (response_action "errors"). A check that takes
        # longer goes on after the ack and its outcome is told in a message.
        checking = linking.verify_soon(
            deps, team_id=body["user"]["team_id"], user_id=user_id, token=token
        )
        result = linking.result_within(checking, seconds=CONNECT_CHECK_BUDGET_S)
        if result in _FIELD_ERRORS:
            lang = deps.lang_of(user_id)  # a Slack call: only to word the error
            ack(response_action="errors", errors={ids.INPUT_TOKEN: t(_FIELD_ERRORS[result], lang)})
            interactions.finish_current(deps)  # the modal stays open: nothing to carry out
            return
        ack()
        metadata = load_metadata(view.get("private_metadata"))
        in_background(
            deps,
            _finish_connect,
            deps,
            body,
            checking,
            user_id=user_id,
            channel_id=metadata.get("channel"),
            response_url=metadata.get("response_url"),
        )

    @app.view(ids.VIEW_BRIEF)
    def brief_submitted(ack: Ack, body: dict[str, Any], view: dict[str, Any]) -> None:
        user_id = body["user"]["id"]
        values = view_values(view)
        metadata = load_metadata(view.get("private_metadata"))
        if metadata.get("held"):
            held = deps.records.held.get(metadata["held"])
            text = held.text if held else ""
        else:
            text = str(values.get(ids.INPUT_BRIEF) or "")
        # The language (a Slack call) only to word an error: nothing slow before a good ack.
        problem = _field_error(text, deps.lang_of(user_id)) if check_brief(text) else None
        if problem and not metadata.get("held"):
            ack(response_action="errors", errors={ids.INPUT_BRIEF: problem})
            return
        if problem:
            ack(response_action="errors", errors={ids.INPUT_SEGMENT: problem})
            return
        missing = [b for b in (ids.INPUT_SEGMENT, ids.INPUT_USE_CASE) if not values.get(b)]
        if missing:
            ack(
                response_action="errors",
                errors=dict.fromkeys(missing, t("brief.missing_choice", deps.lang_of(user_id))),
            )
            return
        # Recorded before the ack: once the modal has closed nobody submits it again, so a
        # crash right after the ack must not lose the brief (recovery sends what is recorded).
        recorded = _record_brief(deps, body, text, metadata)
        ack()
        in_background(
            deps,
            _send_brief,
            deps,
            body,
            text,
            metadata,
            recorded,
            user_id=user_id,
            channel_id=metadata.get("channel"),
        )


# How long the connect modal's submission waits for the token check before it acks.
CONNECT_CHECK_BUDGET_S = 2.0
_FIELD_ERRORS = {
    LinkResult.REJECTED: "connect.rejected",
    LinkResult.UNREACHABLE: "connect.unreachable",
    LinkResult.EMPTY: "connect.empty",
}


def _replay_connect(deps: Deps, body: dict[str, Any]) -> None:
    token = str(view_values(body["view"]).get(ids.INPUT_TOKEN) or "")
    if token.strip():
        team_id, user_id = body["user"]["team_id"], body["user"]["id"]
        checking = linking.verify_soon(deps, team_id=team_id, user_id=user_id, token=token)
        _finish_connect(deps, body, checking)


def _replay_edited_brief(deps: Deps, body: dict[str, Any]) -> None:
    view, user_id = body["view"], body["user"]["id"]
    metadata = load_metadata(view.get("private_metadata"))
    earlier = deps.records.requests.get(metadata["request"]) if metadata.get("request") else None
    if earlier is None or earlier.user_id != user_id or metadata.get("held"):
        return
    values = view_values(view)
    text = str(values.get(ids.INPUT_BRIEF) or "")
    if check_brief(text) or not (values.get(ids.INPUT_SEGMENT) and values.get(ids.INPUT_USE_CASE)):
        return
    _send_brief(deps, body, text, metadata, None)


def _finish_connect(deps: Deps, body: dict[str, Any], checking: Future[LinkResult]) -> None:
    user_id = body["user"]["id"]
    lang = deps.lang_of(user_id)
    metadata = load_metadata(body["view"].get("private_metadata"))
    result = checking.result()
    held = deps.records.held.get(metadata["held"]) if metadata.get("held") else None
    if result is LinkResult.LINKED:
        text = t("connect.done", lang)
        buttons = []
        if held is not None:
            text = t("refine.held_ready" if held.thread_ts else "connect.held_ready", lang)
            buttons = [Button("button.resend", ids.ACTION_RESEND, held.id, "primary")]
    else:
        text = f":warning: {t(_FIELD_ERRORS[result], lang)}"
        again = f"held:{held.id}" if held is not None else "again"
        buttons = [Button("connect.button", ids.ACTION_CONNECT, again, "primary")]
    slackio.notify(
        deps,
        user_id=user_id,
        channel_id=metadata.get("channel") or (held.channel_id if held else user_id),
        message=build_notice(lang=lang, text=text, buttons=buttons),
        response_url=metadata.get("response_url"),
    )
    if result is LinkResult.LINKED:
        home.refresh(deps, team_id=body["user"]["team_id"], user_id=user_id)


def _brief_request(
    view: dict[str, Any], text: str
) -> tuple[SteeredGenerationRequest, dict[str, str]]:
    """The ``steered_generation`` request and the display labels from a submitted brief modal."""
    values = view_values(view)
    segment_id, use_case_id = values[ids.INPUT_SEGMENT], values[ids.INPUT_USE_CASE]
    variants = int(values.get(ids.INPUT_VARIANTS) or 1)
    labels = {
        "segment": selected_label(view, ids.INPUT_SEGMENT) or segment_id,
        "use_case": selected_label(view, ids.INPUT_USE_CASE) or use_case_id,
    }
    run_request = brief.steered_request(
        segment_id=segment_id, use_case_id=use_case_id, text=text, variants=variants
    )
    return run_request, labels


def _record_brief(
    deps: Deps, body: dict[str, Any], text: str, metadata: dict[str, Any]
) -> str | None:
    """Remember the user's choices and record the brief; None when it edits an earlier brief
    of theirs, which is resent in place after the ack."""
    team_id, user_id = body["user"]["team_id"], body["user"]["id"]
    run_request, labels = _brief_request(body["view"], text)
    deps.records.preferences.put(
        user_key(team_id, user_id),
        Preferences(
            segment_id=run_request.segment_id,
            use_case_id=run_request.use_case_id,
            variants=run_request.variant_count,
        ),
    )
    if metadata.get("held"):
        deps.records.held.delete(metadata["held"])
    earlier = deps.records.requests.get(metadata["request"]) if metadata.get("request") else None
    if earlier is not None and earlier.user_id == user_id:
        return None
    req = brief.record(
        deps,
        team_id=team_id,
        user_id=user_id,
        channel_id=metadata.get("channel") or user_id,
        run_request=run_request,
        labels=labels,
    )
    return req.id


def _send_brief(
    deps: Deps, body: dict[str, Any], text: str, metadata: dict[str, Any], recorded: str | None
) -> None:
    if recorded is not None:
        brief.launch(deps, recorded, response_url=metadata.get("response_url"))
        return
    run_request, labels = _brief_request(body["view"], text)
    requests.resend_edited(
        deps,
        metadata["request"],
        acting_user=body["user"]["id"],
        run_request=run_request,
        labels=labels,
    )
