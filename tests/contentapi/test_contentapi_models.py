"""Reading the contract's resources: tolerant where it must be, strict where it must be."""

from __future__ import annotations

import pytest
from contentapi_fakes import (
    SIGNED_URL,
    TS,
    email_json,
    run_json,
    set_json,
    social_json,
    thread_json,
)
from pydantic import TypeAdapter, ValidationError

from suggestbot.contentapi import (
    EmailPayload,
    EmbeddedImageAsset,
    GenerationRun,
    GenerationRunRequest,
    InvalidAssetRef,
    MintedAssetUrl,
    RefinementRequest,
    RunStatus,
    SocialSingleImagePayload,
    SteeredGenerationRequest,
    Suggestion,
    SuggestionKind,
    SuggestionSet,
    Thread,
    TokenResponse,
    validate_asset_ref,
)


def test_unknown_fields_are_ignored_everywhere() -> None:
    raw = set_json(
        brand_new_field={"nested": True},
        suggestions=[email_json(shiny="yes"), social_json(url=None)],
    )
    raw["suggestions"][1]["payload"]["asset"]["dominant_colour"] = "red"
    parsed = SuggestionSet.model_validate(raw)
    assert [s.id for s in parsed.suggestions] == ["sg-1", "sg-2"]
    assert not hasattr(parsed, "brand_new_field")


def test_set_sorts_variants_by_variant_no() -> None:
    raw = set_json(
        suggestions=[email_json("c", 3), email_json("a", 1), social_json("b", 2)],
    )
    parsed = SuggestionSet.model_validate(raw)
    assert [s.variant_no for s in parsed.suggestions] == [1, 2, 3]
    assert [s.id for s in parsed.suggestions] == ["a", "b", "c"]


def test_unknown_kind_is_skipped_and_counted_without_failing_the_set() -> None:
    video = {
        "id": "sg-v",
        "kind": "short_video",
        "variant_no": 2,
        "payload": {"clip": {"ref": "video:v1"}},
    }
    parsed = SuggestionSet.model_validate(
        set_json(suggestions=[email_json("sg-1", 1), video, email_json("sg-3", 3)])
    )
    assert [s.id for s in parsed.suggestions] == ["sg-1", "sg-3"]
    assert parsed.skipped_count == 1
    assert parsed.skipped_kinds == ("short_video",)
    assert parsed.skipped[0].id == "sg-v"
    assert parsed.skipped[0].reason == "unknown_kind"


def test_image_with_unknown_reference_prefix_skips_only_that_suggestion() -> None:
    odd = social_json("sg-2", 2, ref="video:clip-9")
    parsed = SuggestionSet.model_validate(set_json(suggestions=[email_json("sg-1", 1), odd]))
    assert [s.id for s in parsed.suggestions] == ["sg-1"]
    assert parsed.skipped[0].reason == "unsupported_asset_ref"


def test_set_without_skips_reports_none() -> None:
    parsed = SuggestionSet.model_validate(set_json())
    assert parsed.skipped_count == 0
    assert parsed.skipped_kinds == ()


def test_video_asset_ref_is_rejected_with_a_clear_error() -> None:
    with pytest.raises(InvalidAssetRef) as excinfo:
        validate_asset_ref("video:x")
    assert "video:" in str(excinfo.value)
    assert "image:" in str(excinfo.value)
    with pytest.raises(ValidationError) as model_error:
        EmbeddedImageAsset(type="image", ref="video:x", alt_text="alt")
    assert "unsupported prefix 'video:'" in str(model_error.value)


@pytest.mark.parametrize(
    ("ref", "hidden"),
    [
        ("image:", None),
        ("", None),
        ("img-1", "img-1"),
        ("IMAGE:abc", "abc"),
        ("https://host/x?sig=abc", "sig=abc"),
    ],
)
def test_asset_refs_other_than_image_plus_id_are_rejected(ref: str, hidden: str | None) -> None:
    with pytest.raises(InvalidAssetRef) as excinfo:
        validate_asset_ref(ref)
    message = str(excinfo.value)
    assert "image:" in message
    if hidden is not None:
        # The message names at most a short prefix, never the value itself.
        assert hidden not in message


