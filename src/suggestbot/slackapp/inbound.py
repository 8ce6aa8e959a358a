"""The gate in front of Bolt for HTTP mode: size, signature and shape, in that order.

Anyone on the internet can POST to ``/slack/events``, so nothing about a request is trusted
until its signature has been checked on the raw bytes, and nothing is parsed before that:

1. **Size.** A body over :data:`MAX_BODY_BYTES` is refused with 413 — at once when
   ``Content-Length`` says so, else as soon as the streamed bytes pass the limit, so an unsigned
   5 MB body is never held in memory whole.
2. **Signature and timestamp** (Slack's ``v0`` scheme, five minutes either way): anything
   missing, non-numeric, stale or not matching is 401.
3. **Shape.** Only a signed body is decoded and parsed; a signed body that is not UTF-8, not
   JSON or not a form with a JSON ``payload`` is 400.

Each refusal is one WARNING line naming the reason, never the body, never a traceback.

Why 2 MiB: Slack's largest deliveries are far smaller. The biggest Events API callback is a
``message_changed`` event of a 40,000-character message — the text and its ``rich_text``
blocks for both the message and ``previous_message``, four copies, at most 6 bytes per
character once JSON-escaped: about 1 MB; ``files``/``attachments`` add a few KB. The biggest
interactive payload the app can receive is a view submission of its brief modal (3,000
characters, echoed in ``blocks`` and in ``state``, 16 bytes per emoji once escaped and
form-encoded: under 100 KB); Slack caps any view at 100 blocks. 2 MiB leaves room over the
worst real case while keeping what one forged request can make the app read small.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from starlette.requests import Request

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 2 * 1024 * 1024
# Slack refuses to deliver a request older than this, and so does the app (replays).
MAX_CLOCK_SKEW_S = 5 * 60
_TIMESTAMP = re.compile(r"[0-9]{1,12}")
_JSON_TYPE = "application/json"


class Refused(Exception):
    """A request the gate does not pass to Bolt: the HTTP status and why (for the log)."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass(frozen=True)
class Admitted:
    """A signed, well-formed request: its text exactly as signed, and that text parsed."""

    text: str
    body: dict[str, Any]


async def read_capped(request: Request, *, limit: int = MAX_BODY_BYTES) -> bytes:
    """The request body, refused with 413 once it is (or says it will be) over ``limit``."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise Refused(400, "Content-Length is not a number")
        if int(declared) > limit:
            raise Refused(413, f"body of {int(declared)} bytes declared, over the limit")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise Refused(413, f"body over {limit} bytes while reading")
        chunks.append(chunk)
    return b"".join(chunks)


def check_signature(
    raw: bytes,
    headers: Mapping[str, str],
    *,
    signing_secret: str,
    clock: Callable[[], float] = time.time,
) -> None:
    """Raise :class:`Refused` (401) unless ``raw`` carries Slack's valid, fresh signature."""
    timestamp = headers.get("x-slack-request-timestamp")
    signature = headers.get("x-slack-signature")
    if not timestamp or not signature:
        raise Refused(401, "no signature or timestamp header")
    if not _TIMESTAMP.fullmatch(timestamp):
        raise Refused(401, "timestamp is not a number")
    skew = abs(clock() - int(timestamp))
    if skew > MAX_CLOCK_SKEW_S:
        raise Refused(401, f"timestamp {int(skew)} s away from now")
    # On the bytes as received: slack_sdk's verifier decodes them as UTF-8 first, which fails
    # (with a traceback) on the bytes of a forgery that are not text.
    base = b"v0:" + timestamp.encode("ascii") + b":" + raw
    digest = hmac.new(signing_secret.encode("utf-8"), base, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(
        f"v0={digest}".encode("ascii"), signature.encode("utf-8", "replace")
    ):
        raise Refused(401, "signature does not match")


def parse_slack_body(text: str, *, content_type: str | None) -> dict[str, Any]:
    """Slack's body as a dict, read by what it is rather than by what its text contains.

    Events API callbacks (and URL verification) are JSON; interactive requests are a form with
    one field, ``payload``, holding JSON; slash commands are plain form fields — whatever their
    values say (a command's text may well contain the word "payload").

    Raises:
        Refused: (400) when the body is none of those.
    """
    media = (content_type or "").split(";")[0].strip().lower()
    if media == _JSON_TYPE or text.lstrip().startswith("{"):
        return _json_object(text, what="JSON body")
    form = dict(parse_qsl(text, keep_blank_values=True))
    if "payload" in form:
        return _json_object(form["payload"], what="payload field")
    return form


def _json_object(text: str, *, what: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        raise Refused(400, f"{what} is not JSON") from None
    except RecursionError:
        raise Refused(400, f"{what} is nested too deeply") from None
    if not isinstance(value, dict):
        raise Refused(400, f"{what} is not a JSON object")
    return value


async def admit(request: Request, *, signing_secret: str) -> Admitted:
    """Read, verify and parse a request to ``/slack/events``, or raise :class:`Refused`."""
    raw = await read_capped(request)
    check_signature(raw, request.headers, signing_secret=signing_secret)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(400, "body is not UTF-8") from None
    return Admitted(text, parse_slack_body(text, content_type=request.headers.get("content-type")))


def log_refusal(request: Request, refused: Refused) -> None:
    """One line per refused request: what was wrong and where it came from, not the body."""
    client = request.client.host if request.client else "unknown"
    log.warning(
        "refused a request to %s from %s with HTTP %d: %s",
        request.url.path,
        client,
        refused.status,
        refused.reason,
    )
