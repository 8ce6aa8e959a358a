"""Errors raised by the service client.

Every failure the client reports is a :class:`ContentApiError`. Errors from an HTTP response are
chosen by the envelope's ``code`` first and the status second, so an unknown code becomes the
generic class of its status (as the contract asks) and a known code keeps its class whatever the
status. Each error keeps every ``errors`` entry of the envelope, the first entry's ``details``,
the status and the code.

Tree::

    ContentApiError
    ├── BadRequest                  400
    ├── Unauthorized                401, code ``unauthorized``; the client credential or its token
    │   └── UserTokenRejected       401 while acting as a user (a static token: reconnect)
    ├── Forbidden                   403
    │   ├── SteeringDisabled        ``steering_disabled``
    │   └── UserTokenRequired       ``user_token_required`` (machine token, user-only operation)
    ├── NotFound                    404, ``not_found``
    │   └── AssetNotFound           ``asset_not_found`` (unknown or foreign asset reference)
    ├── Unprocessable               422
    │   ├── ValidationFailed        ``validation_error``; ``.validation`` lists every failure
    │   ├── InputTooLong            ``input_too_long``
    │   ├── InputRejected           ``input_rejected``
    │   ├── InputInvalidEncoding    ``input_invalid_encoding``
    │   ├── ImageNotApplicable      ``image_not_applicable``; ``.field`` names the request field
    │   ├── ThreadNameEmpty         ``thread_name_empty``
    │   ├── ThreadNameTooLong       ``thread_name_too_long``
    │   └── ThreadNameNotPlainText  ``thread_name_not_plain_text``
    ├── RateLimited                 429, ``rate_limited``; ``.retry_after`` in seconds
    ├── ServerError                 5xx
    ├── InvalidResponse             a success whose body does not match the contract
    │   └── UnsupportedSuggestion   a single suggestion of a kind this client cannot show
    ├── TransportError              no usable response (connection refused, reset, ...)
    │   └── Timeout
    └── RunCreationUncertain        run creation sent, answer lost: the run may exist

Any other status gives a plain :class:`ContentApiError`.

Messages are built from the method, the path (never the query string), the status, the code and
the service's fixed developer message. They never contain a token, a secret, a signed URL or a
response body.

Failed runs are not exceptions: their ``error.code`` is reported on the run resource.
:func:`run_failure_advice` maps it to what the app should offer next.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, Final

import httpx
from pydantic import ValidationError

from suggestbot.contentapi import decisions
from suggestbot.contentapi.models import ErrorObject


class ContentApiError(Exception):
    """Root of every error the client raises.

    Attributes:
        status: HTTP status, or None when no response arrived.
        code: the envelope's code that chose this class (None without an envelope).
        message: developer-facing summary; not for end users.
        errors: every entry of the envelope, in order.
        details: ``details`` of the entry that chose this class (empty when absent).
        method, path: the request, for logs (the path never carries a query string).
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        errors: Sequence[ErrorObject] = (),
        details: Mapping[str, Any] | None = None,
        method: str | None = None,
        path: str | None = None,
    ) -> None:
        self.message = message
        self.status = status
        self.code = code
        self.errors = list(errors)
        self.details: dict[str, Any] = dict(details or {})
        self.method = method
        self.path = path
        super().__init__(self._describe())

    def _describe(self) -> str:
        parts = [f"{self.method} {self.path}"] if self.method and self.path else []
        status_and_code = " ".join(
            part for part in (None if self.status is None else str(self.status), self.code) if part
        )
        if status_and_code:
            parts.append(status_and_code)
        return ": ".join([*parts, self.message])


class BadRequest(ContentApiError):
    """400: validation failure on the ``/auth`` endpoints (OAuth convention)."""


class Unauthorized(ContentApiError):
    """401: the credential or its token was rejected, even after one fresh token."""


class UserTokenRejected(Unauthorized):
    """401 while acting as a user. No refresh exists: the user must connect again."""


class Forbidden(ContentApiError):
    """403 with a code this client does not know."""


class SteeringDisabled(Forbidden):
    """Generation from own instructions is switched off for the tenant."""


