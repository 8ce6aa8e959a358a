"""A workspace's own settings and lifecycle: the language picker on an admin's App Home, the
admins' service credentials (an install in many workspaces only), and ``app_uninstalled`` and
``tokens_revoked``, which depend on how the app is installed.

- One workspace (``SLACK_BOT_TOKEN``): an uninstall stops the workspace's work (runs in flight
  failed, digests paused, watches dropped) and removes its people's links; a revoked bot token
  stops the same work, links kept (the operator sets a new token and restarts); revoked user
  tokens change nothing (this app keeps none). Each leaves one WARNING line for the operator.
- Many workspaces (OAuth): the stored installation goes too (``flows.workspace.uninstall``).
"""

from __future__ import annotations

import logging
from typing import Any

from suggestbot.flows.common import workspace_language
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.home import tab as home
from suggestbot.flows.workspace import admin as workspace_admin
from suggestbot.flows.workspace import revocation, uninstall
from suggestbot.installations.service import ContentClients
from suggestbot.slackapp.edge.declaration import (
    Action,
    Event,
    Happening,
    Input,
    Press,
    Refusal,
    Submission,
    View,
)
from suggestbot.ui.blocks import ids
from suggestbot.ui.payloads import picked_option

log = logging.getLogger(__name__)

UNINSTALLED = "app_uninstalled"
# What Slack answers every call made with a revoked token (shown as a paused digest's reason).
BOT_TOKEN_REVOKED = "token_revoked"


def _choose_language(deps: Deps, press: Press) -> None:
    _, chosen = picked_option(press.body)
    workspace_language.choose(deps, team_id=press.team_id, user_id=press.user_id, chosen=chosen)
    home.publish(deps, team_id=press.team_id, user_id=press.user_id)


INPUTS: list[Input] = [
    Input("workspace_language", Action(ids.ACTION_WORKSPACE_LANGUAGE), run=_choose_language),
]


# --- one workspace ----------------------------------------------------------------------------


def _uninstalled(deps: Deps, given: Happening) -> None:
    users = revocation.forget_people(deps, team_id=given.team_id)
    stopped = revocation.stop_work(deps, team_id=given.team_id, reason=UNINSTALLED)
    log.warning(
        "the app was uninstalled from workspace %s: SLACK_BOT_TOKEN no longer works; "
        "%d request(s) stopped, %d digest(s) paused, %d watch(es) dropped, "
        "%d linked user(s) removed. Install the app again and set its new token to resume.",
        given.team_id,
        stopped.requests,
        stopped.digests,
        stopped.watches,
        users,
    )


def _revoked_tokens(given: Happening) -> tuple[list[Any], list[Any]]:
    tokens: Any = given.event.get("tokens")
    tokens = tokens if isinstance(tokens, dict) else {}
    return list(tokens.get("bot") or []), list(tokens.get("oauth") or [])


def _revoked(deps: Deps, given: Happening) -> None:
    bots, people = _revoked_tokens(given)
    if bots:
        stopped = revocation.stop_work(deps, team_id=given.team_id, reason=BOT_TOKEN_REVOKED)
        log.warning(
            "the bot token of workspace %s was revoked: SLACK_BOT_TOKEN no longer works; "
            "%d request(s) stopped, %d digest(s) paused, %d watch(es) dropped. "
            "Set a new bot token and restart to resume.",
            given.team_id,
            stopped.requests,
            stopped.digests,
            stopped.watches,
        )
    elif people:
        log.warning(
            "Slack revoked the user token(s) of %d person(s) in workspace %s; this app "
            "keeps no Slack user tokens, so nothing depends on them and nothing was stopped",
            len(people),
            given.team_id,
        )


def for_one_workspace() -> list[Input]:
    """The inputs of a single-workspace install (``SLACK_BOT_TOKEN``)."""
    return [
        Input("uninstalled", Event(UNINSTALLED), run=_uninstalled),
        Input("tokens_revoked", Event("tokens_revoked"), run=_revoked),
    ]


# --- many workspaces --------------------------------------------------------------------------


def for_many_workspaces(*, installations: Any, contents: ContentClients) -> list[Input]:
    """The inputs of an install in many workspaces (``installations`` is the app's
    ``InstallationStore``): uninstalls and revoked tokens, and the admins' service
    credentials, in a modal recorded before its ack (sealed: it holds a client secret)."""

    def open_credentials(deps: Deps, press: Press) -> None:
        assert press.trigger_id is not None
        workspace_admin.open_modal(deps, trigger_id=press.trigger_id, user_id=press.user_id)

    def check_credentials(given: Submission) -> Refusal | None:
        values = given.values
        if not workspace_admin.form_errors(values, "en"):
            return None
        return Refusal(errors=lambda lang: workspace_admin.form_errors(values, lang))

    def save_credentials(deps: Deps, given: Submission) -> None:
        workspace_admin.save(
            deps, contents, team_id=given.team_id, user_id=given.user_id, values=given.values
        )

    def uninstalled(deps: Deps, given: Happening) -> None:
        uninstall.forget_workspace(
            deps,
            installations=installations,
            contents=contents,
            enterprise_id=given.enterprise_id,
            team_id=given.team_id,
        )

    def revoked(deps: Deps, given: Happening) -> None:
        bots, people = _revoked_tokens(given)
        uninstall.tokens_revoked(
            installations,
            enterprise_id=given.enterprise_id,
            team_id=given.team_id,
            user_ids=[str(u) for u in people],
            bot_user_ids=[str(u) for u in bots],
        )

    return [
        Input(
            "service_credentials",
            Action(ids.ACTION_SERVICE_CREDENTIALS),
            run=open_credentials,
            opens_modal=True,
        ),
        Input(
            "credentials_submitted",
            View(ids.VIEW_SERVICE_CREDENTIALS),
            run=save_credentials,
            check=check_credentials,
        ),
        Input("uninstalled", Event(UNINSTALLED), run=uninstalled),
        Input("tokens_revoked", Event("tokens_revoked"), run=revoked),
    ]
