"""Error bodies become the right class, keep everything, and never leak secrets."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from contentapi_fakes import BASE_URL

from suggestbot.contentapi import (
    AssetNotFound,
    BadRequest,
    ContentApiError,
    Forbidden,
    ImageNotApplicable,
    InputInvalidEncoding,
    InputRejected,
    InputTooLong,
    NotFound,
    RateLimited,
    RunFailureAction,
    ServerError,
    SteeringDisabled,
    ThreadNameEmpty,
    ThreadNameNotPlainText,
    ThreadNameTooLong,
    Unauthorized,
    Unprocessable,
    UserTokenRejected,
    UserTokenRequired,
    ValidationFailed,
    decisions,
    run_failure_advice,
)
from suggestbot.contentapi.errors import error_from_response


def _response(
    status: int, body: Any = None, *, content: bytes | None = None, headers: Any = None
) -> httpx.Response:
    request = httpx.Request("POST", f"{BASE_URL}/v1/generation-runs?cursor=abc")
    if content is not None:
        return httpx.Response(status, content=content, headers=headers, request=request)
    return httpx.Response(status, json=body, headers=headers, request=request)


def _error(status: int, body: Any = None, **kwargs: Any) -> ContentApiError:
    return error_from_response(_response(status, body, **kwargs), retry_after=3.0)


def _envelope(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"errors": list(entries)}


@pytest.mark.parametrize(
    ("status", "code", "cls"),
    [
        (422, "validation_error", ValidationFailed),
        (422, "input_too_long", InputTooLong),
        (422, "input_rejected", InputRejected),
        (422, "input_invalid_encoding", InputInvalidEncoding),
        (422, "image_not_applicable", ImageNotApplicable),
        (422, "thread_name_empty", ThreadNameEmpty),
        (422, "thread_name_too_long", ThreadNameTooLong),
        (422, "thread_name_not_plain_text", ThreadNameNotPlainText),
        (429, "rate_limited", RateLimited),
        (403, "steering_disabled", SteeringDisabled),
        (401, decisions.UNAUTHORIZED_CODE, Unauthorized),
        (
            decisions.USER_TOKEN_REQUIRED_STATUS,
            decisions.USER_TOKEN_REQUIRED_CODE,
            UserTokenRequired,
        ),
        (404, decisions.NOT_FOUND_CODE, NotFound),
        (decisions.ASSET_NOT_FOUND_STATUS, decisions.ASSET_NOT_FOUND_CODE, AssetNotFound),
    ],
)
def test_every_known_code_has_its_class(status: int, code: str, cls: type) -> None:
    error = _error(status, _envelope({"code": code, "message": "m"}))
    assert type(error) is cls
    assert error.status == status
    assert error.code == code
    assert error.message == "m"


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (400, BadRequest),
        (401, Unauthorized),
        (403, Forbidden),
        (404, NotFound),
        (422, Unprocessable),
        (429, RateLimited),
        (500, ServerError),
        (503, ServerError),
        (409, ContentApiError),
    ],
)
def test_unknown_code_becomes_the_generic_class_of_its_status(status: int, cls: type) -> None:
    error = _error(status, _envelope({"code": "brand_new_code", "message": "m"}))
    assert type(error) is cls
    assert error.code == "brand_new_code"


def test_quota_exceeded_on_403_is_the_generic_forbidden() -> None:
    error = _error(403, _envelope({"code": "quota_exceeded", "message": "Quota exceeded"}))
    assert type(error) is Forbidden
    assert not isinstance(error, SteeringDisabled | UserTokenRequired)
    assert error.status == 403
    assert error.code == "quota_exceeded"


def test_two_error_entries_survive_with_all_validation_details() -> None:
    body = _envelope(
        {
            "code": "validation_error",
            "message": "Request failed validation",
            "details": {
                "validation": [
                    {"loc": ["body", "segment_id"], "msg": "required"},
                    {"loc": ["body", "variant_count"], "msg": "too large"},
                    {"loc": ["body", "steering_text"], "msg": "required"},
                ]
            },
        },
        {"code": "input_too_long", "message": "Brief too long"},
    )
    error = _error(422, body)
    assert isinstance(error, ValidationFailed)
    assert [e.code for e in error.errors] == ["validation_error", "input_too_long"]
    assert len(error.validation) == 3
    assert error.validation[1] == {"loc": ["body", "variant_count"], "msg": "too large"}
    assert error.errors[1].message == "Brief too long"


def test_first_known_code_wins_over_an_unknown_first_entry() -> None:
    body = _envelope(
        {"code": "future_thing", "message": "?"},
        {"code": "input_rejected", "message": "Refused"},
    )
    error = _error(422, body)
    assert type(error) is InputRejected
    assert [e.code for e in error.errors] == ["future_thing", "input_rejected"]


def test_an_entry_with_odd_details_keeps_its_code() -> None:
    error = _error(422, _envelope({"code": "input_rejected", "message": "m", "details": [1]}))
    assert type(error) is InputRejected
    assert error.details == {}


def test_image_not_applicable_names_the_field() -> None:
    error = _error(
        422,
        _envelope({"code": "image_not_applicable", "message": "m", "details": {"field": "image"}}),
    )
    assert isinstance(error, ImageNotApplicable)
    assert error.field == "image"
    assert error.details == {"field": "image"}


def test_rate_limited_carries_the_wait() -> None:
    error = _error(429, _envelope({"code": "rate_limited", "message": "slow down"}))
    assert isinstance(error, RateLimited)
    assert error.retry_after == 3.0


def test_a_401_while_acting_as_a_user_is_user_token_rejected() -> None:
    response = _response(401, _envelope({"code": "unauthorized", "message": "bad token"}))
    error = error_from_response(response, retry_after=0, unauthorized_class=UserTokenRejected)
    assert type(error) is UserTokenRejected
    assert isinstance(error, Unauthorized)


def test_non_json_error_body_gives_a_clear_error_without_the_body() -> None:
    html = b"<html><body>Bad gateway token=abc123</body></html>"
    error = _error(502, content=html, headers={"content-type": "text/html"})
    assert type(error) is ServerError
    assert error.status == 502
    assert error.code is None
    assert error.errors == []
    assert "without an error envelope" in str(error)
    assert "text/html" in str(error)
    assert "abc123" not in str(error)


@pytest.mark.parametrize(
    "body",
    [{"detail": "Not Found"}, {"errors": "oops"}, {"errors": [{"message": "no code"}]}, [1, 2]],
)
def test_envelope_less_json_bodies_fall_back_to_the_status(body: Any) -> None:
    error = _error(404, body)
    assert type(error) is NotFound
    assert error.code is None
    assert "without an error envelope" in str(error)


def test_empty_error_body_is_handled() -> None:
    error = _error(500, content=b"")
    assert type(error) is ServerError
    assert "0 bytes" in str(error)


def test_error_text_names_method_and_path_but_not_the_query() -> None:
    error = _error(404, _envelope({"code": "not_found", "message": "Run not found"}))
    text = str(error)
    assert text.startswith("POST /v1/generation-runs: 404 not_found: Run not found")
    assert "cursor" not in text


@pytest.mark.parametrize(
    ("code", "action"),
    [
        ("generation_failed", RunFailureAction.RETRY),
        ("generation_timeout", RunFailureAction.RETRY_SHORTER),
        ("steering_disabled", RunFailureAction.STOP),
        ("invalid_parent", RunFailureAction.REREAD_THREAD),
        ("image_not_applicable", RunFailureAction.RESEND_WITHOUT_IMAGE),
        ("output_rejected", RunFailureAction.REWORD),
        ("quota_exceeded", RunFailureAction.UNKNOWN),
        (None, RunFailureAction.UNKNOWN),
    ],
)
def test_run_failure_codes_map_to_an_action(code: str | None, action: RunFailureAction) -> None:
    assert run_failure_advice(code) is action
