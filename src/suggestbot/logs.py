"""Logging set-up that keeps secrets out of every log line.

The app handles Slack tokens, the service's client secret and access tokens, users' personal
tokens and signed image URLs (whose query string is the credential). Libraries log some of them
at DEBUG (``slack_sdk`` prints response bodies, ``httpx`` prints full URLs), so redaction is
done once, centrally: :func:`configure_logging` puts a :class:`RedactingFilter` on the root
handlers, which every propagating logger reaches, and the filter rewrites the fully formatted
message, the exception text and string ``extra`` fields before any handler formats them.

Two layers of redaction (see :class:`Redactor`): exact values the app registers as it learns
them, and patterns for what is recognisable by shape.
"""

from __future__ import annotations

import json as jsonlib
import logging
import re
import sys
import threading
import time
from collections.abc import Mapping
from typing import Any, TextIO
from urllib.parse import quote

REDACTED = "[redacted]"
MIN_SECRET_LENGTH = 8
"""Shorter registered values are ignored: redacting every "12345" would garble the logs."""

# Keys whose value is a secret in form bodies, query strings, JSON and Python reprs:
# client_secret, access_token, refresh_token, token, SUGGESTBOT_SECRET_KEYS, password, ...
# but not token_type or tokens_revoked. Slack's short-lived credentials too: a response_url
# lets anyone post into a channel for 30 minutes, a trigger_id (and the interactivity_pointer
# that replaces it in newer payloads) opens a modal in a user's face.
_KEY = (
    r"(?i:[a-z_]*(?:token|secret)s?(?:_keys?)?|password|passwd|authorization"
    r"|response_urls?|trigger_id|interactivity_pointer)"
)
# Slack's webhook paths (response_url: /commands/, /actions/, /app/; incoming webhooks:
# /services/), on hooks.slack.com or any host's /hooks/, with plain, escaped (JSON's "\/")
# or URL-encoded slashes: found by shape wherever no key names them (a request line).
_HOOK_SEP = r"(?:/|\\/|%2[Ff])"
# trigger_id / interactivity_pointer and OAuth codes: "<digits>.<digits or hex>.<hex>".
_TRIGGER = r"\b\d{6,}\.[0-9a-f]{4,}\.[0-9a-f]{16,}\b"
# An unquoted value ends where form fields, JSON and reprs end a value.
_BARE_VALUE = r"(?!\[redacted\])(?![\[{])[^\s&\"',;)}\]\\]+"
# After `key=` a comma does not end the value: SUGGESTBOT_SECRET_KEYS=new,old.
_ASSIGNED_VALUE = r"(?!\[redacted\])(?![\[{])[^\s&\"';)}\]\\]+"
# Quotes may themselves be escaped (JSON text inside a JSON or repr string): \"token\": \"...\".
_QUOTED_VALUE = r"(?P<vq>\\?[\"'])(?:(?!(?P=vq))(?:\\.|.))*(?P=vq)"

_PATTERNS = re.compile(
    "|".join(
        [
            # A URL with a query string: signed URLs carry their credential there.
            r"(?P<url>\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s?#\"'<>]+)\?[^\s#\"'<>()\[\]{}\\|^`]+",
            # "client_secret": "..." / 'token': '...' (JSON and Python reprs).
            rf"(?P<qkey>(?P<kq>\\?[\"']){_KEY}(?P=kq)\s*:\s*)(?:{_QUOTED_VALUE}|{_BARE_VALUE})",
            # client_secret=... / token="..." (form bodies, query strings, keyword reprs).
            rf"(?P<akey>(?<![A-Za-z0-9_]){_KEY}\s*=\s*)(?:(?P<aq>[\"'])(?:(?!(?P=aq))(?:\\.|.))*(?P=aq)"
            rf"|{_ASSIGNED_VALUE})",
            # Authorization: Basic ... (Bearer is handled below).
            r"(?P<scheme>(?i:\bauthorization\s*:\s*)(?!(?i:bearer)\b)[A-Za-z]+\s+)[^\s\"',;}\]\\]+",
            r"(?P<bearer>(?i:\bbearer)\s+)(?!\[redacted\])[^\s\"',;}\]\\]+",
            rf"(?P<hook>(?:\b|(?<=%2[Ff]))hooks(?:\.slack(?:-gov)?\.com)?){_HOOK_SEP}"
            rf"(?:commands|actions|app|services|workflows|triggers){_HOOK_SEP}"
            r"(?:[A-Za-z0-9._~/-]|\\/|%(?!2[2Cc])[0-9A-Fa-f]{2})+",
            _TRIGGER,
            # Slack tokens and the sandbox's tokens and secrets.
            r"xox[abposre]-[A-Za-z0-9-]+",
            r"xapp-[A-Za-z0-9-]+",
            r"xwfp-[A-Za-z0-9-]+",  # a workflow step's token (function_executed)
            r"sbx_(?:at|ut|cs)_[A-Za-z0-9_-]+",
        ]
    )
)


