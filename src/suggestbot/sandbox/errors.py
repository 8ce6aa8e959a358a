"""Errors the sandbox answers with, always as the contract's ErrorEnvelope.

Handlers raise :class:`ApiError`; the routing layer turns it into a response. Messages are fixed
per code (the contract says clients never parse them) and never carry request data, so no
secret can leak through an error body.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

MESSAGES: dict[str, str] = {
    "validation_error": "The request failed validation.",
    "input_too_long": "steering_text is longer than 4000 characters.",
    "input_rejected": "The input was rejected.",
    "input_invalid_encoding": "The input contains characters that are not text.",
    "image_not_applicable": "The content has no image.",
    "thread_name_empty": "The thread name is empty.",
    "thread_name_too_long": "The thread name is longer than 60 characters or 8 words.",
    "thread_name_not_plain_text": "The thread name contains line breaks or control characters.",
    "rate_limited": "Too many generation runs were created; retry later.",
    "steering_disabled": "Generation from own instructions is switched off for this tenant.",
    "unauthorized": "Missing, unknown or revoked token.",
    "invalid_client": "Unknown, revoked or expired client credentials.",
    "user_token_required": "This operation needs a signed-in user.",
    "not_found": "Not found.",
    "asset_not_found": "An asset reference is unknown.",
    "method_not_allowed": "Method not allowed.",
    "forbidden": "The signed URL is invalid or has expired.",
    "internal_error": "Internal error.",
    "service_unavailable": "The service is temporarily unavailable.",
    "injected_error": "An error injected by the sandbox.",
    # Run failure codes (error.message on a failed run).
    "generation_failed": "Generation failed.",
    "generation_timeout": "Generation ran out of time.",
    "invalid_parent": "The suggestion being refined is no longer the thread's head.",
    "output_rejected": "The generated content failed a safety check.",
}


def message_for(code: str) -> str:
    return MESSAGES.get(code, "The request failed.")


class ApiError(Exception):
    """An error response: HTTP status, code and optional details."""

    def __init__(
        self,
        status: int,
        code: str,
        *,
        details: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(f"{status} {code}")
        self.status = status
        self.code = code
        self.details = details
        self.headers = headers or {}

    def envelope(self, *, extra_entry: bool = False) -> dict[str, Any]:
        entry: dict[str, Any] = {"code": self.code, "message": message_for(self.code)}
        if self.details is not None:
            entry["details"] = self.details
        errors = [entry]
        if extra_entry:
            errors.append({"code": "request_context", "message": "Additional error context."})
        return {"errors": errors}


def validation_failed(failures: list[dict[str, Any]], *, status: int = 422) -> ApiError:
    return ApiError(status, "validation_error", details={"validation": failures})


def failures_from(exc: ValidationError, *, prefix: str) -> list[dict[str, Any]]:
    """Every schema failure of ``exc``, without the input values (they may hold secrets)."""
    return [
        {"loc": [prefix, *err["loc"]], "msg": err["msg"], "type": err["type"]}
        for err in exc.errors(include_url=False, include_input=False, include_context=False)
    ]


def not_found() -> ApiError:
    return ApiError(404, "not_found")
