"""Buttons on the App Home tab: [Disconnect] and [Refresh]."""

from __future__ import annotations

from typing import Any

from slack_bolt import App

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.home import tab as home
from suggestbot.flows.linking import accounts as linking
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.ack import on_button
from suggestbot.ui.blocks import ids
from suggestbot.ui.payloads import acting_user


def register(app: App, deps: Deps) -> None:
    # Unlinked before the ack, as ``/suggest disconnect`` is: work after acks runs side by side,
    # and a status asked right after the press must not find the link.
    on_button(
        app, deps=deps, action=ids.ACTION_HOME_DISCONNECT, work=_disconnect, before_ack=_unlink
    )
    on_button(app, deps=deps, action=ids.ACTION_HOME_REFRESH, work=_refresh)
    # Starts work: recorded before the ack, carried out after a crash.
    interactions.on_action(ids.ACTION_HOME_DISCONNECT, _disconnect)


def _unlink(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = acting_user(body)
    linking.unlink(deps, team_id=team_id, user_id=user_id)


def _disconnect(deps: Deps, body: dict[str, Any]) -> None:
    """Unlink (again: a no-op when done before the ack) and show the Home without the link."""
    _unlink(deps, body)
    team_id, user_id = acting_user(body)
    home.publish(deps, team_id=team_id, user_id=user_id)


def _refresh(deps: Deps, body: dict[str, Any]) -> None:
    team_id, user_id = acting_user(body)
    home.publish(deps, team_id=team_id, user_id=user_id)
