"""A brief from ``/suggest brief`` to its variants in a Slack thread, as people see it."""

from __future__ import annotations

from suggestbot.demo.stage import ALICE, Stage, wait_for
from suggestbot.ui.blocks.text import unescape_markdown


def _root(stage: Stage) -> dict:
    return wait_for(lambda: next(iter(stage.emu.messages(stage.channel)), None), what="a root")


def test_connect_brief_three_variants_posted_in_order_with_images(stage: Stage) -> None:
    stage.connect(ALICE)
    answer = stage.brief(ALICE, "Instagram post: spring launch of the ultralight tent", variants=3)
    assert answer.errors == {}
    root = _root(stage)
    wait_for(
        lambda: "ready" in stage.emu.transcript(stage.channel, thread_ts=None),
        what="the root to say ready",
    )
    gallery, *replies = stage.emu.messages(stage.channel, thread_ts=root["ts"])[1:]
    assert gallery["blocks"][0]["type"] == "carousel"  # several variants: side by side first
    headers = [r["blocks"][0]["text"]["text"] for r in replies]
    assert [h.split(" · ")[0] for h in headers] == [
        "Variant 1 of 3",
        "Variant 2 of 3",
        "Variant 3 of 3",
    ]
    assert all(h.endswith("Social post") for h in headers)
    images = [b for r in replies for b in r["blocks"] if b["type"] == "image"]
    assert len(images) == 3
    assert len({i["image_url"] for i in images}) == 3
    for image in images:
        assert image["alt_text"]
        assert image["image_url"].startswith(stage.sandbox_url)
    transcript = stage.emu.transcript(stage.channel, thread_ts=root["ts"])
    assert "spring launch of the ultralight tent" in transcript
    assert transcript.count("[Refresh preview]") == 3
    # the image URLs were minted in one batched call, right before posting
    assert stage.sandbox.counters.get("POST /v1/assets/urls") == 1
    assert stage.emu.warnings == []


def _block_text(value: object) -> int:
    if isinstance(value, list):
        return sum(_block_text(v) for v in value)
    if isinstance(value, dict):
        return sum(
            len(v) if k == "text" and isinstance(v, str) else _block_text(v)
            for k, v in value.items()
        )
    return 0


def test_a_variant_of_10000_characters_is_posted_whole_across_messages(stage: Stage) -> None:
    # Slack refuses one message with this much block text (msg_blocks_too_long, modelled by the
    # emulator); the app continues the variant in further messages, subject first, image last.
    stage.sandbox.faults.output_body_chars = 10_000
    stage.connect(ALICE)
    stage.brief(ALICE, "Email about the spring launch of the ultralight tent")
    stage.brief(ALICE, "Instagram post: spring launch of the ultralight tent")
    wait_for(
        lambda: stage.emu.transcript(stage.channel, thread_ts=None).count("are ready") == 2,
        what="both roots to say ready",
        detail=lambda: stage.emu.transcript(stage.channel),
    )
    for root in stage.emu.messages(stage.channel):
        parts = stage.emu.messages(stage.channel, thread_ts=root["ts"])[1:]
        assert len(parts) >= 2
        body = "".join(
            unescape_markdown(b["text"])
            for part in parts
            for b in part["blocks"]
            if b["type"] == "markdown"
        )
        # Whole: only the paragraph breaks where it was cut between sections are dropped.
        assert 9_950 <= len(body) <= 10_000
        assert all(_block_text(part["blocks"]) <= 11_000 for part in parts)
        first_kinds = [b.get("block_id") for b in parts[0]["blocks"]]  # markdown keeps none
        last_kinds = [b["type"] for b in parts[-1]["blocks"]]
        if "subject" in first_kinds:
            assert first_kinds[:2] == ["title", "subject"]
        else:
            assert "image" in last_kinds
    assert not [c for c in stage.emu.calls("chat.postMessage") if not c.response.get("ok")]
    assert stage.emu.warnings == []


def test_a_quick_brief_says_which_choices_it_reused_and_change_opens_them_prefilled(
    stage: Stage,
) -> None:
    stage.connect(ALICE)
    stage.brief(ALICE, "First brief sets the choices", variants=2)
    wait_for(lambda: "are ready" in stage.emu.transcript(stage.channel), what="first result")

    stage.slack.slash_command(ALICE, stage.channel, "brief Straight to a run this time")
    quick = wait_for(
        lambda: next(
            (m for m in stage.emu.messages(stage.channel) if "Straight to a run" in str(m)), None
        ),
        what="the quick brief's root",
    )
    reused = next(b for b in quick["blocks"] if b["block_id"] == "reused")
    sentence = reused["text"]["text"]
    assert "last choices of <@U0ALICE>" in sentence and "2 variants" in sentence
    first = next(m for m in stage.emu.messages(stage.channel) if "First brief" in str(m))
    assert "reused" not in [b["block_id"] for b in first["blocks"]]  # chosen in the modal

    stage.slack.press_button(quick, "Change", user_id=ALICE)
    view = wait_for(lambda: stage.emu.current_view(ALICE), what="the brief modal")
    assert view["callback_id"] == "brief"
    elements = {b["block_id"]: b.get("element", {}) for b in view["blocks"]}
    assert "Straight to a run this time" in str(elements)
    chosen = [
        e["initial_option"]["text"]["text"] for e in elements.values() if "initial_option" in e
    ]
    assert chosen and all(name in sentence for name in chosen[:2])
    assert stage.emu.warnings == []
