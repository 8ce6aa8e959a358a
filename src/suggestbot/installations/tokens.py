"""Each workspace's bot token for the Web API, refreshed before it expires (token rotation).

With token rotation on, Slack's bot tokens expire after 12 hours and each refresh token works
once. Tokens are refreshed in two places: Bolt's authorization, for every Slack request, and
:class:`BotTokens`, for work that no request started (a watcher posting results at night).
Both go through one :class:`SerialTokenRotator`, which refreshes a workspace's tokens one
caller at a time and from what is stored, so two threads never spend the same refresh token
(the second would get ``invalid_refresh_token`` and the workspace would be locked out).

:class:`BotTokens` keeps each token for a few seconds
(:mod:`~suggestbot.installations.token_cache`), unless it is close enough to expiry to be
refreshed before those seconds are up.

:class:`TeamWebClient` is the ``WebClient`` the flows use in a multi-workspace install: every
call carries the bot token of the workspace in :mod:`~suggestbot.installations.scope`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from slack_sdk import WebClient
from slack_sdk.oauth.installation_store import Installation, InstallationStore
from slack_sdk.oauth.token_rotation import TokenRotator

from suggestbot.installations.scope import current_team
from suggestbot.installations.store import EncryptedInstallationStore, workspace_key
from suggestbot.installations.token_cache import BotTokenCache

log = logging.getLogger(__name__)

# Bolt's default: refresh tokens that expire within two hours.
DEFAULT_EXPIRATION_MINUTES = 120


class SerialTokenRotator(TokenRotator):
    """A ``TokenRotator`` that refreshes each workspace one caller at a time, from the store.

    Args:
        installations: where tokens are read and the refreshed ones saved (inside the lock,
            so the next caller sees them).
        client_id, client_secret: the Slack app's credentials.
        client: a ``WebClient`` on Slack's API address (for ``oauth.v2.access``).
    """

    def __init__(
        self,
        *,
        installations: InstallationStore,
        client_id: str,
        client_secret: str,
        client: WebClient,
    ) -> None:
        super().__init__(client_id=client_id, client_secret=client_secret, client=client)
        self._installations = installations
        self._locks: dict[str, threading.Lock] = {}
        self._locks_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"SerialTokenRotator(client_id={self.client_id!r})"

    def _lock_for(self, key: str) -> threading.Lock:
        with self._locks_lock:
            return self._locks.setdefault(key, threading.Lock())

    def perform_token_rotation(
        self,
        *,
        installation: Installation,
        minutes_before_expiration: int = DEFAULT_EXPIRATION_MINUTES,
    ) -> Installation | None:
        key = workspace_key(
            enterprise_id=installation.enterprise_id,
            team_id=installation.team_id,
            is_enterprise_install=installation.is_enterprise_install,
        )
        with self._lock_for(key):
            current = self._installations.find_installation(
                enterprise_id=installation.enterprise_id,
                team_id=installation.team_id,
                user_id=installation.user_id,
                is_enterprise_install=installation.is_enterprise_install,
            )
            if current is None:
                return None
            if current.bot_token != installation.bot_token:
                # Another caller refreshed them meanwhile: use what it stored.
                return _with_bot_of(installation, current)
            rotated: Installation | None = super().perform_token_rotation(
                installation=installation, minutes_before_expiration=minutes_before_expiration
            )
            if rotated is not None:
                self._installations.save(rotated)
                log.info("refreshed the expiring tokens of workspace %s", installation.team_id)
            return rotated


def _with_bot_of(installation: Installation, source: Installation) -> Installation:
    """``installation`` with the bot token (and its refresh token) of ``source``."""
    fresh = Installation(**installation.to_dict_for_copying())
    fresh.bot_token = source.bot_token
    fresh.bot_refresh_token = source.bot_refresh_token
    fresh.bot_token_expires_at = source.bot_token_expires_at
    fresh.bot_scopes = source.bot_scopes
    return fresh


class BotTokens:
    """The current bot token of a workspace, refreshed first when it is about to expire.

    A token read from the store is kept for a few seconds (a burst of Slack calls reads it
    once), but never one that should be refreshed before then, and never "not installed" (an
    install handled by another replica works here at once). The store tells the cache of each
    save and delete, so a token deleted or replaced in this process is never used again.

    Args:
        installations: the installation store.
        rotator: refreshes expiring tokens (shared with Bolt's authorization).
        expiration_minutes: refresh tokens that expire within this many minutes.
        clock: epoch seconds.
    """

    def __init__(
        self,
        *,
        installations: EncryptedInstallationStore,
        rotator: SerialTokenRotator,
        expiration_minutes: int = DEFAULT_EXPIRATION_MINUTES,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._installations = installations
        self._rotator = rotator
        self._window_s = expiration_minutes * 60
        self._expiration_minutes = expiration_minutes
        self._cache = BotTokenCache(clock=clock)
        installations.on_change(self._cache.forget)

    def __repr__(self) -> str:
        return f"BotTokens(expiration_minutes={self._expiration_minutes})"

    def bot_token(self, team_id: str) -> str | None:
        """The workspace's bot token, or None when the app is not installed there."""
        kept = self._cache.get(team_id)
        if kept is not None:
            return kept
        lookup = self._cache.start_lookup()
        installation = self._installations.find_installation(enterprise_id=None, team_id=team_id)
        if installation is None or installation.bot_token is None:
            return None
        token = installation.bot_token
        expires_at = installation.bot_token_expires_at
        refresh_from = None if expires_at is None else expires_at - self._window_s
        if refresh_from is None or refresh_from > lookup.at + self._cache.ttl_s:
            self._cache.keep(team_id, token, lookup)
            return token
        if installation.bot_refresh_token is None or refresh_from > lookup.at:
            # Due for a refresh before the entry would expire (or never refreshable): not kept.
            return token
        # The refresh saves the new token, so this lookup keeps nothing; the next one reads the
        # new token back and keeps it.
        rotated = self._rotator.perform_token_rotation(
            installation=installation, minutes_before_expiration=self._expiration_minutes
        )
        return rotated.bot_token if rotated is not None else token


class TeamWebClient(WebClient):
    """A ``WebClient`` that calls with the bot token of the workspace being served.

    Outside a workspace scope it has no token (calls fail with ``not_authed``, as they should:
    no work may reach Slack without knowing for which workspace). A token passed to a single
    call (``auth_test(token=...)``) still wins, as with any ``WebClient``.
    """

    def __init__(self, *, tokens: BotTokens, **kwargs: Any) -> None:
        self._tokens = tokens
        super().__init__(**kwargs)

    @property
    def token(self) -> str | None:
        team_id = current_team()
        return None if team_id is None else self._tokens.bot_token(team_id)

    @token.setter
    def token(self, value: str | None) -> None:
        # WebClient.__init__ assigns it; a fixed token would serve one workspace only.
        if value:
            raise ValueError("a TeamWebClient takes its tokens from the installations")
