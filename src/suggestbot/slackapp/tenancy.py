"""A multi-workspace (OAuth) install, wired: what the composition root
(:class:`~suggestbot.server.composition.Runtime`) adds to the app when ``SLACK_CLIENT_ID`` and
``SLACK_CLIENT_SECRET`` are set.

- Bolt's OAuth flow serves ``/slack/install`` (straight on to Slack's approval page) and
  ``/slack/oauth_redirect``, with the installations' ``EncryptedInstallationStore`` and
  ``SignedStateStore`` (``SLACK_STATE_SECRET``);
- Bolt's authorization finds each request's workspace in the installation store and refreshes
  expiring tokens through the shared ``SerialTokenRotator``;
- the flows get a ``TeamWebClient`` and a ``TeamContentProxy`` (all four in
  :mod:`suggestbot.installations`), which act for the workspace being served;
- listeners for ``app_uninstalled``/``tokens_revoked`` and for the admins' App Home settings.

It wires Bolt, so it lives at the Slack edge; the installations it wires import nothing from
here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from ssl import SSLContext
from typing import Any

from slack_bolt import App
from slack_bolt.authorization.authorize import InstallationStoreAuthorize
from slack_bolt.oauth.oauth_settings import OAuthSettings
from slack_sdk import WebClient
from slack_sdk.http_retry import RetryHandler

from suggestbot.config import Settings
from suggestbot.contentapi import ContentClient
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.workspace import admin as workspace_admin
from suggestbot.installations.service import ContentClients, TeamContentProxy
from suggestbot.installations.state import SignedStateStore
from suggestbot.installations.store import EncryptedInstallationStore
from suggestbot.installations.tokens import (
    DEFAULT_EXPIRATION_MINUTES,
    BotTokens,
    SerialTokenRotator,
    TeamWebClient,
)
from suggestbot.logs import register_secret
from suggestbot.slackapp.http import INSTALL_PATH, REDIRECT_PATH
from suggestbot.slackapp.listeners import register_many_workspaces
from suggestbot.slackapp.manifest import BOT_SCOPES
from suggestbot.store import Store, TokenVault

log = logging.getLogger(__name__)

AUTHORIZE_PATH = "oauth/v2/authorize"


def authorization_url(slack_api_url: str) -> str:
    """Slack's approval page next to its Web API (``https://slack.com/api/`` →
    ``https://slack.com/oauth/v2/authorize``; the emulator's likewise)."""
    base = slack_api_url.rstrip("/")
    base = base.removesuffix("/api")
    return f"{base}/{AUTHORIZE_PATH}"


