"""The choices on a brief written in the Messages tab: picking another segment, use case or
number of variants sends the brief again with it and remembers it."""

from __future__ import annotations

from typing import Any

from slack_bolt import App

from suggestbot.flows.common import access
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.composer import tab as composer
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.ack import on_button
from suggestbot.slackapp.listeners.askers import person_pressing
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.composer import request_of_choices_block
from suggestbot.ui.payloads import acting_user, button_place, picked_option

_WHICH = {
    ids.ACTION_COMPOSER_SEGMENT: "segment",
    ids.ACTION_COMPOSER_USE_CASE: "use_case",
    ids.ACTION_COMPOSER_VARIANTS: "variants",
}


def register(app: App, deps: Deps) -> None:
    for action_id, which in _WHICH.items():

        def work(deps: Deps, body: dict[str, Any], which: str = which) -> None:
            _pick(deps, body, which)

        on_button(app, deps=deps, action=action_id, work=work)
        # A pick sends a brief: recorded before the ack, carried out again after a crash.
        interactions.on_action(action_id, work)


def _pick(deps: Deps, body: dict[str, Any], which: str) -> None:
    block_id, value = picked_option(body)
    request_id = request_of_choices_block(block_id)
    team_id, user_id = acting_user(body)
    if request_id is None or not value:
        return
    mine = access.own_request(deps, person_pressing(body), request_id) is not None
    done = mine and composer.pick(
        deps, team_id=team_id, user_id=user_id, request_id=request_id, which=which, value=value
    )
    if not done:
        composer.tell_not_yours(
            deps, user_id=user_id, channel_id=button_place(body).channel or user_id
        )