def _replace(match: re.Match[str]) -> str:
    groups = match.groupdict()
    if groups["url"] is not None:
        return f"{groups['url']}?<redacted>"
    if groups["qkey"] is not None:
        quote_char = groups["vq"] or ""
        return f"{groups['qkey']}{quote_char}{REDACTED}{quote_char}"
    if groups["akey"] is not None:
        quote_char = groups["aq"] or ""
        return f"{groups['akey']}{quote_char}{REDACTED}{quote_char}"
    if groups["hook"] is not None:
        return f"{groups['hook']}/{REDACTED}"
    for prefix in ("scheme", "bearer"):
        if groups[prefix] is not None:
            return f"{groups[prefix]}{REDACTED}"
    return REDACTED


class Redactor:
    """Replaces secrets in text: registered values first, then recognisable shapes.

    Registered values go first because they are known for certain and may sit where no pattern
    looks (inside a URL path, a free-text error message).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._secrets: set[str] = set()
        self._secrets_pattern: re.Pattern[str] | None = None

    def __repr__(self) -> str:
        return f"Redactor(secrets={len(self._secrets)})"

    def register_secret(self, value: str) -> None:
        """Redact ``value`` (and its URL-encoded form) from now on; short values are ignored."""
        if not isinstance(value, str) or len(value) < MIN_SECRET_LENGTH:
            return
        variants = {value, quote(value, safe="")}
        with self._lock:
            if variants <= self._secrets:
                return
            self._secrets |= variants
            # Longest first, so a secret that contains another is replaced whole.
            ordered = sorted(self._secrets, key=len, reverse=True)
            self._secrets_pattern = re.compile("|".join(map(re.escape, ordered)))

    def redact(self, text: str) -> str:
        """Return ``text`` with every secret it contains replaced."""
        secrets_pattern = self._secrets_pattern
        if secrets_pattern is not None:
            text = secrets_pattern.sub(REDACTED, text)
        return _PATTERNS.sub(_replace, text)

    def redact_value(self, value: Any) -> Any:
        """Redact the strings inside a structured ``extra`` value (dicts, lists, tuples)."""
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, Mapping):
            return {
                key: REDACTED
                if isinstance(key, str) and re.fullmatch(_KEY, key) and item
                else self.redact_value(item)
                for key, item in value.items()
            }
        if isinstance(value, list | tuple):
            return [self.redact_value(item) for item in value]
        return value


_REDACTOR = Redactor()


def register_secret(value: str) -> None:
    """Register a token or secret the app learned, process-wide (see :class:`Redactor`)."""
    _REDACTOR.register_secret(value)


def redact(text: str) -> str:
    """Redact ``text`` with the process-wide registry, e.g. an error message shown to a user."""
    return _REDACTOR.redact(text)


# Attributes every LogRecord has; anything else on a record came from `extra=`.
_STANDARD_ATTRS = frozenset(
    vars(logging.LogRecord("", 0, "", 0, "", None, None)).keys() | {"message", "asctime"}
)


def _extra_keys(record: logging.LogRecord) -> list[str]:
    return [key for key in vars(record) if key not in _STANDARD_ATTRS and not key.startswith("_")]


class RedactingFilter(logging.Filter):
    """Rewrites a record so that no handler can output a secret; never drops a record.

    It merges the ``%`` arguments into the message first (a token passed as an argument is as
    dangerous as one in the format string), and replaces the exception by its redacted text,
    because the exception's own message may quote a token.
    """

    def __init__(self, redactor: Redactor | None = None) -> None:
        super().__init__()
        self._redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "_redacted", False):
            return True
        redactor = self._redactor or _REDACTOR
        try:
            message = record.getMessage()
        except Exception:
            # A bad format call: keep what can be shown instead of letting logging print the
            # raw arguments to stderr.
            message = f"{record.msg} (unformattable log arguments)"
        record.msg = redactor.redact(message)
        record.args = None
        if record.exc_info:
            text = record.exc_text or logging.Formatter().formatException(record.exc_info)
            record.exc_info = None
            record.exc_text = redactor.redact(text)
        elif record.exc_text:
            record.exc_text = redactor.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redactor.redact(record.stack_info)
        for key in _extra_keys(record):
            setattr(record, key, redactor.redact_value(getattr(record, key)))
        setattr(record, "_redacted", True)  # noqa: B010 - LogRecord declares no such field
        return True


class _UTCFormatter(logging.Formatter):
    converter = staticmethod(time.gmtime)
    default_time_format = "%Y-%m-%dT%H:%M:%S"
    default_msec_format = "%s.%03dZ"


class TextFormatter(_UTCFormatter):
    """``ts LEVEL logger: message``, one line per event (newlines escaped for log collectors)."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        return super().format(record).replace("\n", "\\n")


