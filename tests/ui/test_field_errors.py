"""Field errors of the modals: on the right block, in the person's language."""

from __future__ import annotations

from suggestbot.ui import field_errors
from suggestbot.ui.blocks import ids
from suggestbot.ui.messages import t


def test_invalid_text_keeps_the_wording_of_the_brief_and_the_thread_name() -> None:
    errors = field_errors.invalid_text(
        block_ids=[ids.INPUT_BRIEF, ids.INPUT_THREAD_NAME, ids.INPUT_DRAFT_BODY], lang="de"
    )
    assert errors == {
        ids.INPUT_BRIEF: t("brief.input_invalid_encoding", "de"),
        ids.INPUT_THREAD_NAME: t("rename.thread_name_not_plain_text", "de"),
        ids.INPUT_DRAFT_BODY: t("input.invalid_encoding", "de"),
    }


def test_connect_token_says_why_next_to_the_token() -> None:
    for problem in ("empty", "rejected", "unreachable"):
        errors = field_errors.connect_token(problem=problem, lang="en")
        assert errors == {ids.INPUT_TOKEN: t(f"connect.{problem}", "en")}


def test_brief_problem_by_code_with_the_length() -> None:
    too_long = field_errors.brief_problem(code="input_too_long", length=4321, lang="en")
    assert "4321" in too_long or "4,321" in too_long
    assert field_errors.brief_problem(code=None, length=0, lang="de") == t(
        "brief.input_rejected", "de"
    )


def test_brief_missing_choice_on_each_missing_select() -> None:
    errors = field_errors.brief_missing_choice(
        block_ids=[ids.INPUT_SEGMENT, ids.INPUT_USE_CASE], lang="en"
    )
    assert errors == dict.fromkeys(
        [ids.INPUT_SEGMENT, ids.INPUT_USE_CASE], t("brief.missing_choice", "en")
    )


def test_refine_and_draft_errors_name_only_what_is_missing() -> None:
    assert field_errors.refine_empty(lang="en") == {ids.INPUT_INSTRUCTION: t("refine.empty", "en")}
    assert field_errors.draft_missing(subject=True, body=False, lang="en") == {
        ids.INPUT_DRAFT_SUBJECT: t("draft.empty_subject", "en")
    }
    assert set(field_errors.draft_missing(subject=True, body=True, lang="de")) == {
        ids.INPUT_DRAFT_SUBJECT,
        ids.INPUT_DRAFT_BODY,
    }
    assert field_errors.draft_missing(subject=False, body=False, lang="en") == {}


def test_digest_form_errors_each_on_its_field() -> None:
    none = field_errors.digest_form(
        lang="en",
        bad_time=False,
        bad_tz=None,
        no_weekdays=False,
        no_segment=False,
        no_use_case=False,
    )
    assert none == {}
    every = field_errors.digest_form(
        lang="de",
        bad_time=True,
        bad_tz="Mars/Olympus",
        no_weekdays=True,
        no_segment=True,
        no_use_case=True,
    )
    assert every == {
        ids.INPUT_DIGEST_TIME: t("digest.bad_time", "de"),
        ids.INPUT_DIGEST_TZ: t("digest.bad_tz", "de", tz="Mars/Olympus"),
        ids.INPUT_DIGEST_WEEKDAYS: t("digest.no_weekdays", "de"),
        ids.INPUT_DIGEST_SEGMENT: t("digest.choose", "de"),
        ids.INPUT_DIGEST_USE_CASE: t("digest.choose", "de"),
    }


def test_a_variant_count_the_service_would_refuse_names_the_range() -> None:
    assert field_errors.brief_variants(most=3, lang="en") == {
        ids.INPUT_VARIANTS: "Choose how many variants you want: 1 to 3."
    }
    assert "1 bis 3" in field_errors.brief_variants(most=3, lang="de")[ids.INPUT_VARIANTS]


def test_a_thread_name_the_service_would_refuse_is_worded_beside_the_name() -> None:
    assert field_errors.thread_name(code="thread_name_too_long", lang="en") == {
        ids.INPUT_THREAD_NAME: "A thread name holds at most 60 characters and 8 words."
    }
    assert field_errors.thread_name(code="thread_name_empty", lang="de") == {
        ids.INPUT_THREAD_NAME: "Gib einen Namen ein."
    }
