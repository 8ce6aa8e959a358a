"""The one presenter: a suggestion shown as a variant, the same for results, turns, inspiration
and digests; only buttons, number and the image URL's source differ."""

from __future__ import annotations

from suggestbot.contentapi import Suggestion
from suggestbot.flows.brief.results import to_variant
from suggestbot.flows.common.variants import asset_ref, minted_url, shown_variant
from suggestbot.flows.refine.turns import turn_variant
from suggestbot.ui.blocks import ids

EMAIL = Suggestion.model_validate(
    {
        "id": "s1",
        "kind": "email",
        "variant_no": 2,
        "rationale": "Because.",
        "payload": {"subject": "Hi", "body": "Hello there"},
    }
)
SOCIAL = Suggestion.model_validate(
    {
        "id": "s2",
        "kind": "social_single_image",
        "variant_no": 3,
        "payload": {
            "body": "Look",
            "asset": {"type": "image", "ref": "image:abc", "alt_text": "A"},
        },
    }
)


def test_an_email_shows_its_subject_and_no_image() -> None:
    shown = shown_variant(EMAIL, total=3, image_url=None)
    assert (shown.number, shown.total, shown.subject, shown.alt_text) == (2, 3, "Hi", None)
    assert (shown.body, shown.rationale, shown.buttons, shown.feedback) == (
        "Hello there",
        "Because.",
        (),
        None,
    )


def test_an_image_shows_the_url_minted_for_its_ref_and_its_alt_text() -> None:
    assert asset_ref(SOCIAL) == "image:abc" and asset_ref(EMAIL) is None
    url = minted_url(SOCIAL, {"image:abc": "https://img.test/abc"})
    shown = shown_variant(SOCIAL, total=3, image_url=url, number=1)
    assert (shown.number, shown.image_url, shown.alt_text) == (1, "https://img.test/abc", "A")


def test_results_and_turns_differ_only_in_their_buttons_and_number() -> None:
    urls = {"image:abc": "https://img.test/abc"}
    result = to_variant(SOCIAL, total=3, urls=urls, request_id="r1")
    turn = turn_variant(SOCIAL, urls=urls, request_id="r1")
    assert [b.action_id for b in result.buttons] == [
        ids.ACTION_REFINE_OPEN,
        ids.ACTION_REFRESH_PREVIEW,
    ]
    assert [b.action_id for b in turn.buttons] == [ids.ACTION_REFINE_OPEN, ids.ACTION_REFRESH_TURN]
    assert (result.number, turn.number, turn.total) == (3, 1, 1)
    assert result.image_url == turn.image_url == "https://img.test/abc"
    assert [b.action_id for b in to_variant(EMAIL, total=3, urls={}, request_id="r1").buttons] == [
        ids.ACTION_REFINE_OPEN
    ]
