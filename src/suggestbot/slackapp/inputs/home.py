"""The App Home tab: published afresh each time its person opens it; [Refresh] and
[Disconnect] on it. A disconnect takes effect before its ack, as ``/suggest disconnect``
does: work after acks runs side by side, and a status asked right after the press must not
find the link."""

from __future__ import annotations

from typing import Any

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.home import tab as home
from suggestbot.flows.linking import accounts as linking
from suggestbot.slackapp.edge.declaration import Action, Event, Happening, Input, Press
from suggestbot.ui.blocks import ids


def in_home_tab(event: dict[str, Any], bot_user_id: str | None, team_id: str | None) -> bool:
    return event.get("tab", "home") == "home" and bool(event.get("user"))


def _opened(deps: Deps, given: Happening) -> None:
    home.publish(deps, team_id=given.team_id, user_id=str(given.event["user"]))


def _refresh(deps: Deps, press: Press) -> None:
    home.publish(deps, team_id=press.team_id, user_id=press.user_id)


def _unlink(deps: Deps, press: Press) -> None:
    linking.unlink(deps, team_id=press.team_id, user_id=press.user_id)


def _disconnect(deps: Deps, press: Press) -> None:
    """Unlink (again: a no-op when done before the ack) and show the Home without the link."""
    _unlink(deps, press)
    home.publish(deps, team_id=press.team_id, user_id=press.user_id)


INPUTS: list[Input] = [
    Input("home_opened", Event("app_home_opened", where=in_home_tab), run=_opened, read_only=True),
    Input("home_refresh", Action(ids.ACTION_HOME_REFRESH), run=_refresh, read_only=True),
    Input(
        "home_disconnect",
        Action(ids.ACTION_HOME_DISCONNECT),
        run=_disconnect,
        before_ack=lambda deps, press: _unlink(deps, press),
    ),
]
