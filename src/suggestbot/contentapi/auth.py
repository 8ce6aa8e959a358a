"""Authentication as ``httpx.Auth`` flows: the machine credential and a user's token.

:class:`ClientCredentialsAuth` exchanges the client credential for an access token at
``POST /auth/token`` (form-encoded) through the same HTTP client, caches it and re-exchanges
before it runs out:

- the token is used until ``expires_in`` minus ``margin_s`` (at least 60 s, as the contract
  asks) has passed, counted from when the exchange was sent, since the service counts from
  issue. ``expires_in`` is read every time, never assumed to be 900;
- a lifetime no longer than the margin (near the credential's own expiry) cannot honour the
  margin. Such a token is used for half its lifetime, then exchanged again: still well before
  expiry, and without exchanging on every request;
- one exchange at a time: a lock is held around the exchange, so however many threads find the
  token missing or stale, one exchanges and the others use its result;
- a 401 means the token was revoked or expired early: one new exchange (unless another thread
  already replaced that token) and one resend of the request. A second 401 is returned to the
  client, which raises ``Unauthorized``.

:class:`UserTokenAuth` sends a user's static token. No refresh exists for it, so a 401 is
returned as is and the client raises ``UserTokenRejected``.

Neither class shows a secret or a token in ``repr()``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Generator
from typing import Final

import httpx
from pydantic import SecretStr, ValidationError

from suggestbot.contentapi.errors import (
    describe_validation_error,
    error_from_response,
    invalid_response,
)
from suggestbot.contentapi.models import TokenResponse
from suggestbot.contentapi.retry import DEFAULT_RETRY_AFTER_S

logger = logging.getLogger(__name__)

TOKEN_PATH: Final = "/auth/token"
MIN_MARGIN_S: Final = 60.0
# Share of a lifetime no longer than the margin after which such a token is replaced.
SHORT_LIFETIME_USE_FRACTION: Final = 0.5


class ClientCredentialsAuth(httpx.Auth):
    """Bearer tokens from the OAuth client-credentials grant, cached and refreshed.

    Synchronous clients only: the exchange is serialised with a thread lock.

    Args:
        token_url: absolute URL of ``POST /auth/token``.
        client_id, client_secret: the machine credential of one tenant.
        margin_s: re-exchange this long before expiry; at least 60.
        clock: monotonic seconds; inject a fake one in tests.
    """

    def __init__(
        self,
        token_url: str,
        client_id: str,
        client_secret: str,
        *,
        margin_s: float = MIN_MARGIN_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if margin_s < MIN_MARGIN_S:
            raise ValueError(f"margin_s must be at least {MIN_MARGIN_S:g} seconds")
        self._token_url = token_url
        self._client_id = client_id
        self._client_secret = SecretStr(client_secret)
        self._margin_s = margin_s
        self._clock = clock
        self._lock = threading.Lock()
        self._token: SecretStr | None = None
        self._replace_at = 0.0
        self._exchanges = 0

    @classmethod
    def for_base_url(
        cls,
        base_url: str,
        client_id: str,
        client_secret: str,
        *,
        margin_s: float = MIN_MARGIN_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> ClientCredentialsAuth:
        """The same, with the token URL derived from the service's base address."""
        return cls(
            base_url.rstrip("/") + TOKEN_PATH,
            client_id,
            client_secret,
            margin_s=margin_s,
            clock=clock,
        )

    @property
    def exchange_count(self) -> int:
        """How many token exchanges were sent so far (for tests and benchmarks)."""
        return self._exchanges

    def invalidate(self) -> None:
        """Forget the cached token; the next request exchanges again."""
        with self._lock:
            self._token = None

    def __repr__(self) -> str:
        return (
            f"ClientCredentialsAuth(token_url={self._token_url!r}, client_id={self._client_id!r})"
        )

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        """Not supported: this auth exchanges credentials with blocking calls.

        Raises:
            RuntimeError: always (use a synchronous ``httpx.Client``).
        """
        raise RuntimeError("ClientCredentialsAuth works with a synchronous httpx.Client only")

    def sync_auth_flow(
        self, request: httpx.Request
    ) -> Generator[httpx.Request, httpx.Response, None]:
        """Send with a valid machine token; after a 401, exchange the credential once more and
        resend once.
        """
        token = yield from self._valid_token(request, rejected=None)
        request.headers["Authorization"] = f"Bearer {token.get_secret_value()}"
        response = yield request
        if response.status_code != 401:
            return
        logger.info("Request rejected with 401; exchanging the credential once more and resending")
        response.read()
        token = yield from self._valid_token(request, rejected=token)
        request.headers["Authorization"] = f"Bearer {token.get_secret_value()}"
        yield request

    def _valid_token(
        self, request: httpx.Request, *, rejected: SecretStr | None
    ) -> Generator[httpx.Request, httpx.Response, SecretStr]:
        # The lock is held across the exchange's round trip: the thread that holds it is the one
        # running this generator, and httpx closes the generator (releasing the lock) on error.
        with self._lock:
            cached = self._token
            # Reuse the cached token unless it is due for replacement or is the one just rejected
            # (after a 401, another request may already have replaced it: then no new exchange).
            if cached is not None and cached != rejected and self._clock() < self._replace_at:
                return cached
            self._token = None
            sent_at = self._clock()
            self._exchanges += 1
            response = yield self._exchange_request(request)
            response.read()
            token_response = self._read_token_response(response)
            self._token = token_response.access_token
            self._replace_at = sent_at + self._usable_for(token_response.expires_in)
            return self._token

    def _usable_for(self, expires_in: int) -> float:
        lifetime = float(max(0, expires_in))
        if lifetime > self._margin_s:
            return lifetime - self._margin_s
        return lifetime * SHORT_LIFETIME_USE_FRACTION

    def _exchange_request(self, original: httpx.Request) -> httpx.Request:
        # A request yielded from an auth flow skips the client's defaults: carry the timeout over
        # so an exchange can never wait forever.
        extensions = {}
        if "timeout" in original.extensions:
            extensions["timeout"] = original.extensions["timeout"]
        return httpx.Request(
            "POST",
            self._token_url,
            data={
                "grant_type": "client_credentials",
                "client_id": self._client_id,
                "client_secret": self._client_secret.get_secret_value(),
            },
            headers={"Accept": "application/json"},
            extensions=extensions,
        )

    def _read_token_response(self, response: httpx.Response) -> TokenResponse:
        if response.status_code != 200:
            error = error_from_response(response, retry_after=DEFAULT_RETRY_AFTER_S)
            logger.warning("Credential exchange failed: %s", error)
            raise error
        try:
            token_response = TokenResponse.model_validate_json(response.content)
        except ValidationError as exc:
            raise invalid_response(
                f"token response does not match the contract: {describe_validation_error(exc)}",
                response,
            ) from None
        if token_response.token_type.lower() != "bearer":
            raise invalid_response(
                f"token type {token_response.token_type!r} is not Bearer", response
            )
        return token_response


class UserTokenAuth(httpx.Auth):
    """A signed-in user's static bearer token. A 401 is final: the user must reconnect."""

    def __init__(self, token: str) -> None:
        self._token = SecretStr(token)

    def __repr__(self) -> str:
        return "UserTokenAuth(token='**********')"

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        """Send with the user's own token; a 401 is the caller's to handle (revoked token)."""
        request.headers["Authorization"] = f"Bearer {self._token.get_secret_value()}"
        yield request
