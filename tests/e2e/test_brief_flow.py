"""A brief from ``/suggest brief`` to its variants in a Slack thread, as people see it."""

from __future__ import annotations

from suggestbot.stage import ALICE, Stage, wait_for


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
    replies = stage.emu.messages(stage.channel, thread_ts=root["ts"])[1:]
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
