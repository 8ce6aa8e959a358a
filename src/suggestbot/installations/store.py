"""Slack installations in the app's :class:`~suggestbot.store.Store`, tokens encrypted at rest.

Implements slack_sdk's ``InstallationStore`` (what Bolt's OAuth flow saves into and its
authorization reads from), with the semantics of slack_sdk's own stores:

- ``save`` keeps the installation as the workspace's latest and as its installer's, and the
  bot separately (``save_bot``), so that a bot token rotated later is what every reader gets;
- ``find_installation`` without a user gives the latest, with a user that user's; either way
  with the workspace's current bot token;
- ``delete_bot`` / ``delete_installation`` / ``delete_all`` serve ``tokens_revoked`` and
  ``app_uninstalled``;
- every save and delete is told, once written, to whoever asked with :meth:`on_change` (what
  keeps tokens in memory drops that workspace's at once).

Bot and user tokens, refresh tokens and incoming-webhook URLs go through the
:class:`~suggestbot.store.TokenVault`; the records hold only their ciphertext.

Records are keyed by team id (``T:<team>``), which Slack keeps unique across enterprises, so
work that knows only a team (a timer job) finds the workspace's installation; an org-wide
install (no team) is keyed by its enterprise (``E:<enterprise>``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from slack_sdk.oauth.installation_store import Bot, Installation, InstallationStore

from suggestbot.store import Store, TokenVault
from suggestbot.store.records import Records
from suggestbot.store.workspaces import StoredBot, StoredInstallation

log = logging.getLogger(__name__)

LATEST = "latest"

# Told the team id of each workspace whose installation or bot was saved or deleted; None when
# a change may concern any team (an org-wide install).
ChangeListener = Callable[[str | None], None]


def workspace_key(
    *, enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool | None = False
) -> str:
    """The key of a workspace's records (see the module docstring)."""
    if team_id and not is_enterprise_install:
        return f"T:{team_id}"
    return f"E:{enterprise_id or '-'}"