class Tenancy:
    """Everything a multi-workspace install adds, built once from ``settings``.

    Args:
        default_content: the client of workspaces whose admin set no credentials.
        retry_handlers: the Web API retry policy (as for the single-workspace client).
        rotation_minutes: refresh bot tokens that expire within this many minutes.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        store: Store,
        vault: TokenVault,
        default_content: ContentClient,
        retry_handlers: list[RetryHandler],
        rotation_minutes: int = DEFAULT_EXPIRATION_MINUTES,
        ssl_context: SSLContext | None = None,
    ) -> None:
        client_id = settings.slack_client_id
        client_secret = settings.slack_client_secret
        state_secret = settings.slack_state_secret
        if not (client_id and client_secret):
            raise ValueError("SLACK_CLIENT_ID and SLACK_CLIENT_SECRET are needed for OAuth")
        if state_secret is None or not state_secret.get_secret_value():
            raise ValueError(
                "SLACK_STATE_SECRET is needed for OAuth installs (it signs the state parameter)"
            )
        if settings.slack_bot_token is not None:
            log.warning(
                "SLACK_BOT_TOKEN is ignored: with SLACK_CLIENT_ID the app is installed by OAuth "
                "and uses each workspace's own bot token"
            )
        self._client_id = client_id
        self._client_secret = client_secret.get_secret_value()
        register_secret(self._client_secret)
        register_secret(state_secret.get_secret_value())
        self.rotation_minutes = rotation_minutes
        api_url = settings.slack_api_url
        # oauth.v2.access (code and refresh token exchanges) and auth.test with explicit tokens.
        self.oauth_client = WebClient(
            base_url=api_url, retry_handlers=list(retry_handlers), ssl=ssl_context
        )
        self.installations = EncryptedInstallationStore(store, vault, client_id=client_id)
        self.states = SignedStateStore(store, secret=state_secret.get_secret_value())
        self.rotator = SerialTokenRotator(
            installations=self.installations,
            client_id=client_id,
            client_secret=self._client_secret,
            client=self.oauth_client,
        )
        self.tokens = BotTokens(
            installations=self.installations,
            rotator=self.rotator,
            expiration_minutes=rotation_minutes,
        )
        self.slack = TeamWebClient(
            tokens=self.tokens,
            base_url=api_url,
            retry_handlers=list(retry_handlers),
            ssl=ssl_context,
        )
        self.contents = ContentClients(store=store, vault=vault, default=default_content)
        self.content = TeamContentProxy(self.contents).as_client()
        self._authorization_url = authorization_url(api_url)

    def __repr__(self) -> str:
        return f"Tenancy(client_id={self._client_id!r})"

    # -- the Bolt app ----------------------------------------------------------------------
    def app_options(self) -> dict[str, Any]:
        """Keyword arguments of ``slack_bolt.App`` for the OAuth flow and authorization."""
        settings = OAuthSettings(
            client_id=self._client_id,
            client_secret=self._client_secret,
            scopes=list(BOT_SCOPES),
            user_scopes=[],
            install_path=INSTALL_PATH,
            redirect_uri_path=REDIRECT_PATH,
            # /slack/install sends the browser straight on to Slack (the README links to it).
            install_page_rendering_enabled=False,
            authorization_url=self._authorization_url,
            installation_store=self.installations,
            token_rotation_expiration_minutes=self.rotation_minutes,
            state_store=self.states,
            state_expiration_seconds=self.states.expiration_seconds,
        )
        authorize = InstallationStoreAuthorize(
            logger=logging.getLogger("slack_bolt.authorization"),
            installation_store=self.installations,
            client_id=self._client_id,
            client_secret=self._client_secret,
            token_rotation_expiration_minutes=self.rotation_minutes,
            # auth.test once per token, not once per request.
            cache_enabled=True,
            client=self.oauth_client,
        )
        # Bolt's authorization and the background work rotate through the same rotator.
        authorize.token_rotator = self.rotator
        # OAuthSettings, not an OAuthFlow: given no settings, Bolt builds default ones when
        # SLACK_CLIENT_ID is in the environment, with file stores under $HOME.
        return {
            "oauth_settings": settings,
            "installation_store": self.installations,
            "authorize": authorize,
        }

    def register(self, app: App, deps: Deps) -> None:
        register_many_workspaces(
            app, deps, installations=self.installations, contents=self.contents
        )

    def home_extras(self, deps: Deps) -> Callable[[str, str, str], list[dict[str, Any]]]:
        """The App Home hook: workspace settings for admins."""

        def extras(team_id: str, user_id: str, lang: str) -> list[dict[str, Any]]:
            return workspace_admin.home_section(
                deps, self.contents, team_id=team_id, user_id=user_id, lang=lang
            )

        return extras

    def auto_link(self, link: Callable[[str, str], str]) -> Callable[[str, str], str]:
        """The built-in sandbox's automatic linking, for workspaces that use the default service
        only (a workspace with its own service needs its people's own tokens)."""

        def maybe(team_id: str, user_id: str) -> str:
            return "" if self.contents.credentials(team_id) else link(team_id, user_id)

        return maybe

    def close(self) -> None:
        self.contents.close()
