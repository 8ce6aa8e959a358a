"""Request signing exactly as Slack signs what it sends to an app.

``X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:{timestamp}:{raw body}">`` with the app's
signing secret, and ``X-Slack-Request-Timestamp`` (Slack docs, "Verifying requests from
Slack"). Apps check it with ``slack_sdk.signature.SignatureVerifier``.
"""

from __future__ import annotations

import hashlib
import hmac


def signature(*, signing_secret: str, timestamp: str, body: bytes) -> str:
    base = b"v0:" + timestamp.encode("ascii") + b":" + body
    digest = hmac.new(signing_secret.encode("utf-8"), base, hashlib.sha256).hexdigest()
    return f"v0={digest}"


def signed_headers(*, signing_secret: str, timestamp: int, body: bytes) -> dict[str, str]:
    ts = str(timestamp)
    return {
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": signature(signing_secret=signing_secret, timestamp=ts, body=body),
    }
