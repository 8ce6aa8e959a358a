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

from suggestbot.installations.service import ContentClients
from suggestbot.slackapp.flows.deps import Deps
from suggestbot.slackapp.flows.inspiration import watches
from suggestbot.slackapp.flows.records import ACTIVE_STATES, Failure, user_key

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
    records = deps.records
    credentials = contents.delete_credentials(team_id)
    users = 0
    for user in list(records.users.values()):
        if user.team_id == team_id and records.users.delete(user_key(team_id, user.user_id)):
            users += 1
    for held in list(records.held.values()):
        if held.team_id == team_id:
            records.held.delete(held.id)
    stopped = 0
    failed = {"state": "failed", "failure": Failure(code=UNINSTALLED)}
    for request in list(records.requests.values()):
        if request.team_id != team_id or request.state not in ACTIVE_STATES:
            continue
        deps.timers.cancel(request.id)
        records.requests.update(
            request.id,
            lambda r: r.model_copy(update=failed),
        )
        stopped += 1
    paused = 0
    for digest in list(records.digests.values()):
        if digest.team_id == team_id and not digest.paused:
            records.digests.update(
                digest.id,
                lambda d: d.model_copy(update={"paused": True, "paused_reason": UNINSTALLED}),
            )
            paused += 1
    table = watches(deps)
    dropped = 0
    for watch in list(table.values()):
        if watch.team_id == team_id and table.delete(watch.id):
            dropped += 1
    forgotten = Forgotten(credentials, users, stopped, paused, dropped)
    log.info(
        "app uninstalled from workspace %s: tokens deleted, service credentials %s, "
        "%d linked user(s) removed, %d request(s) stopped, %d digest(s) paused, "
        "%d watch(es) dropped",
        team_id,
        "deleted" if credentials else "none",
        users,
        stopped,
        paused,
        dropped,
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
