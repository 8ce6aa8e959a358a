"""Each workspace's bot token, kept in memory for a few seconds.

Every Slack call the flows make asks for the workspace's bot token (twice, in fact: slack_sdk's
``WebClient`` reads its ``token`` once to build the request and once to send it). Read from the
installation store each time, that is one or two database reads per Slack call; kept here, a
burst of calls in one workspace costs one read per :data:`BOT_TOKEN_TTL_S`.

What is kept is never known to be dead in this process: the installation store tells
:meth:`BotTokenCache.forget` of each save and delete once it is written, and a lookup that
overlapped such a change keeps nothing of what it read (it may have read the old state).
A change made by another replica is seen here when the entry expires.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

# How long a token read from the store is used without reading it again. It bounds how long
# this replica goes on calling Slack with a token another replica has since deleted (it handled
# the workspace's tokens_revoked or app_uninstalled) or replaced (a re-install): those calls fail
# at Slack for at most this long. A few seconds already turns a burst of calls (a brief's
# messages, a digest) into one read, and is too short for anyone to notice a stale token.
BOT_TOKEN_TTL_S = 5.0


class Lookup(NamedTuple):
    """When a read of the store began, and how many changes had been told by then."""

    changes: int
    at: float


@dataclass(frozen=True)
class _Entry:
    token: str = field(repr=False)
    kept_at: float


class BotTokenCache:
    """Bot tokens by team id, each for :data:`BOT_TOKEN_TTL_S` at most; safe across threads.

    Args:
        clock: epoch seconds (an entry kept "in the future" after the clock went back is
            expired, not kept for longer).
        ttl_s: how long an entry is used.
    """

    def __init__(self, *, clock: Callable[[], float], ttl_s: float = BOT_TOKEN_TTL_S) -> None:
        self._clock = clock
        self.ttl_s = ttl_s
        self._lock = threading.Lock()
        self._entries: dict[str, _Entry] = {}
        self._changes = 0

    def __repr__(self) -> str:
        return f"BotTokenCache(ttl_s={self.ttl_s})"

    def get(self, team_id: str) -> str | None:
        """The token kept for ``team_id`` if it is still fresh, else None."""
        now = self._clock()
        with self._lock:
            entry = self._entries.get(team_id)
            if entry is None:
                return None
            if entry.kept_at <= now < entry.kept_at + self.ttl_s:
                return entry.token
            del self._entries[team_id]
            return None

    def start_lookup(self) -> Lookup:
        """Call before reading the store; pass the answer to :meth:`keep`."""
        with self._lock:
            return Lookup(self._changes, self._clock())

    def keep(self, team_id: str, token: str, lookup: Lookup) -> None:
        """Keep what the read begun at ``lookup`` found, unless the store changed meanwhile.

        The entry's age counts from the start of the read, the last moment it is known to have
        been current.
        """
        with self._lock:
            if self._changes == lookup.changes:
                self._entries[team_id] = _Entry(token, lookup.at)

    def forget(self, team_id: str | None) -> None:
        """The store changed ``team_id``'s installation (None: perhaps any team's)."""
        with self._lock:
            self._changes += 1
            if team_id is None:
                self._entries.clear()
            else:
                self._entries.pop(team_id, None)
