"""People's languages, from their Slack locale, kept for an hour.

Asking Slack (``users.info``) for every message would cost a call per message and cannot be done
before an ack; a person's locale changes rarely, so an hour-old answer is good enough.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from slack_sdk import WebClient

from suggestbot.ui.messages import language_of

log = logging.getLogger(__name__)

KEEP_S = 3600.0


class LanguageCache:
    """User id → (language, when it was read), for one process."""

    def __init__(self) -> None:
        self._by_user: dict[str, tuple[str, float]] = {}
        self._lock = threading.Lock()

    def known(self, user_id: str, *, now: float) -> str | None:
        """The user's language if read within the hour, else None (no call to Slack)."""
        with self._lock:
            cached = self._by_user.get(user_id)
        if cached and now - cached[1] < KEEP_S:
            return cached[0]
        return None

    def of(self, user_id: str, *, slack: WebClient, clock: Callable[[], float]) -> str:
        """The user's language, asked of Slack when not known; English when Slack fails.

        Args:
            user_id: the Slack user.
            slack: the client ``users.info`` is called with.
            clock: the time the answer is kept from.
        """
        known = self.known(user_id, now=clock())
        if known is not None:
            return known
        lang = "en"
        try:
            info: Any = slack.users_info(user=user_id, include_locale=True)
            lang = language_of(info["user"].get("locale"))
        except Exception:  # a failed look-up only costs the user their language
            log.warning("users.info failed for %s; using English", user_id)
        with self._lock:
            self._by_user[user_id] = (lang, clock())
        return lang

    def clear(self) -> None:
        """Forget every kept language (they are read again on next use)."""
        with self._lock:
            self._by_user.clear()