class UserTokenRequired(Forbidden):
    """A machine token was used on a user-only operation (run creation, rename)."""


class NotFound(ContentApiError):
    """404: unknown, or not visible to the caller (the service never says which)."""


class AssetNotFound(NotFound):
    """An asset reference that is unknown or owned by another tenant; the whole mint failed."""


class Unprocessable(ContentApiError):
    """422 with a code this client does not know."""


class ValidationFailed(Unprocessable):
    """Schema failure. ``validation`` holds every failure the service listed."""

    @property
    def validation(self) -> list[Any]:
        """The service's per-field validation items (empty when it gave none)."""
        items = self.details.get("validation")
        return list(items) if isinstance(items, list) else []


class InputTooLong(Unprocessable):
    """The brief is over 4000 characters."""


class InputRejected(Unprocessable):
    """The brief is empty once trimmed, or a safety check refused it."""


class InputInvalidEncoding(Unprocessable):
    """The brief holds non-text input."""


class ImageNotApplicable(Unprocessable):
    """``image`` was sent while refining content without an image."""

    @property
    def field(self) -> str | None:
        """The request field the service named in the error's details, if any."""
        value = self.details.get("field")
        return value if isinstance(value, str) else None


class ThreadNameEmpty(Unprocessable):
    """The name is empty once trimmed."""


class ThreadNameTooLong(Unprocessable):
    """The name is over 60 characters or 8 words once normalised."""


class ThreadNameNotPlainText(Unprocessable):
    """The name holds line breaks or other control characters."""


class RateLimited(ContentApiError):
    """429: run creation too fast. Wait ``retry_after`` seconds before trying again."""

    def __init__(self, message: str, *, retry_after: float, **kwargs: Any) -> None:
        self.retry_after = retry_after
        super().__init__(message, **kwargs)


class ServerError(ContentApiError):
    """5xx, after the retries allowed for the request (none for run creation)."""


class InvalidResponse(ContentApiError):
    """A success response whose body does not match the contract."""


def invalid_response(message: str, response: httpx.Response) -> InvalidResponse:
    """An InvalidResponse naming the request that got ``response``."""
    return InvalidResponse(
        message,
        status=response.status_code,
        method=response.request.method,
        path=response.request.url.path,
    )


class UnsupportedSuggestion(InvalidResponse):
    """A suggestion this client cannot show (new kind or new asset-reference prefix)."""

    def __init__(self, message: str, *, kind: str, reason: str, **kwargs: Any) -> None:
        self.kind = kind
        self.reason = reason
        super().__init__(message, **kwargs)


class TransportError(ContentApiError):
    """No usable response arrived. Safe to repeat for reads; see RunCreationUncertain."""


class Timeout(TransportError):
    """The service did not answer in time."""


class RunCreationUncertain(ContentApiError):
    """Run creation was sent but its answer was lost: the run may or may not exist.

    Never resend blindly. List the user's runs (newest first) and look for the request before
    offering to submit again.
    """


_CLASS_BY_CODE: Final[dict[str, type[ContentApiError]]] = {
    "validation_error": ValidationFailed,
    "input_too_long": InputTooLong,
    "input_rejected": InputRejected,
    "input_invalid_encoding": InputInvalidEncoding,
    "image_not_applicable": ImageNotApplicable,
    "thread_name_empty": ThreadNameEmpty,
    "thread_name_too_long": ThreadNameTooLong,
    "thread_name_not_plain_text": ThreadNameNotPlainText,
    "rate_limited": RateLimited,
    "steering_disabled": SteeringDisabled,
    decisions.UNAUTHORIZED_CODE: Unauthorized,
    decisions.USER_TOKEN_REQUIRED_CODE: UserTokenRequired,
    decisions.NOT_FOUND_CODE: NotFound,
    decisions.ASSET_NOT_FOUND_CODE: AssetNotFound,
}

_CLASS_BY_STATUS: Final[dict[int, type[ContentApiError]]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    422: Unprocessable,
    429: RateLimited,
}


def _class_for_status(status: int) -> type[ContentApiError]:
    if status >= 500:
        return ServerError
    return _CLASS_BY_STATUS.get(status, ContentApiError)


