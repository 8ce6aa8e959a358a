"""The app's Messages tab as a composer: opening the tab sets the suggested prompts; a person's
top-level message there is a brief; picking another segment, use case or number of variants
under it sends the brief again with it and remembers it.

Its events come before the thread replies and the Home tab in the table: Bolt runs the first
listener that takes an event, and these take only the Messages tab's own events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from suggestbot.flows.common import access
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.composer import tab as composer
from suggestbot.slackapp.edge.answer import person
from suggestbot.slackapp.edge.declaration import Action, Event, Happening, Input, Press
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.composer import request_of_choices_block
from suggestbot.ui.payloads import picked_option
from suggestbot.ui.replies import composer_message


def in_messages_tab(event: dict[str, Any], bot_user_id: str | None, team_id: str | None) -> bool:
    return event.get("tab") == "messages" and bool(event.get("user") and event.get("channel"))


def is_brief(event: dict[str, Any], bot_user_id: str | None, team_id: str | None) -> bool:
    return composer_message(event, bot_user_id=bot_user_id, team_id=team_id) is not None


def _offer_prompts(deps: Deps, given: Happening) -> None:
    composer.offer_prompts(
        deps, user_id=str(given.event["user"]), channel_id=str(given.event["channel"])
    )


def _brief_written(deps: Deps, given: Happening) -> None:
    brief = composer_message(
        given.event, bot_user_id=given.bot_user_id, team_id=given.body.get("team_id")
    )
    if brief is not None:
        composer.on_message(deps, brief)


def _pick(which: str) -> Callable[[Deps, Press], None]:
    def pick(deps: Deps, press: Press) -> None:
        block_id, value = picked_option(press.body)
        request_id = request_of_choices_block(block_id)
        if request_id is None or not value:
            return
        mine = access.own_request(deps, person(press), request_id) is not None
        done = mine and composer.pick(
            deps,
            team_id=press.team_id,
            user_id=press.user_id,
            request_id=request_id,
            which=which,
            value=value,
        )
        if not done:
            composer.tell_not_yours(
                deps, user_id=press.user_id, channel_id=press.channel_id or press.user_id
            )

    return pick


INPUTS: list[Input] = [
    Input(
        "messages_tab_opened",
        Event("app_home_opened", where=in_messages_tab),
        run=_offer_prompts,
        read_only=True,
    ),
    Input("composer_brief", Event("message", where=is_brief), run=_brief_written),
    Input("composer_segment", Action(ids.ACTION_COMPOSER_SEGMENT), run=_pick("segment")),
    Input("composer_use_case", Action(ids.ACTION_COMPOSER_USE_CASE), run=_pick("use_case")),
    Input("composer_variants", Action(ids.ACTION_COMPOSER_VARIANTS), run=_pick("variants")),
]
