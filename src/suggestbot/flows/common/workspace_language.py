"""The language of what a workspace's channels see from the app.

Who reads decides the language. What one person sees (an ephemeral message, a modal, a direct
message, their Home) follows that person's Slack locale (:meth:`Deps.lang_of`). What a channel
sees — digests, shared results, a brief's root and status line, its variants and gallery —
follows the workspace's language, not the author's: an admin picks it on Home; until one does,
it is the Slack locale of whoever installed the app (read once and kept), or English for an
install with no record of its installer. The service's content is not translated: it stays in
the tenant's content locale.
"""

from __future__ import annotations

import logging
from typing import Any

from suggestbot.flows.common import telling
from suggestbot.flows.common.access import is_admin
from suggestbot.flows.common.deps import Deps
from suggestbot.installations.scope import current_team
from suggestbot.installations.store import LATEST, workspace_key
from suggestbot.store.records import WorkspaceLanguage
from suggestbot.ui.blocks import admin as admin_blocks
from suggestbot.ui.blocks.results import Message
from suggestbot.ui.messages import ENABLED, PSEUDO, SOURCE

log = logging.getLogger(__name__)


def _key(team_id: str | None) -> str:
    return team_id or "-"  # "-": the one workspace of a single-workspace install


def is_dm(channel_id: str) -> bool:
    """A direct message with the app (only its one person reads it)."""
    return channel_id.startswith("D")


def _installer(deps: Deps, team_id: str | None) -> str | None:
    if not team_id:
        return None
    key = f"{workspace_key(enterprise_id=None, team_id=team_id)}:{LATEST}"
    installation = deps.records.slack_installations.get(key)
    return installation.user_id if installation is not None else None


def of(deps: Deps, team_id: str | None = None) -> str:
    """The language channels of the workspace (``team_id``, else the current one) see."""
    team_id = team_id or current_team()
    stored = deps.records.workspace_languages.get(_key(team_id))
    if stored is not None and (stored.lang in ENABLED or stored.lang == PSEUDO):
        return stored.lang
    if stored is not None:  # chosen once, no longer shipped (its catalogue was withdrawn)
        return SOURCE
    installer = _installer(deps, team_id)
    if installer is None:
        return SOURCE
    lang = deps.lang_of(installer)
    # Kept: the default must not follow the installer's later changes of their own locale.
    kept = deps.records.workspace_languages.upsert(
        _key(team_id), lambda now: now or WorkspaceLanguage(lang=lang, set_at=deps.clock())
    )
    return kept.lang if kept is not None and kept.lang in ENABLED else lang


def home_section(deps: Deps, *, team_id: str, user_id: str, lang: str) -> list[dict[str, Any]]:
    """The language picker of an admin's Home; nothing for everyone else."""
    if not is_admin(deps, user_id):
        return []
    return admin_blocks.build_language_section(lang=lang, current=of(deps, team_id))


def choose(deps: Deps, *, team_id: str, user_id: str, chosen: str) -> bool:
    """An admin picked ``chosen`` on Home: keep it and say so; anyone else is told no.

    Returns whether the language was changed.
    """
    lang = deps.lang_of(user_id)
    if chosen not in ENABLED:
        log.warning("workspace %s: %r is not an enabled language; ignored", team_id, chosen)
        return False
    if not is_admin(deps, user_id):
        _tell(deps, user_id, admin_blocks.language_notice(lang=lang, chosen=None))
        return False
    record = WorkspaceLanguage(lang=chosen, set_by=user_id, set_at=deps.clock())
    deps.records.workspace_languages.put(_key(team_id), record)
    _tell(deps, user_id, admin_blocks.language_notice(lang=lang, chosen=chosen))
    return True


def _tell(deps: Deps, user_id: str, text: str) -> None:
    telling.tell_in_dm(deps, user_id=user_id, message=Message(text, []))
