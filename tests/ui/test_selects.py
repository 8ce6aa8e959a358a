"""The one builder of the catalogue's selects: Slack's limits kept, the current choice selected
only when it is still offered, and the four places that offer the catalogue use it."""

from __future__ import annotations

from typing import Any

from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.digests import build_digest_modal
from suggestbot.ui.blocks.modals import build_brief_modal
from suggestbot.ui.blocks.selects import OPTION_TEXT_MAX, SELECT_OPTIONS_MAX, select
from suggestbot.ui.blocks.thread_modals import build_draft_modal

SEGMENTS = [(f"seg{i}", f"Segment {i} " + "x" * 80) for i in range(120)]
USE_CASES = [("uc1", "Welcome"), ("uc2", "Win back")]


def test_slacks_limits_are_kept_and_the_current_choice_selected() -> None:
    element = select(action_id="a", pairs=SEGMENTS, selected="seg3").to_dict()
    assert len(element["options"]) == SELECT_OPTIONS_MAX
    assert all(len(o["text"]["text"]) == OPTION_TEXT_MAX for o in element["options"])
    assert element["initial_option"]["value"] == "seg3"
    assert "initial_option" not in select(action_id="a", pairs=SEGMENTS, selected="gone").to_dict()
    cut = select(action_id="a", pairs=SEGMENTS, ellipsis=True).to_dict()["options"][0]
    assert cut["text"]["text"].endswith("…") and len(cut["text"]["text"]) == OPTION_TEXT_MAX


def _elements(blocks: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    found = {}
    for block in blocks:
        for element in [block.get("element"), *block.get("elements", [])]:
            if element and element.get("type") == "static_select":
                found[element["action_id"]] = element
    return found


def test_every_catalogue_select_offers_the_same_options() -> None:
    brief = build_brief_modal(
        lang="en", segments=SEGMENTS, use_cases=USE_CASES, initial_use_case="uc2"
    )
    draft = build_draft_modal(
        lang="en", segments=SEGMENTS, use_cases=USE_CASES, initial_use_case="uc2"
    )
    digest = build_digest_modal(
        lang="en", segments=SEGMENTS, use_cases=USE_CASES, tz="UTC", private_metadata=""
    )
    expected = select(action_id="x", pairs=SEGMENTS).to_dict()["options"]
    for view, segment_id, use_case_id in (
        (brief, ids.INPUT_SEGMENT, ids.INPUT_USE_CASE),
        (draft, ids.INPUT_SEGMENT, ids.INPUT_USE_CASE),
        (digest, ids.INPUT_DIGEST_SEGMENT, ids.INPUT_DIGEST_USE_CASE),
    ):
        elements = _elements(view["blocks"])
        assert elements[segment_id]["options"] == expected
        assert [o["value"] for o in elements[use_case_id]["options"]] == ["uc1", "uc2"]
    assert _elements(brief["blocks"])[ids.INPUT_USE_CASE]["initial_option"]["value"] == "uc2"
    assert _elements(brief["blocks"])[ids.INPUT_VARIANTS]["initial_option"]["value"] == "1"