class JsonFormatter(_UTCFormatter):
    """One JSON object per line: ts, level, logger, message, the ``extra`` keys, exception."""

    def format(self, record: logging.LogRecord) -> str:
        payload: dict[str, Any] = {key: getattr(record, key) for key in _extra_keys(record)}
        payload.update(
            ts=self.formatTime(record),
            level=record.levelname,
            logger=record.name,
            message=record.getMessage(),
        )
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            payload["exception"] = record.exc_text
        if record.stack_info:
            payload["stack"] = record.stack_info
        return jsonlib.dumps(
            payload, ensure_ascii=False, skipkeys=True, default=lambda value: redact(str(value))
        )


_UVICORN_ERROR_LOGGERS = ("uvicorn", "uvicorn.error")
_NON_PROPAGATING = (*_UVICORN_ERROR_LOGGERS, "uvicorn.access")


def _add_filter(target: logging.Filterer) -> None:
    if not any(isinstance(existing, RedactingFilter) for existing in target.filters):
        target.addFilter(RedactingFilter())


class _AppHandler(logging.StreamHandler[TextIO]):
    """Marks the handler :func:`configure_logging` owns, so a second call replaces it."""


def configure_logging(
    *, level: str = "INFO", json: bool = False, stream: TextIO | None = None
) -> None:
    """Send every logger's records, redacted, to ``stream`` (stderr) one line per event.

    Args:
        level: root level name, e.g. ``"DEBUG"``.
        json: emit JSON lines (for log collectors) instead of text.
        stream: where to write; for tests and embedding.

    Loggers that do not propagate to the root keep their own handlers and are not covered.
    uvicorn's default logging config makes its loggers such loggers; they are handed back to
    the root here, and servers started later should pass ``log_config=None`` to uvicorn so
    that it does not take them again.
    """
    for name in _NON_PROPAGATING:
        logger = logging.getLogger(name)
        for own in list(logger.handlers):
            logger.removeHandler(own)
        logger.propagate = True
    # A logger's own filters survive uvicorn re-applying its config, so its error log (where
    # an app exception's traceback goes) stays redacted even then. Not on uvicorn.access: its
    # formatter needs the raw arguments, and its lines carry only the client and the path.
    for name in _UVICORN_ERROR_LOGGERS:
        _add_filter(logging.getLogger(name))
    root = logging.getLogger()
    for handler in list(root.handlers):
        if isinstance(handler, _AppHandler):
            root.removeHandler(handler)
            handler.close()
    handler = _AppHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(JsonFormatter() if json else TextFormatter())
    root.addHandler(handler)
    for each in root.handlers:
        _add_filter(each)
    root.setLevel(level.upper())