def test_image_ref_is_kept_exactly_as_sent() -> None:
    ref = "image:0190b3c2-AbC_~.x"
    assert validate_asset_ref(ref) == ref
    asset = EmbeddedImageAsset(type="image", ref=ref, alt_text="alt")
    assert asset.ref == ref


@pytest.mark.parametrize(
    ("model", "raw"),
    [
        (SuggestionSet, set_json(created_at="2024-05-01T10:00:00")),
        (Thread, thread_json(updated_at="2024-05-01T10:00:00")),
        (
            MintedAssetUrl,
            {"ref": "image:a", "url": SIGNED_URL, "url_expires_at": "2024-05-01T10:15:00"},
        ),
        (GenerationRun, run_json(created_at="2024-05-01 10:00:00")),
    ],
)
def test_naive_timestamps_are_rejected(model: type, raw: dict[str, object]) -> None:
    with pytest.raises(ValidationError) as excinfo:
        model.model_validate(raw)
    assert "timezone" in str(excinfo.value)


def test_aware_timestamps_in_any_offset_are_accepted() -> None:
    parsed = SuggestionSet.model_validate(set_json(created_at="2024-05-01T12:00:00+02:00"))
    assert parsed.created_at.utcoffset() is not None
    assert parsed.created_at.isoformat() == "2024-05-01T12:00:00+02:00"


def test_signed_url_is_hidden_from_repr_str_and_dumps_but_can_be_revealed() -> None:
    parsed = SuggestionSet.model_validate(set_json(suggestions=[social_json(url=SIGNED_URL)]))
    suggestion = parsed.suggestions[0]
    for text in (
        repr(parsed),
        str(parsed),
        repr(suggestion),
        str(suggestion.payload),
        parsed.model_dump_json(),
        str(parsed.model_dump(mode="json")),
    ):
        assert "topsecretsignature" not in text
        assert SIGNED_URL not in text
    assert suggestion.asset is not None
    assert suggestion.asset.reveal_url() == SIGNED_URL


def test_minted_url_is_hidden_but_revealable() -> None:
    minted = MintedAssetUrl.model_validate(
        {"ref": "image:a", "url": SIGNED_URL, "url_expires_at": "2024-05-01T10:15:00Z"}
    )
    assert SIGNED_URL not in repr(minted)
    assert SIGNED_URL not in minted.model_dump_json()
    assert minted.reveal_url() == SIGNED_URL


def test_validation_errors_never_echo_a_signed_url() -> None:
    raw = set_json(suggestions=[social_json(url=SIGNED_URL)])
    raw["suggestions"][0]["payload"]["asset"]["url_expires_at"] = "not a time"
    raw["suggestions"][0]["payload"]["asset"]["url"] = {"unexpected": SIGNED_URL}
    with pytest.raises(ValidationError) as excinfo:
        SuggestionSet.model_validate(raw)
    assert "topsecretsignature" not in str(excinfo.value)
    assert "topsecretsignature" not in repr(excinfo.value)


def test_null_url_means_not_requested() -> None:
    parsed = Suggestion.model_validate(social_json(url=None))
    assert parsed.asset is not None
    assert parsed.asset.url is None
    assert parsed.asset.url_expires_at is None
    assert parsed.asset.reveal_url() is None


def test_payload_shape_follows_kind() -> None:
    email = Suggestion.model_validate(email_json())
    social = Suggestion.model_validate(social_json())
    assert isinstance(email.payload, EmailPayload)
    assert email.payload.body == "Line one\nLine two"
    assert email.asset is None
    assert isinstance(social.payload, SocialSingleImagePayload)
    assert social.kind is SuggestionKind.SOCIAL_SINGLE_IMAGE
    bad = email_json()
    bad["payload"] = {"body": "no subject"}
    with pytest.raises(ValidationError) as excinfo:
        Suggestion.model_validate(bad)
    assert "payload.subject" in str(excinfo.value)


