"""Credentials, tokens and who is calling.

Two kinds of caller, as in the contract: a machine access token (from the client-credentials
exchange; sees the whole tenant) and a signed-in user (a user token minted by the admin
surface; sees what they created). Only digests of secrets are stored, and a lookup compares
digests, so a secret never needs to be kept or logged.
"""

from __future__ import annotations

import hmac
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import parse_qsl

from suggestbot.sandbox.env import Env
from suggestbot.sandbox.errors import ApiError, validation_failed
from suggestbot.sandbox.ids import (
    ACCESS_TOKEN_PREFIX,
    CLIENT_SECRET_PREFIX,
    USER_TOKEN_PREFIX,
    UUID_PATTERN,
    hash_secret,
    new_secret,
)
from suggestbot.sandbox.records import AccessTokenRec, CredentialRec, UserTokenRec

TOKEN_LIFETIME = timedelta(seconds=900)
_FORM_TYPE = "application/x-www-form-urlencoded"


@dataclass(frozen=True)
class Caller:
    tenant_id: str
    user_id: str | None

    @property
    def is_user(self) -> bool:
        return self.user_id is not None


def unauthorized() -> ApiError:
    return ApiError(401, "unauthorized", headers={"WWW-Authenticate": "Bearer"})


def authenticate(env: Env, authorization: str | None) -> Caller:
    """The caller behind an ``Authorization: Bearer`` header, or 401 ``unauthorized``."""
    if not authorization:
        raise unauthorized()
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise unauthorized()
    digest = hash_secret(token.strip())
    state = env.state
    with state.lock:
        access = state.access_tokens.get(digest)
        if access is not None:
            credential = state.credentials.get(access.client_id)
            now = env.now()
            if credential is None or credential.revoked or access.expires_at <= now:
                raise unauthorized()
            return Caller(access.tenant_id, None)
        user = state.user_tokens.get(digest)
        if user is not None and not user.revoked and user.tenant_id in state.tenants:
            return Caller(user.tenant_id, user.user_id)
    raise unauthorized()


def _form_failure(field: str, msg: str, kind: str) -> dict[str, object]:
    return {"loc": ["body", field], "msg": msg, "type": kind}


def exchange(env: Env, *, content_type: str | None, body: bytes) -> tuple[str, int]:
    """Client-credentials exchange: a new access token and its ``expires_in``.

    Validation failures are 400 (OAuth convention); unknown, revoked or expired credentials 401.
    """
    media = (content_type or "").split(";")[0].strip().lower()
    if media != _FORM_TYPE:
        raise validation_failed(
            [_form_failure("content-type", f"Body must be {_FORM_TYPE}", "content_type")],
            status=400,
        )
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=bool(body))
    except (UnicodeDecodeError, ValueError):
        raise validation_failed(
            [_form_failure("body", "Malformed form body", "form_invalid")], status=400
        ) from None
    fields: dict[str, str] = {}
    failures: list[dict[str, object]] = []
    for name, value in pairs:
        if name in fields:
            failures.append(_form_failure(name, "Parameter given more than once", "duplicate"))
        fields[name] = value
    for name in ("grant_type", "client_id", "client_secret"):
        if not fields.get(name):
            failures.append(_form_failure(name, "Field required", "missing"))
    grant = fields.get("grant_type")
    if grant and grant != "client_credentials":
        failures.append(
            _form_failure("grant_type", "Only client_credentials is supported", "literal_error")
        )
    if failures:
        raise validation_failed(failures, status=400)
    now = env.now()
    state = env.state
    with state.lock:
        credential = state.credentials.get(fields["client_id"])
        valid = (
            credential is not None
            and not credential.revoked
            and hmac.compare_digest(credential.secret_hash, hash_secret(fields["client_secret"]))
            and (credential.expires_at is None or credential.expires_at > now)
        )
        if credential is None or not valid:
            raise ApiError(401, "invalid_client", headers={"WWW-Authenticate": "Basic"})
        expires_at = now + TOKEN_LIFETIME
        if credential.expires_at is not None and credential.expires_at < expires_at:
            expires_at = credential.expires_at
        token = new_secret(ACCESS_TOKEN_PREFIX)
        state.access_tokens[hash_secret(token)] = AccessTokenRec(
            token_hash=hash_secret(token),
            client_id=credential.client_id,
            tenant_id=credential.tenant_id,
            expires_at=expires_at,
        )
        _drop_expired_tokens(env, now)
        state.touch()
    return token, int((expires_at - now).total_seconds())


def _drop_expired_tokens(env: Env, now: datetime) -> None:
    expired = [k for k, rec in env.state.access_tokens.items() if rec.expires_at <= now]
    for key in expired:
        del env.state.access_tokens[key]


def create_credential(
    env: Env,
    *,
    tenant_id: str,
    expires_in_s: float | None,
    client_id: str | None = None,
    client_secret: str | None = None,
) -> tuple[str, str]:
    """A new machine credential; the secret is returned once and stored only as a digest."""
    secret = client_secret or new_secret(CLIENT_SECRET_PREFIX)
    now = env.now()
    with env.state.lock:
        if tenant_id not in env.state.tenants:
            raise ApiError(404, "not_found")
        cid = client_id or f"sbx-client-{env.ids.new()}"
        env.state.credentials[cid] = CredentialRec(
            client_id=cid,
            tenant_id=tenant_id,
            secret_hash=hash_secret(secret),
            expires_at=None if expires_in_s is None else now + timedelta(seconds=expires_in_s),
        )
        env.state.touch()
    return cid, secret


def rotate_credential(env: Env, *, client_id: str) -> str:
    """A new secret for the same client id; tokens already issued stay valid."""
    secret = new_secret(CLIENT_SECRET_PREFIX)
    with env.state.lock:
        credential = env.state.credentials.get(client_id)
        if credential is None or credential.revoked:
            raise ApiError(404, "not_found")
        credential.secret_hash = hash_secret(secret)
        env.state.touch()
    return secret


def revoke_credential(env: Env, *, client_id: str) -> None:
    """Revoke at once: every token issued from the credential stops working."""
    with env.state.lock:
        credential = env.state.credentials.get(client_id)
        if credential is None:
            raise ApiError(404, "not_found")
        credential.revoked = True
        for key in [k for k, t in env.state.access_tokens.items() if t.client_id == client_id]:
            del env.state.access_tokens[key]
        env.state.touch()


def create_user_token(
    env: Env, *, tenant_id: str, user_id: str | None, token: str | None = None
) -> tuple[str, str]:
    """A user token bound to one tenant and one user (minted if ``user_id`` is None)."""
    value = token or new_secret(USER_TOKEN_PREFIX)
    if user_id is not None and not re.fullmatch(UUID_PATTERN, user_id):
        # User ids appear as ``created_by`` (a Uuid) on the wire.
        raise validation_failed(
            [{"loc": ["body", "user_id"], "msg": "Must be a lower-case UUID", "type": "uuid"}]
        )
    with env.state.lock:
        if tenant_id not in env.state.tenants:
            raise ApiError(404, "not_found")
        uid = user_id or env.ids.new()
        env.state.user_tokens[hash_secret(value)] = UserTokenRec(
            token_hash=hash_secret(value), tenant_id=tenant_id, user_id=uid
        )
        env.state.touch()
    return uid, value


def revoke_user_token(env: Env, *, token: str) -> None:
    with env.state.lock:
        record = env.state.user_tokens.get(hash_secret(token))
        if record is None:
            raise ApiError(404, "not_found")
        record.revoked = True
        env.state.touch()
