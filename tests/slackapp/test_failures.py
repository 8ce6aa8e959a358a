"""Which buttons a failure offers: retry only where retrying can help (contract §7)."""

from __future__ import annotations

import pytest

from suggestbot.slackapp.flows import failures
from suggestbot.slackapp.messages import t


def _labels(code: str, *, is_brief: bool = True) -> list[str]:
    return [b.label_key for b in failures.buttons(code, request_id="r1", is_brief=is_brief)]


@pytest.mark.parametrize(
    ("code", "labels"),
    [
        ("generation_failed", ["button.retry"]),
        ("generation_timeout", ["button.retry", "button.edit_resend"]),
        ("steering_disabled", []),
        ("output_rejected", ["button.edit_resend"]),
        ("invalid_parent", ["button.refine_head"]),
        ("image_not_applicable", ["button.resend_without_image"]),
        ("input_too_long", ["button.edit_resend"]),
        ("service_unavailable", ["button.retry"]),
        ("watch_expired", ["button.check_again"]),
        ("quota_exceeded", ["button.retry"]),
    ],
)
def test_buttons_by_code(code: str, labels: list[str]) -> None:
    assert _labels(code) == labels


@pytest.mark.parametrize("lang", ["en", "de"])
def test_unknown_code_is_named_in_the_message(lang: str) -> None:
    assert "`quota_exceeded`" in failures.reason("quota_exceeded", lang)


def test_steering_disabled_says_retrying_will_not_help() -> None:
    assert "retrying will not help" in failures.reason("steering_disabled", "en")


def test_output_rejected_asks_to_reword() -> None:
    assert failures.reason("output_rejected", "en") == t("fail.output_rejected", "en")
    assert "Reword" in failures.reason("output_rejected", "en")
