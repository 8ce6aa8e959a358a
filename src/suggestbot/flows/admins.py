"""Who administers the workspace, asked of Slack each time it matters."""

from __future__ import annotations

import logging
from typing import Any

from suggestbot.flows.deps import Deps

log = logging.getLogger(__name__)


def is_admin(deps: Deps, user_id: str) -> bool:
    """Whether Slack says ``user_id`` administers (or owns) the workspace."""
    try:
        info: Any = deps.slack.users_info(user=user_id)
    except Exception:  # unknown means no
        log.warning("users.info failed for %s; treating them as no admin", user_id)
        return False
    user = info.get("user") or {}
    return bool(user.get("is_admin") or user.get("is_owner") or user.get("is_primary_owner"))
