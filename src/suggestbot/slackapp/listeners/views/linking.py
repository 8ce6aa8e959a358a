"""The connect modal's submission: the token is checked before the ack when the service answers
in time (a refused token is shown next to the field), else after it (told in a message)."""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any

from slack_bolt import Ack, App

from suggestbot.flows.common import access, telling
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.home import tab as home
from suggestbot.flows.linking import accounts as linking
from suggestbot.flows.linking.accounts import LinkResult
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.ack import in_background
from suggestbot.ui import field_errors
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.notices import build_connect_outcome
from suggestbot.ui.payloads import load_metadata, view_values

# How long the connect modal's submission waits for the token check before it acks.
CONNECT_CHECK_BUDGET_S = 2.0
# What keeps the modal open with an error next to the token (the rest is told after the ack).
_FIELD_ERRORS = (LinkResult.REJECTED, LinkResult.UNREACHABLE, LinkResult.EMPTY)


def register(app: App, deps: Deps) -> None:
    # Recorded before the ack (middleware) and carried out after a crash.
    interactions.on_view(ids.VIEW_CONNECT, _replay_connect)

    @app.view(ids.VIEW_CONNECT)
    def connect_submitted(ack: Ack, body: dict[str, Any], view: dict[str, Any]) -> None:
        user_id = body["user"]["id"]
        token = str(view_values(view).get(ids.INPUT_TOKEN) or "")
        if not token.strip():
            lang = deps.lang_of(user_id)  # a Slack call: only to word the error
            errors = field_errors.connect_token(problem=LinkResult.EMPTY.value, lang=lang)
            ack(response_action="errors", errors=errors)
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
        if result is not None and result in _FIELD_ERRORS:
            lang = deps.lang_of(user_id)  # a Slack call: only to word the error
            errors = field_errors.connect_token(problem=result.value, lang=lang)
            ack(response_action="errors", errors=errors)
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


def _replay_connect(deps: Deps, body: dict[str, Any]) -> None:
    token = str(view_values(body["view"]).get(ids.INPUT_TOKEN) or "")
    if token.strip():
        team_id, user_id = body["user"]["team_id"], body["user"]["id"]
        checking = linking.verify_soon(deps, team_id=team_id, user_id=user_id, token=token)
        _finish_connect(deps, body, checking)


def _finish_connect(deps: Deps, body: dict[str, Any], checking: Future[LinkResult]) -> None:
    user_id = body["user"]["id"]
    lang = deps.lang_of(user_id)
    metadata = load_metadata(body["view"].get("private_metadata"))
    result = checking.result()
    person = access.Person(body["user"]["team_id"], user_id)
    held = access.held(deps, person, str(metadata.get("held") or ""))
    message = build_connect_outcome(
        lang=lang,
        problem=None if result is LinkResult.LINKED else result.value,
        held_id=held.id if held is not None else None,
        held_reply=bool(held and held.thread_ts),
    )
    telling.tell(
        deps,
        user_id=user_id,
        channel_id=metadata.get("channel") or (held.channel_id if held else user_id),
        message=message,
        response_url=metadata.get("response_url"),
    )
    if result is LinkResult.LINKED:
        home.refresh(deps, team_id=body["user"]["team_id"], user_id=user_id)
