"""After ``app_uninstalled`` and ``tokens_revoked``: forget what the workspace gave the app.

Slack sends both events when a workspace removes the app, in no promised order, and
``tokens_revoked`` alone when a token is revoked. Handling them twice, or in either order,
leaves the same result.

Uninstalling removes every secret the workspace's install brought: its Slack tokens, its
service credentials, its people's linked personal tokens. Work in flight for it stops (its
timers are cancelled and it is marked failed, since nothing can be posted there any more),
its digests pause, and its pending "generate now" watches are dropped. Nothing is posted to
the workspace: the app's tokens there no longer work.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from slack_sdk.oauth.installation_store import InstallationStore

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.workspace import revocation
from suggestbot.installations.service import ContentClients

log = logging.getLogger(__name__)

UNINSTALLED = "app_uninstalled"


@dataclass(frozen=True)
class Forgotten:
    """What :func:`forget_workspace` removed or stopped (for the log and the tests)."""

    credentials: bool
    users: int
    requests: int
    digests: int
    watches: int


def forget_workspace(
    deps: Deps,
    *,
    installations: InstallationStore,
    contents: ContentClients,
    enterprise_id: str | None,
    team_id: str | None,
) -> Forgotten:
    """The app was uninstalled from the workspace: remove its secrets, stop its work."""
    installations.delete_all(enterprise_id=enterprise_id, team_id=team_id)
    if not team_id:
        return Forgotten(False, 0, 0, 0, 0)
    credentials = contents.delete_credentials(team_id)
    users = revocation.forget_people(deps, team_id=team_id)
    stopped = revocation.stop_work(deps, team_id=team_id, reason=UNINSTALLED)
    forgotten = Forgotten(credentials, users, stopped.requests, stopped.digests, stopped.watches)
    log.info(
        "app uninstalled from workspace %s: tokens deleted, service credentials %s, "
        "%d linked user(s) removed, %d request(s) stopped, %d digest(s) paused, "
        "%d watch(es) dropped",
        team_id,
        "deleted" if credentials else "none",
        users,
        stopped.requests,
        stopped.digests,
        stopped.watches,
    )
    return forgotten


def tokens_revoked(
    installations: InstallationStore,
    *,
    enterprise_id: str | None,
    team_id: str | None,
    user_ids: list[str],
    bot_user_ids: list[str],
) -> None:
    """Delete the revoked tokens: the bot's (the app can no longer act in the workspace) and
    any person's user tokens."""
    for user_id in user_ids:
        installations.delete_installation(
            enterprise_id=enterprise_id, team_id=team_id, user_id=user_id
        )
    if bot_user_ids:
        installations.delete_bot(enterprise_id=enterprise_id, team_id=team_id)
        log.info("the bot token of workspace %s was revoked; deleted it", team_id)
