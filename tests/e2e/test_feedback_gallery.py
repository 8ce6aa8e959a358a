"""Several variants side by side, feedback on each, and the usage panel, as people see them."""

from __future__ import annotations

from typing import Any

from suggestbot.demo.stage import ALICE, BRUNO, CAROL, Stage, wait_for
from suggestbot.slackemu.results import AppResponse
from suggestbot.ui.blocks.text import unescape_markdown


def _thread(stage: Stage, root_text: str, variants: int) -> tuple[dict, list[dict]]:
    """The gallery and the variants of the brief whose root quotes ``root_text``."""
    root = wait_for(
        lambda: next((m for m in stage.emu.messages(stage.channel) if root_text in str(m)), None),
        what="the root",
    )
    replies = wait_for(
        lambda: (
            r
            if len(r := stage.emu.messages(stage.channel, thread_ts=root["ts"])[1:]) == variants + 1
            else None
        ),
        what="the gallery and every variant",
    )
    return replies[0], replies[1:]


def _body(message: dict) -> str:
    return "".join(
        unescape_markdown(b["text"]) for b in message["blocks"] if b["type"] == "markdown"
    )


def _press_card(stage: Stage, gallery: dict, number: int, label: str, user_id: str) -> AppResponse:
    """Press a button of card ``number`` (every card has the same labels, so the driver's
    press-by-label cannot tell them apart)."""
    slack = stage.slack
    card = gallery["blocks"][0]["elements"][number - 1]
    button = next(a for a in card["actions"] if a["text"]["text"] == label)
    return slack._act_on_message(gallery, user_id, lambda _b: slack._button_action(card, button))


def _usage(stage: Stage, user_id: str) -> str:
    stage.slack.app_home_opened(user_id)
    home = wait_for(
        lambda: (v := stage.emu.home_view(user_id)) and "usage-rates" in str(v) and v,
        what="the Home tab with its usage panel",
    )
    return "\n".join(
        str(b.get("text", {}).get("text", "")) + str(b.get("elements", ""))
        for b in home["blocks"]
        if str(b.get("block_id", "")).startswith("usage")
    )


def test_gallery_cards_copy_text_feedback_and_the_usage_panel(stage: Stage) -> None:
    stage.connect(ALICE)
    stage.connect(CAROL)
    stage.brief(ALICE, "Instagram post: spring launch of the ultralight tent", variants=3)
    gallery, variants = _thread(stage, "spring launch of the ultralight tent", 3)

    cards = gallery["blocks"][0]["elements"]
    assert [c["title"]["text"].split(" · ")[0] for c in cards] == [
        "Variant 1",
        "Variant 2",
        "Variant 3",
    ]
    bodies = [_body(v) for v in variants]
    for card, body in zip(cards, bodies, strict=True):
        assert card["hero_image"]["image_url"].startswith(stage.sandbox_url)
        assert len(card["body"]["text"]) <= 200
        assert body.startswith(card["body"]["text"].rstrip("…")[:50])
        assert [a["text"]["text"] for a in card["actions"]] == ["Refine…", "Copy text"]
    # a client without carousels reads every variant in full in the text
    for body in bodies:
        assert " ".join(body.split())[:300] in " ".join(gallery["text"].split())

    # Copy text: only Alice sees variant 2's plain text, ready to copy
    _press_card(stage, gallery, 2, "Copy text", ALICE)
    copied = wait_for(
        lambda: (
            (seen := stage.emu.ephemeral_transcript(ALICE)) and "ready to copy" in seen and seen
        ),
        what="the variant's text for Alice",
    )
    assert "as plain text, ready to copy" in copied
    assert " ".join(bodies[1].split())[:200] in " ".join(copied.split())
    assert "ready to copy" not in stage.emu.ephemeral_transcript(CAROL)

    # Refine… on a card opens the refine modal, as under the full variant
    _press_card(stage, gallery, 3, "Refine…", ALICE)
    wait_for(
        lambda: (stage.emu.current_view(ALICE) or {}).get("callback_id") == "refine",
        what="the refine modal",
    )
    stage.slack.close_view(ALICE)

    # every variant ends with feedback buttons
    assert all(v["blocks"][-1]["type"] == "context_actions" for v in variants)
    stage.slack.press_feedback(variants[0], positive=True, user_id=ALICE)
    stage.slack.press_feedback(variants[0], positive=True, user_id=ALICE)  # again: one vote
    stage.slack.press_feedback(variants[1], positive=True, user_id=ALICE)
    stage.slack.press_feedback(variants[1], positive=False, user_id=CAROL)
    # a thumbs-down asks why, optionally
    view = wait_for(
        lambda: (
            (v := stage.emu.current_view(CAROL)) and v["callback_id"] == "feedback_reason" and v
        ),
        what="the why modal",
    )
    assert view["title"]["text"] == "What was wrong?"
    stage.slack.submit_view(CAROL, {"Tell us why (optional)": "Too long for Instagram"})
    assert stage.runtime is not None
    records = stage.runtime.deps.records
    wait_for(
        lambda: any(v.reason == "Too long for Instagram" for v in records.votes.values()),
        what="the reason kept with Carol's vote",
    )

    panel = wait_for(
        lambda: (p := _usage(stage, ALICE)) and "67% of 3 votes" in p and p,
        what="three votes counted",
        detail=lambda: _usage(stage, ALICE),
    )
    assert "Last 7 days: 1 brief, 0 refinements, 0 digests sent" in panel
    assert "Last 30 days: 1 brief" in panel

    # Alice changes her mind on variant 1: the vote turns, it is not added
    stage.slack.press_feedback(variants[0], positive=False, user_id=ALICE)
    wait_for(
        lambda: "33% of 3 votes" in _usage(stage, ALICE),
        what="the turned vote",
        detail=lambda: _usage(stage, ALICE),
    )
    assert stage.emu.warnings == []


def test_german_gallery_feedback_and_panel(stage: Stage) -> None:
    stage.set_channel_language("de")  # the gallery is the channel's; the rest Bruno's own
    stage.connect(BRUNO)
    stage.brief(BRUNO, "E-Mail zum Frühjahrsstart des Ultraleichtzelts", variants=2)
    gallery, variants = _thread(stage, "Frühjahrsstart des Ultraleichtzelts", 2)
    cards = gallery["blocks"][0]["elements"]
    assert [a["text"]["text"] for a in cards[0]["actions"]] == ["Verfeinern…", "Text kopieren"]
    assert gallery["text"].startswith("2 Varianten sind fertig")
    feedback: Any = variants[0]["blocks"][-1]["elements"][0]
    assert feedback["positive_button"]["text"]["text"] == "Guter Vorschlag"

    stage.slack.press_feedback(variants[0], positive=False, user_id=BRUNO)
    view = wait_for(
        lambda: (
            (v := stage.emu.current_view(BRUNO)) and v["callback_id"] == "feedback_reason" and v
        ),
        what="the why modal",
    )
    assert view["title"]["text"] == "Was passte nicht?"
    stage.slack.close_view(BRUNO)  # skipped: the vote counts all the same
    panel = wait_for(
        lambda: (p := _usage(stage, BRUNO)) and "0\xa0% von 1 Stimme" in p and p,
        what="Bruno's vote in the panel",
        detail=lambda: _usage(stage, BRUNO),
    )
    assert "Letzte 7 Tage: 1 Briefing, 0 Verfeinerungen, 0 Digests gesendet" in panel
    assert stage.emu.warnings == []