def read_envelope(response: httpx.Response) -> list[ErrorObject]:
    """The ``errors`` entries of an error body; empty when the body is not an envelope.

    Entries that are not objects with a string ``code`` are dropped; the rest are kept in order.
    """
    try:
        body = response.json()
    except ValueError:
        return []
    raw_errors = body.get("errors") if isinstance(body, dict) else None
    if not isinstance(raw_errors, list):
        return []
    entries: list[ErrorObject] = []
    for raw in raw_errors:
        try:
            entries.append(ErrorObject.model_validate(raw))
        except ValidationError:
            continue
    return entries


def error_from_response(
    response: httpx.Response,
    *,
    retry_after: float,
    unauthorized_class: type[Unauthorized] = Unauthorized,
) -> ContentApiError:
    """Build the error for a failed response.

    Args:
        response: a response with a 4xx or 5xx status (body already read).
        retry_after: seconds to report if the error is RateLimited (from ``retry.py``).
        unauthorized_class: what a 401 becomes; UserTokenRejected when acting as a user.

    Returns:
        The most specific class: the first entry whose code is known picks it (entries are not
        assumed to be one), otherwise the status does.
    """
    status = response.status_code
    entries = read_envelope(response)
    primary = next(
        (e for e in entries if e.code in _CLASS_BY_CODE), entries[0] if entries else None
    )
    if primary is not None and primary.code in _CLASS_BY_CODE:
        cls = _CLASS_BY_CODE[primary.code]
    else:
        cls = _class_for_status(status)
    if status == 401 and issubclass(unauthorized_class, cls):
        cls = unauthorized_class
    if primary is not None:
        message = primary.message or "(no message)"
    else:
        content_type = response.headers.get("content-type", "no content type")
        message = (
            f"HTTP {status} without an error envelope "
            f"({content_type}, {len(response.content)} bytes)"
        )
    kwargs: dict[str, Any] = {
        "status": status,
        "code": primary.code if primary is not None else None,
        "errors": entries,
        "details": primary.details if primary is not None else None,
        "method": response.request.method,
        "path": response.request.url.path,
    }
    if issubclass(cls, RateLimited):
        return cls(message, retry_after=retry_after, **kwargs)
    return cls(message, **kwargs)


def describe_validation_error(exc: ValidationError, *, limit: int = 5) -> str:
    """Where a response failed validation, without any input value (inputs may be secrets)."""
    problems = [
        f"{'.'.join(str(part) for part in err['loc']) or '(body)'}: {err['msg']}"
        for err in exc.errors(include_url=False, include_context=False, include_input=False)
    ]
    more = f" (+{len(problems) - limit} more)" if len(problems) > limit else ""
    return "; ".join(problems[:limit]) + more


class RunFailureAction(StrEnum):
    """What to offer after a run failed, by ``error.code`` (contract section 7)."""

    RETRY = "retry"  # generation_failed: retry as submitted
    RETRY_SHORTER = "retry_shorter"  # generation_timeout: retry; suggest a shorter brief
    STOP = "stop"  # steering_disabled: stop retrying
    REREAD_THREAD = "reread_thread"  # invalid_parent: refine the thread's current head
    RESEND_WITHOUT_IMAGE = "resend_without_image"  # image_not_applicable
    REWORD = "reword"  # output_rejected: do not retry unchanged
    UNKNOWN = "unknown"  # a code added later: a generic failure


_ADVICE: Final[dict[str, RunFailureAction]] = {
    "generation_failed": RunFailureAction.RETRY,
    "generation_timeout": RunFailureAction.RETRY_SHORTER,
    "steering_disabled": RunFailureAction.STOP,
    "invalid_parent": RunFailureAction.REREAD_THREAD,
    "image_not_applicable": RunFailureAction.RESEND_WITHOUT_IMAGE,
    "output_rejected": RunFailureAction.REWORD,
}


def run_failure_advice(code: str | None) -> RunFailureAction:
    """What to offer for a failed run's ``error.code``; UNKNOWN for codes added later."""
    if code is None:
        return RunFailureAction.UNKNOWN
    return _ADVICE.get(code, RunFailureAction.UNKNOWN)
