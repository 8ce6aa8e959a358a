"""Installing the app into the emulated workspace: Slack's OAuth v2 flow and token rotation.

- ``GET /oauth/v2/authorize`` stands in for the page where a person approves an install. The
  person signed in to the browser (cookie ``emu_user``) approves at once, and the browser goes
  back to the app's redirect URL with a one-time ``code`` and the app's ``state`` unchanged
  (``error=access_denied`` instead when the browser carries ``emu_deny``).
- ``oauth.v2.access`` exchanges the code, once and within 10 minutes, for a bot token, in the
  shape of Slack's method reference. With token rotation on, the bot token expires after
  ``expires_in`` seconds and comes with a refresh token; ``grant_type=refresh_token`` gives
  the next pair and the refresh token is good once.
- Every token issued here is accepted by the Web API until it expires (``token_expired``) or
  the app is uninstalled (``token_revoked``).

Errors are Slack's: ``invalid_client_id``, ``bad_client_secret``, ``invalid_code``,
``bad_redirect_uri``, ``invalid_grant_type``, ``invalid_refresh_token``.
"""

from __future__ import annotations

import base64
import binascii
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from suggestbot.slackemu.errors import ApiError
from suggestbot.slackemu.model import APP_ID, BOT_USER_ID

CODE_TTL_S = 600.0
# Slack's lifetime of a rotating access token: 12 hours.
DEFAULT_TOKEN_LIFETIME_S = 12 * 3600.0
AUTHORIZE_PATH = "/oauth/v2/authorize"
USER_COOKIE = "emu_user"
TEAM_COOKIE = "emu_team"
DENY_COOKIE = "emu_deny"


@dataclass
class OAuthApp:
    """The app's OAuth settings as Slack's app configuration holds them.

    Args:
        redirect_url: the one redirect URL the app configured; None accepts any the app sends.
        token_rotation: whether the app opted in to token rotation.
        token_lifetime_s: ``expires_in`` of the access tokens issued from now on (rotation on).
    """

    client_id: str
    client_secret: str = field(repr=False)
    redirect_url: str | None = None
    token_rotation: bool = False
    token_lifetime_s: float = DEFAULT_TOKEN_LIFETIME_S


@dataclass
class _Grant:
    user_id: str
    scopes: tuple[str, ...]
    redirect_uri: str | None
    issued_at: float
    used: bool = False


@dataclass
class _Issued:
    scopes: tuple[str, ...]
    expires_at: float | None


@dataclass
class _Refresh:
    scopes: tuple[str, ...]
    used: bool = False


class OAuthState:
    """Codes and tokens the workspace issued to the app, and whether it is still installed."""

    def __init__(self) -> None:
        self.app: OAuthApp | None = None
        self.codes: dict[str, _Grant] = {}
        self.tokens: dict[str, _Issued] = {}
        self.refresh_tokens: dict[str, _Refresh] = {}
        self.uninstalled = False
        self.installs = 0
        self.refreshes = 0

    def knows(self, secret: str) -> bool:
        """Whether ``secret`` is a code, access token or refresh token issued here."""
        return secret in self.codes or secret in self.tokens or secret in self.refresh_tokens

    def token_problem(self, token: str, *, now: float) -> str | None:
        """Why an issued token is refused (None: accepted, or not one issued here)."""
        issued = self.tokens.get(token)
        if issued is None:
            return None
        if self.uninstalled:
            return "token_revoked"
        if issued.expires_at is not None and now >= issued.expires_at:
            return "token_expired"
        return None

    def uninstall(self) -> None:
        """Revoke everything the app was given."""
        self.uninstalled = True
        self.codes.clear()
        for refresh in self.refresh_tokens.values():
            refresh.used = True


def authorize(
    oauth: OAuthState,
    query: Mapping[str, str],
    *,
    granted_scopes: frozenset[str],
    known_user: bool,
    user_id: str | None,
    deny: bool,
    now: float,
) -> tuple[int, str]:
    """The authorize page's answer: ``(302, redirect location)`` or ``(status, error text)``."""
    app = oauth.app
    if app is None or query.get("client_id") != app.client_id:
        return 400, "invalid_client_id"
    asked = query.get("redirect_uri")
    if asked and app.redirect_url and asked != app.redirect_url:
        return 400, "bad_redirect_uri"
    redirect = asked or app.redirect_url
    if not redirect:
        return 400, "bad_redirect_uri"
    scopes = tuple(s for s in (query.get("scope") or "").split(",") if s)
    if not set(scopes) <= granted_scopes:
        return 400, "invalid_scope"
    if user_id is None or not known_user:
        return 401, "not signed in to this workspace"
    answer: dict[str, str] = {}
    if deny:
        answer["error"] = "access_denied"
    else:
        code = f"{int(now)}.{secrets.token_hex(8)}.{secrets.token_hex(24)}"
        oauth.codes[code] = _Grant(user_id, scopes, asked, now)
        answer["code"] = code
    if "state" in query:
        answer["state"] = query["state"]
    separator = "&" if "?" in redirect else "?"
    return 302, f"{redirect}{separator}{urlencode(answer)}"


