"""``app_uninstalled`` and ``tokens_revoked`` of a multi-workspace (OAuth) install: the stored
installation goes, with the workspace's work and links (a single-workspace install has
``revocation`` instead)."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App, BoltContext

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.workspace import uninstall
from suggestbot.installations.service import ContentClients


def register(app: App, deps: Deps, *, installations: Any, contents: ContentClients) -> None:
    """Register both (``installations`` is the app's ``InstallationStore``)."""

    @app.event("app_uninstalled")
    def uninstalled(ack: Ack, context: BoltContext) -> None:
        ack()
        uninstall.forget_workspace(
            deps,
            installations=installations,
            contents=contents,
            enterprise_id=context.enterprise_id,
            team_id=context.team_id,
        )

    @app.event("tokens_revoked")
    def revoked(ack: Ack, event: dict[str, Any], context: BoltContext) -> None:
        ack()
        tokens = event.get("tokens") or {}
        uninstall.tokens_revoked(
            installations,
            enterprise_id=context.enterprise_id,
            team_id=context.team_id,
            user_ids=[str(u) for u in tokens.get("oauth") or []],
            bot_user_ids=[str(u) for u in tokens.get("bot") or []],
        )