class EncryptedInstallationStore(InstallationStore):
    """slack_sdk's ``InstallationStore`` on the app's store, with every token encrypted.

    Args:
        store: the app's store.
        vault: encrypts and decrypts the tokens.
        client_id: the Slack app's client id (slack_sdk's stores carry it; Bolt may read it).
    """

    def __init__(self, store: Store, vault: TokenVault, *, client_id: str | None = None) -> None:
        records = Records(store)
        self._bots = records.slack_bots
        self._installations = records.slack_installations
        self._vault = vault
        self.client_id = client_id
        self._logger = log
        self._listeners: list[ChangeListener] = []

    def __repr__(self) -> str:
        return f"EncryptedInstallationStore(client_id={self.client_id!r})"

    @property
    def logger(self) -> logging.Logger:
        return self._logger

    def on_change(self, listener: ChangeListener) -> None:
        """Tell ``listener`` of every save and delete, after it is written (so what it reads
        next is the new state), even when the write failed part way."""
        self._listeners.append(listener)

    @contextmanager
    def _changing(self, team_id: str | None, *, org_wide: bool | None = False) -> Iterator[None]:
        try:
            yield
        finally:
            # An org-wide install may be what any of its teams is served with.
            changed = team_id if team_id and not org_wide else None
            for listener in self._listeners:
                listener(changed)

    # -- encryption ------------------------------------------------------------------------
    def _seal(self, value: str | None) -> str | None:
        return None if value is None else self._vault.encrypt(value)

    def _open(self, value: str | None) -> str | None:
        return None if value is None else self._vault.decrypt(value)

    # -- writing ---------------------------------------------------------------------------
    def save(self, installation: Installation) -> None:
        with self._changing(installation.team_id, org_wide=installation.is_enterprise_install):
            key = workspace_key(
                enterprise_id=installation.enterprise_id,
                team_id=installation.team_id,
                is_enterprise_install=installation.is_enterprise_install,
            )
            if installation.bot_token is not None:
                self.save_bot(installation.to_bot())
            record = StoredInstallation(
                app_id=installation.app_id,
                enterprise_id=installation.enterprise_id,
                enterprise_name=installation.enterprise_name,
                enterprise_url=installation.enterprise_url,
                team_id=installation.team_id,
                team_name=installation.team_name,
                bot_token_enc=self._seal(installation.bot_token),
                bot_id=installation.bot_id,
                bot_user_id=installation.bot_user_id,
                bot_scopes=list(installation.bot_scopes or []),
                bot_refresh_token_enc=self._seal(installation.bot_refresh_token),
                bot_token_expires_at=installation.bot_token_expires_at,
                user_id=installation.user_id,
                user_token_enc=self._seal(installation.user_token),
                user_scopes=list(installation.user_scopes or []),
                user_refresh_token_enc=self._seal(installation.user_refresh_token),
                user_token_expires_at=installation.user_token_expires_at,
                incoming_webhook_url_enc=self._seal(installation.incoming_webhook_url),
                incoming_webhook_channel=installation.incoming_webhook_channel,
                incoming_webhook_channel_id=installation.incoming_webhook_channel_id,
                incoming_webhook_configuration_url=installation.incoming_webhook_configuration_url,
                is_enterprise_install=bool(installation.is_enterprise_install),
                token_type=installation.token_type,
                installed_at=installation.installed_at,
            )
            self._installations.put(f"{key}:{LATEST}", record)
            if installation.user_id:
                self._installations.put(f"{key}:user:{installation.user_id}", record)
            log.info("saved the installation of workspace %s", installation.team_id)

    def save_bot(self, bot: Bot) -> None:
        with self._changing(bot.team_id, org_wide=bot.is_enterprise_install):
            if bot.bot_token is None:
                return
            key = workspace_key(
                enterprise_id=bot.enterprise_id,
                team_id=bot.team_id,
                is_enterprise_install=bot.is_enterprise_install,
            )
            record = StoredBot(
                app_id=bot.app_id,
                enterprise_id=bot.enterprise_id,
                enterprise_name=bot.enterprise_name,
                team_id=bot.team_id,
                team_name=bot.team_name,
                bot_token_enc=self._vault.encrypt(bot.bot_token),
                bot_id=bot.bot_id,
                bot_user_id=bot.bot_user_id,
                bot_scopes=list(bot.bot_scopes or []),
                bot_refresh_token_enc=self._seal(bot.bot_refresh_token),
                bot_token_expires_at=bot.bot_token_expires_at,
                is_enterprise_install=bool(bot.is_enterprise_install),
                installed_at=bot.installed_at,
            )
            self._bots.put(key, record)

    # -- reading ---------------------------------------------------------------------------
    def find_bot(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        is_enterprise_install: bool | None = False,
    ) -> Bot | None:
        key = workspace_key(
            enterprise_id=enterprise_id,
            team_id=team_id,
            is_enterprise_install=is_enterprise_install,
        )
        stored = self._bots.get(key)
        if stored is None:
            return None
        return Bot(
            app_id=stored.app_id,
            enterprise_id=stored.enterprise_id,
            enterprise_name=stored.enterprise_name,
            team_id=stored.team_id,
            team_name=stored.team_name,
            bot_token=self._vault.decrypt(stored.bot_token_enc),
            bot_id=stored.bot_id or "",
            bot_user_id=stored.bot_user_id or "",
            bot_scopes=stored.bot_scopes,
            bot_refresh_token=self._open(stored.bot_refresh_token_enc),
            bot_token_expires_at=stored.bot_token_expires_at,
            is_enterprise_install=stored.is_enterprise_install,
            installed_at=stored.installed_at,
        )

    def find_installation(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        user_id: str | None = None,
        is_enterprise_install: bool | None = False,
    ) -> Installation | None:
        key = workspace_key(
            enterprise_id=enterprise_id,
            team_id=team_id,
            is_enterprise_install=is_enterprise_install,
        )
        suffix = LATEST if user_id is None else f"user:{user_id}"
        stored = self._installations.get(f"{key}:{suffix}")
        if stored is None:
            return None
        installation = Installation(
            app_id=stored.app_id,
            enterprise_id=stored.enterprise_id,
            enterprise_name=stored.enterprise_name,
            enterprise_url=stored.enterprise_url,
            team_id=stored.team_id,
            team_name=stored.team_name,
            bot_token=self._open(stored.bot_token_enc),
            bot_id=stored.bot_id,
            bot_user_id=stored.bot_user_id,
            bot_scopes=stored.bot_scopes,
            bot_refresh_token=self._open(stored.bot_refresh_token_enc),
            bot_token_expires_at=stored.bot_token_expires_at,
            user_id=stored.user_id,
            user_token=self._open(stored.user_token_enc),
            user_scopes=stored.user_scopes,
            user_refresh_token=self._open(stored.user_refresh_token_enc),
            user_token_expires_at=stored.user_token_expires_at,
            incoming_webhook_url=self._open(stored.incoming_webhook_url_enc),
            incoming_webhook_channel=stored.incoming_webhook_channel,
            incoming_webhook_channel_id=stored.incoming_webhook_channel_id,
            incoming_webhook_configuration_url=stored.incoming_webhook_configuration_url,
            is_enterprise_install=stored.is_enterprise_install,
            token_type=stored.token_type,
            installed_at=stored.installed_at,
        )
        # The bot may have been rotated (or reinstalled) since this person installed.
        bot = self.find_bot(
            enterprise_id=enterprise_id,
            team_id=team_id,
            is_enterprise_install=is_enterprise_install,
        )
        if bot is None:
            _drop_bot(installation)
        elif bot.bot_token != installation.bot_token:
            installation.bot_id = bot.bot_id
            installation.bot_user_id = bot.bot_user_id
            installation.bot_token = bot.bot_token
            installation.bot_scopes = bot.bot_scopes
            installation.bot_refresh_token = bot.bot_refresh_token
            installation.bot_token_expires_at = bot.bot_token_expires_at
        return installation

    def teams(self) -> list[str]:
        """Team ids of every workspace with a bot installed."""
        return [bot.team_id for bot in self._bots.values() if bot.team_id]

    # -- deleting --------------------------------------------------------------------------
    def delete_bot(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        with self._changing(team_id):
            key = workspace_key(enterprise_id=enterprise_id, team_id=team_id)
            if self._bots.delete(key):
                log.info("deleted the bot token of workspace %s", team_id or enterprise_id)

    def delete_installation(
        self, *, enterprise_id: str | None, team_id: str | None, user_id: str | None = None
    ) -> None:
        with self._changing(team_id):
            key = workspace_key(enterprise_id=enterprise_id, team_id=team_id)
            doomed = [f"{key}:user:{user_id}"] if user_id is not None else self._keys_under(key)
            for each in doomed:
                self._installations.delete(each)
            if user_id is not None:
                # The latest installation carries this person's tokens when they installed last.
                self._installations.update(
                    f"{key}:{LATEST}", lambda kept: _without_user(kept, user_id)
                )

    def _keys_under(self, key: str) -> list[str]:
        """The keys of a workspace's installations. Each record under ``T:<team>`` holds that
        team, each under ``E:<enterprise>`` that enterprise: read by that (indexed) column,
        then kept by key."""
        kind, _, ident = key.partition(":")
        table = self._installations
        if kind == "T":
            found = table.items_matching(team_id=ident)
        elif ident != "-":
            found = table.items_matching(enterprise_id=ident)
        else:  # an install with neither team nor enterprise: nothing to look it up by
            found = list(table.items())
        return [k for k, _ in found if k.startswith(f"{key}:")]

    def delete_all(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        self.delete_bot(enterprise_id=enterprise_id, team_id=team_id)
        self.delete_installation(enterprise_id=enterprise_id, team_id=team_id)


def _drop_bot(installation: Installation) -> None:
    installation.bot_token = None
    installation.bot_refresh_token = None
    installation.bot_token_expires_at = None


def _without_user(kept: StoredInstallation, user_id: str) -> StoredInstallation:
    if kept.user_id != user_id:
        return kept
    return kept.model_copy(
        update={
            "user_token_enc": None,
            "user_refresh_token_enc": None,
            "user_token_expires_at": None,
            "user_scopes": [],
        }
    )