def test_a_payload_of_another_kind_is_refused() -> None:
    with pytest.raises(ValidationError, match="wrong shape"):
        Suggestion(
            id="s",
            kind=SuggestionKind.EMAIL,
            variant_no=1,
            payload=SocialSingleImagePayload(
                body="b", asset=EmbeddedImageAsset(type="image", ref="image:a", alt_text="a")
            ),
        )


def test_lineage_is_parsed_closest_first_and_absent_without_expand() -> None:
    raw = email_json(
        lineage=[
            {
                "id": "sg-0b",
                "suggestion_set_id": None,
                "kind": "email",
                "variant_no": 1,
                "created_at": TS,
                "instruction": "Shorter",
            },
            {
                "id": "sg-0a",
                "suggestion_set_id": "set-0",
                "kind": "some_future_kind",
                "variant_no": 2,
                "created_at": TS,
                "instruction": None,
            },
        ]
    )
    parsed = Suggestion.model_validate(raw)
    assert parsed.lineage is not None
    assert [item.id for item in parsed.lineage] == ["sg-0b", "sg-0a"]
    assert parsed.lineage[0].instruction == "Shorter"
    assert parsed.lineage[1].instruction is None
    assert parsed.lineage[1].kind == "some_future_kind"
    assert Suggestion.model_validate(email_json()).lineage is None


def test_run_status_terminal_states() -> None:
    assert {s for s in RunStatus if s.is_terminal} == {RunStatus.SUCCEEDED, RunStatus.FAILED}
    run = GenerationRun.model_validate(
        run_json(status="failed", error={"code": "generation_failed", "message": "x"})
    )
    assert run.is_terminal
    assert run.error is not None
    assert run.error.code == "generation_failed"
    assert not GenerationRun.model_validate(run_json(status="running")).is_terminal


def test_generation_run_request_is_a_union_on_type() -> None:
    adapter = TypeAdapter(GenerationRunRequest)
    steered = adapter.validate_python(
        {"type": "steered_generation", "segment_id": "s", "use_case_id": "u", "steering_text": "b"}
    )
    refinement = adapter.validate_python(
        {"type": "refinement", "parent_suggestion_id": "p", "instruction": "i", "image": "reuse"}
    )
    assert isinstance(steered, SteeredGenerationRequest)
    assert steered.variant_count == 1
    assert isinstance(refinement, RefinementRequest)
    with pytest.raises(ValidationError):
        adapter.validate_python({"type": "translation", "text": "x"})


def test_refinement_run_echo_is_read() -> None:
    run = GenerationRun.model_validate(
        run_json(
            type="refinement",
            status="succeeded",
            suggestion_id="sg-9",
            request={"type": "refinement", "parent_suggestion_id": "sg-1", "instruction": "x"},
        )
    )
    assert isinstance(run.request, RefinementRequest)
    assert run.suggestion_id == "sg-9"


@pytest.mark.parametrize("count", [0, 4])
def test_variant_count_outside_one_to_three_is_rejected(count: int) -> None:
    with pytest.raises(ValidationError):
        SteeredGenerationRequest(
            segment_id="s", use_case_id="u", steering_text="b", variant_count=count
        )


def test_token_response_never_shows_the_token() -> None:
    token = TokenResponse.model_validate(
        {"access_token": "csat_live_abcdef123456", "token_type": "Bearer", "expires_in": 900}
    )
    assert "csat_live_abcdef123456" not in repr(token)
    assert "csat_live_abcdef123456" not in token.model_dump_json()
    assert token.access_token.get_secret_value() == "csat_live_abcdef123456"
