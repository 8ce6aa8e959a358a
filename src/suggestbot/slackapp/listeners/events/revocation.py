"""``app_uninstalled`` and ``tokens_revoked`` for a single-workspace install (``SLACK_BOT_TOKEN``).

Both events are subscribed for every install (manifest.yml). Unanswered, Slack counts each as a
failed delivery and retries it; unhandled, the app would go on polling runs and sending digests
with a token that no longer works. A multi-workspace (OAuth) install registers its own
listeners instead (:mod:`suggestbot.slackapp.listeners.events.uninstall`), which also delete
the stored installation.

- ``app_uninstalled``: the workspace's work stops (runs in flight failed, digests paused,
  watches dropped) and its people's links to the service are removed, as in OAuth mode.
- ``tokens_revoked`` naming the bot: the same stop, links kept — the operator sets a new
  ``SLACK_BOT_TOKEN`` and restarts.
- ``tokens_revoked`` naming only people's tokens: this app keeps no Slack user tokens, so no work
  depends on them; the operator is told so.

Each is answered 200 and leaves one WARNING line for the operator.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, App, BoltContext

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.workspace import revocation

log = logging.getLogger(__name__)

UNINSTALLED = "app_uninstalled"
# What Slack answers every call made with a revoked token (shown as a paused digest's reason).
BOT_TOKEN_REVOKED = "token_revoked"


def register(app: App, deps: Deps) -> None:
    @app.event("app_uninstalled")
    def uninstalled(ack: Ack, body: dict[str, Any], context: BoltContext) -> None:
        ack()
        team_id = str(context.team_id or body.get("team_id") or "")
        users = revocation.forget_people(deps, team_id=team_id)
        stopped = revocation.stop_work(deps, team_id=team_id, reason=UNINSTALLED)
        log.warning(
            "the app was uninstalled from workspace %s: SLACK_BOT_TOKEN no longer works; "
            "%d request(s) stopped, %d digest(s) paused, %d watch(es) dropped, "
            "%d linked user(s) removed. Install the app again and set its new token to resume.",
            team_id,
            stopped.requests,
            stopped.digests,
            stopped.watches,
            users,
        )

    @app.event("tokens_revoked")
    def revoked(
        ack: Ack, body: dict[str, Any], event: dict[str, Any], context: BoltContext
    ) -> None:
        ack()
        team_id = str(context.team_id or body.get("team_id") or "")
        given = event.get("tokens")
        tokens: dict[str, Any] = given if isinstance(given, dict) else {}
        bots = list(tokens.get("bot") or [])
        people = list(tokens.get("oauth") or [])
        if bots:
            stopped = revocation.stop_work(deps, team_id=team_id, reason=BOT_TOKEN_REVOKED)
            log.warning(
                "the bot token of workspace %s was revoked: SLACK_BOT_TOKEN no longer works; "
                "%d request(s) stopped, %d digest(s) paused, %d watch(es) dropped. "
                "Set a new bot token and restart to resume.",
                team_id,
                stopped.requests,
                stopped.digests,
                stopped.watches,
            )
        elif people:
            log.warning(
                "Slack revoked the user token(s) of %d person(s) in workspace %s; this app "
                "keeps no Slack user tokens, so nothing depends on them and nothing was stopped",
                len(people),
                team_id,
            )
