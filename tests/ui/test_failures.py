"""Which buttons a failure offers: retry only where retrying can help (contract §7)."""

from __future__ import annotations

import pytest

from suggestbot.ui import failures
from suggestbot.ui.messages import t


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
def test_unknown_code_reads_as_a_sentence_with_the_code_in_small_print(lang: str) -> None:
    said = failures.reason("quota_exceeded", lang)
    assert "quota_exceeded" not in said
    assert said == t("fail.unknown", lang)
    assert failures.fine_print("quota_exceeded", lang) == t(
        "fail.support_code", lang, code="quota_exceeded"
    )
    assert failures.fine_print("generation_failed", lang) is None


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize(
    "code", ["validation_error", "input_rejected", "input_too_long", "input_invalid_encoding"]
)
def test_input_codes_speak_of_what_the_user_sent_and_never_show_the_code(
    lang: str, code: str
) -> None:
    for_brief = failures.reason(code, lang, is_brief=True)
    for_reply = failures.reason(code, lang, is_brief=False)
    assert code not in for_brief and code not in for_reply
    assert for_brief != for_reply
    assert ("brief" if lang == "en" else "Briefing") in for_brief
    assert ("instruction" if lang == "en" else "Anweisung") in for_reply


def test_an_empty_instruction_says_it_was_empty() -> None:
    assert "was empty" in failures.reason("validation_error", "en", is_brief=False)


def test_steering_disabled_says_retrying_will_not_help() -> None:
    assert "retrying will not help" in failures.reason("steering_disabled", "en")


def test_output_rejected_asks_to_reword() -> None:
    assert failures.reason("output_rejected", "en") == t("fail.output_rejected", "en")
    assert "Reword" in failures.reason("output_rejected", "en")
