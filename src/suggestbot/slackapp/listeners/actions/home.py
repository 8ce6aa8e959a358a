"""Buttons on the App Home tab: [Disconnect] and [Refresh]."""

from __future__ import annotations

import contextlib
from typing import Any

from slack_bolt import Ack, App

from suggestbot.flows import home, linking
from suggestbot.flows.deps import Deps
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.ack import in_background, on_button
from suggestbot.store import StoreUnavailable
from suggestbot.ui.blocks import ids
from suggestbot.ui.payloads import acting_user, button_place


def register(app: App, deps: Deps) -> None:
    on_button(app, deps=deps, action=ids.ACTION_HOME_REFRESH, work=_refresh)
    # Starts work: recorded before the ack, carried out after a crash.
    interactions.on_action(ids.ACTION_HOME_DISCONNECT, _disconnect)

    @app.action(ids.ACTION_HOME_DISCONNECT)
    def disconnect_pressed(ack: Ack, body: dict[str, Any]) -> None:
        # Takes effect before the ack, as ``/suggest disconnect`` does: work after acks runs
        # side by side, and a status asked right after must not find the link.
        team_id, user_id = acting_user(body)
        # If the store went away meanwhile, the work after the ack unlinks.
        with contextlib.suppress(StoreUnavailable):
            linking.unlink(deps, team_id=team_id, user_id=user_id)
        ack()
        in_background(
            deps,
            _disconnect,
            deps,
            body,
            user_id=body["user"]["id"],
            channel_id=button_place(body).channel,
            response_url=body.get("response_url"),
        )


def _disconnect(deps: Deps, body: dict[str, Any]) -> None:
    """Unlink (again: a no-op when done before the ack) and show the Home without the link."""
    team_id, user_id = acting_user(body)
    linking.unlink(deps, team_id=team_id, user_id=user_id)
    home.publish(deps, team_id=team_id, user_id=user_id)


def _refresh(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = acting_user(body)
    home.publish(deps, team_id=team_id, user_id=user_id)
