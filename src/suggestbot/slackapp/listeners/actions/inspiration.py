"""Buttons of ready-made content and digests: pick, share, refine, generate; pause, resume,
preview, remove."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from slack_bolt import Ack, App

from suggestbot.flows import digests, inspiration
from suggestbot.flows.deps import Deps
from suggestbot.flows.inspiration import Asker
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.background import in_background
from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.inspiration import read_pick_value

PICK = re.compile(rf"^{re.escape(ids.ACTION_INSPIRE_PICK)}\.\d+$")


def _asker(body: dict[str, Any]) -> Asker:
    user = body["user"]
    channel = (body.get("channel") or {}).get("id") or (body.get("container") or {}).get(
        "channel_id"
    )
    team = user.get("team_id") or (body.get("team") or {}).get("id") or ""
    return Asker(
        team_id=team,
        user_id=user["id"],
        channel_id=channel or user["id"],
        response_url=body.get("response_url"),
        trigger_id=body.get("trigger_id"),
    )


def _value(body: dict[str, Any]) -> str:
    return str(body["actions"][0].get("value") or "")


def register(app: App, deps: Deps) -> None:
    def on(
        action_id: str | re.Pattern[str],
        work: Callable[[Deps, Asker, str], None],
        *,
        replay: bool = False,
    ) -> None:
        if replay:  # starts work: recorded before the ack, carried out after a crash
            interactions.on_action(
                action_id, lambda deps, body: work(deps, _asker(body), _value(body))
            )

        @app.action(action_id)
        def listener(ack: Ack, body: dict[str, Any]) -> None:
            ack()
            asker = _asker(body)
            in_background(
                deps,
                work,
                deps,
                asker,
                _value(body),
                user_id=asker.user_id,
                channel_id=asker.channel_id,
                response_url=asker.response_url,
            )

    on(PICK, _pick)
    on(ids.ACTION_INSPIRE_SHARE, _share, replay=True)
    # Replayed without its trigger: shared, and pointed to the thread instead of the modal.
    on(ids.ACTION_INSPIRE_REFINE, _refine, replay=True)
    on(ids.ACTION_INSPIRE_GENERATE, _generate, replay=True)
    on(ids.ACTION_DIGEST_PAUSE, _pause, replay=True)
    on(ids.ACTION_DIGEST_RESUME, _resume, replay=True)
    on(ids.ACTION_DIGEST_PREVIEW, digests.preview)
    on(ids.ACTION_DIGEST_REMOVE, digests.remove, replay=True)


def _pick(deps: Deps, asker: Asker, value: str) -> None:
    inspiration.picked(deps, asker, read_pick_value(value))


def _share(deps: Deps, asker: Asker, value: str) -> None:
    offer_id, _, suggestion_id = value.partition(":")
    inspiration.share_pressed(deps, asker, offer_id=offer_id, suggestion_id=suggestion_id)


def _refine(deps: Deps, asker: Asker, value: str) -> None:
    offer_id, _, suggestion_id = value.partition(":")
    inspiration.refine_pressed(deps, asker, offer_id=offer_id, suggestion_id=suggestion_id)


def _generate(deps: Deps, asker: Asker, value: str) -> None:
    pair = inspiration.pair_of(deps, read_pick_value(value))
    if pair is None:
        inspiration.say(deps, asker, "inspire.offer_gone")
        return
    inspiration.generate_now(deps, asker, pair)


def _pause(deps: Deps, asker: Asker, digest_id: str) -> None:
    digests.set_paused(deps, asker, digest_id, paused=True)


def _resume(deps: Deps, asker: Asker, digest_id: str) -> None:
    digests.set_paused(deps, asker, digest_id, paused=False)
