"""The OAuth ``state`` parameter: signed with ``SLACK_STATE_SECRET`` and good once.

Bolt sends every install through Slack with a fresh ``state`` (also set as a cookie in the
installing browser) and accepts the way back only if the state is one it issued and the same
browser brings it. This store issues and consumes them, choosing both known ways at once:

- **signed**: a state is ``nonce.expiry.signature``, an HMAC-SHA256 of the rest under
  ``SLACK_STATE_SECRET``. A forged or altered state, or one past its expiry, is refused
  before anything is looked up;
- **kept in the app's store until used**: consuming deletes it atomically, so a state works
  once (a replayed callback is refused) and survives a restart between install and callback.

A signature alone would let a state be replayed until it expires; the store alone would
trust whatever is in it. Neither the state nor the secret is logged.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import time
from collections.abc import Callable

from slack_sdk.oauth.state_store import OAuthStateStore

from suggestbot.store import Store
from suggestbot.store.records import Records
from suggestbot.store.workspaces import OAuthState

log = logging.getLogger(__name__)

DEFAULT_EXPIRATION_S = 600


class SignedStateStore(OAuthStateStore):
    """slack_sdk's ``OAuthStateStore``: issue a state, consume it once.

    Args:
        store: where issued states wait to be used.
        secret: ``SLACK_STATE_SECRET``.
        expiration_seconds: how long a person has to approve the install.
        clock: epoch seconds; tests pass a fake one.
    """

    def __init__(
        self,
        store: Store,
        *,
        secret: str,
        expiration_seconds: int = DEFAULT_EXPIRATION_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not secret:
            raise ValueError("SLACK_STATE_SECRET is needed to sign OAuth states")
        self._states = Records(store).oauth_states
        self._key = secret.encode("utf-8")
        self.expiration_seconds = expiration_seconds
        self._clock = clock

    def __repr__(self) -> str:
        return f"SignedStateStore(expiration_seconds={self.expiration_seconds})"

    @property
    def logger(self) -> logging.Logger:
        return log

    def _sign(self, payload: str) -> str:
        return hmac.new(self._key, payload.encode("ascii"), hashlib.sha256).hexdigest()

    def issue(self, *args: object, **kwargs: object) -> str:
        now = self._clock()
        self._forget_expired(now)
        nonce = secrets.token_urlsafe(24)
        payload = f"{nonce}.{int(now + self.expiration_seconds)}"
        self._states.put(nonce, OAuthState(expires_at=now + self.expiration_seconds))
        return f"{payload}.{self._sign(payload)}"

    def consume(self, state: str) -> bool:
        nonce, expires, signature = _parts(state)
        if nonce is None:
            log.warning("refused an OAuth callback: its state is malformed")
            return False
        if not hmac.compare_digest(signature, self._sign(f"{nonce}.{expires}")):
            log.warning("refused an OAuth callback: its state is not signed by this app")
            return False
        was_issued = self._states.delete(nonce)
        if not was_issued:
            log.warning("refused an OAuth callback: its state was used already or never issued")
            return False
        if int(expires) < self._clock():
            log.warning("refused an OAuth callback: its state expired")
            return False
        return True

    def _forget_expired(self, now: float) -> None:
        for nonce, issued in self._states.items():
            if issued.expires_at < now:
                self._states.delete(nonce)


def _parts(state: str | None) -> tuple[str | None, str, str]:
    pieces = (state or "").split(".")
    if len(pieces) != 3 or not all(pieces) or not pieces[1].isdigit():
        return None, "", ""
    return pieces[0], pieces[1], pieces[2]
