"""What the app keeps about each Slack workspace: its installation (bot and installer tokens),
its own credentials of the content service, and OAuth states waiting for an install to finish.

Every token, refresh token, webhook URL and client secret is held as ciphertext only (the
:class:`~suggestbot.store.TokenVault` encrypts it before a record is built).
"""

from __future__ import annotations

import time

from pydantic import BaseModel, Field


class StoredBot(BaseModel):
    """A workspace's bot, as stored: tokens as ciphertext only."""

    app_id: str | None = None
    enterprise_id: str | None = None
    enterprise_name: str | None = None
    team_id: str | None = None
    team_name: str | None = None
    bot_token_enc: str = Field(repr=False)
    bot_id: str | None = None
    bot_user_id: str | None = None
    bot_scopes: list[str] = Field(default_factory=list)
    bot_refresh_token_enc: str | None = Field(default=None, repr=False)
    bot_token_expires_at: int | None = None
    is_enterprise_install: bool = False
    installed_at: float = Field(default_factory=time.time)


class StoredInstallation(BaseModel):
    """One install by one person, as stored: tokens and the webhook URL as ciphertext only."""

    app_id: str | None = None
    enterprise_id: str | None = None
    enterprise_name: str | None = None
    enterprise_url: str | None = None
    team_id: str | None = None
    team_name: str | None = None
    bot_token_enc: str | None = Field(default=None, repr=False)
    bot_id: str | None = None
    bot_user_id: str | None = None
    bot_scopes: list[str] = Field(default_factory=list)
    bot_refresh_token_enc: str | None = Field(default=None, repr=False)
    bot_token_expires_at: int | None = None
    user_id: str
    user_token_enc: str | None = Field(default=None, repr=False)
    user_scopes: list[str] = Field(default_factory=list)
    user_refresh_token_enc: str | None = Field(default=None, repr=False)
    user_token_expires_at: int | None = None
    incoming_webhook_url_enc: str | None = Field(default=None, repr=False)
    incoming_webhook_channel: str | None = None
    incoming_webhook_channel_id: str | None = None
    incoming_webhook_configuration_url: str | None = None
    is_enterprise_install: bool = False
    token_type: str | None = None
    installed_at: float = Field(default_factory=time.time)


class ServiceCredentials(BaseModel):
    """A workspace's machine credential of the service (the secret only as ciphertext)."""

    team_id: str
    base_url: str
    client_id: str
    client_secret_enc: str = Field(repr=False)
    set_by: str
    set_at: float = Field(default_factory=time.time)


class OAuthState(BaseModel):
    """An OAuth state issued for an install, until it is used or expires (epoch seconds)."""

    expires_at: float