def access(
    oauth: OAuthState,
    params: Mapping[str, Any],
    *,
    authorization: str | None,
    team_id: str,
    team_name: str,
    now: float,
) -> dict[str, Any]:
    """``oauth.v2.access``: a code or a refresh token for a bot token (raises ``ApiError``)."""
    app = oauth.app
    client_id, client_secret = _client_credentials(params, authorization)
    if app is None or client_id != app.client_id:
        raise ApiError("invalid_client_id")
    if not secrets.compare_digest(client_secret or "", app.client_secret):
        raise ApiError("bad_client_secret")
    grant_type = str(params.get("grant_type") or "authorization_code")
    if grant_type == "refresh_token":
        return _refresh(oauth, app, str(params.get("refresh_token") or ""), team_id, team_name, now)
    if grant_type != "authorization_code":
        raise ApiError("invalid_grant_type")
    grant = oauth.codes.get(str(params.get("code") or ""))
    if grant is None or grant.used or now - grant.issued_at > CODE_TTL_S:
        raise ApiError("invalid_code")
    given = params.get("redirect_uri")
    if grant.redirect_uri and given and given != grant.redirect_uri:
        raise ApiError("bad_redirect_uri")
    grant.used = True
    oauth.uninstalled = False
    oauth.installs += 1
    # shape: Slack docs, oauth.v2.access "Example response" (token_type bot, scope, bot_user_id,
    # app_id, team, enterprise, authed_user); refresh_token / expires_in as in "Using token
    # rotation" when the app opted in.
    body: dict[str, Any] = {
        "ok": True,
        "app_id": APP_ID,
        "authed_user": {"id": grant.user_id},
        "scope": ",".join(grant.scopes),
        "token_type": "bot",
        "bot_user_id": BOT_USER_ID,
        "team": {"id": team_id, "name": team_name},
        "enterprise": None,
        "is_enterprise_install": False,
    }
    body.update(_new_tokens(oauth, app, grant.scopes, now, rotating=app.token_rotation))
    return body


def _refresh(
    oauth: OAuthState, app: OAuthApp, refresh_token: str, team_id: str, team_name: str, now: float
) -> dict[str, Any]:
    refresh = oauth.refresh_tokens.get(refresh_token)
    if refresh is None or refresh.used:
        raise ApiError("invalid_refresh_token")
    refresh.used = True
    oauth.refreshes += 1
    body: dict[str, Any] = {
        "ok": True,
        "app_id": APP_ID,
        "scope": ",".join(refresh.scopes),
        "token_type": "bot",
        "bot_user_id": BOT_USER_ID,
        "team": {"id": team_id, "name": team_name},
        "enterprise": None,
        "is_enterprise_install": False,
    }
    body.update(_new_tokens(oauth, app, refresh.scopes, now, rotating=True))
    return body


def _new_tokens(
    oauth: OAuthState, app: OAuthApp, scopes: tuple[str, ...], now: float, *, rotating: bool
) -> dict[str, Any]:
    if not rotating:
        token = f"xoxb-{secrets.randbelow(10**12)}-{secrets.token_hex(12)}"
        oauth.tokens[token] = _Issued(scopes, None)
        return {"access_token": token}
    # shape: rotating tokens are "xoxe.xoxb-1-…" and refresh tokens "xoxe-1-…" (Slack docs,
    # "Using token rotation").
    token = f"xoxe.xoxb-1-{secrets.token_hex(20)}"
    refresh = f"xoxe-1-{secrets.token_hex(24)}"
    lifetime = int(app.token_lifetime_s)
    oauth.tokens[token] = _Issued(scopes, now + lifetime)
    oauth.refresh_tokens[refresh] = _Refresh(scopes)
    return {"access_token": token, "refresh_token": refresh, "expires_in": lifetime}


def _client_credentials(
    params: Mapping[str, Any], authorization: str | None
) -> tuple[str | None, str | None]:
    """Client id and secret from HTTP Basic auth (what slack_sdk sends) or form fields."""
    if authorization and authorization.lower().startswith("basic "):
        try:
            decoded = base64.b64decode(authorization[6:].strip(), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None, None
        client_id, _, client_secret = decoded.partition(":")
        return client_id, client_secret
    given_id, given_secret = params.get("client_id"), params.get("client_secret")
    return (
        None if given_id is None else str(given_id),
        None if given_secret is None else str(given_secret),
    )


def cookie_values(header: str | None) -> dict[str, str]:
    """``name=value`` pairs of a ``Cookie`` request header."""
    values: dict[str, str] = {}
    for part in (header or "").split(";"):
        name, sep, value = part.strip().partition("=")
        if sep:
            values[name] = value
    return values
