"""Every image URL the app posts is fetched on the stage as Slack fetches it when it shows an
image block: the post of an image that does not load is refused, and leaving the stage fails."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from suggestbot.demo.stage import BrokenImages, Stage


def _image_block(url: str) -> list[dict[str, str]]:
    return [{"type": "image", "image_url": url, "alt_text": "a preview"}]


def _expanded_image(stage: Stage) -> dict[str, Any]:
    """An image of the ready-made content, read with ``expand=asset_urls`` as digests read it."""
    demo = stage.demo.primary
    with httpx.Client(base_url=stage.sandbox_url) as http:
        token = http.post(
            "/auth/token",
            data={
                "grant_type": "client_credentials",
                "client_id": demo.client_id,
                "client_secret": demo.client_secret,
            },
        ).json()["access_token"]
        query = {
            "segment_id": next(iter(demo.segments.values())),
            "use_case_id": next(iter(demo.use_cases.values())),
            "locale": demo.locale,
            "expand": "asset_urls",
        }
        read = http.get(
            "/v1/inspiration", params=query, headers={"Authorization": f"Bearer {token}"}
        )
    [found] = read.json()["data"]
    assets = [s["payload"]["asset"] for s in found["suggestions"] if "asset" in s["payload"]]
    assert assets, "the ready-made content holds a social post"
    return dict(assets[0])


def test_an_image_that_does_not_load_is_refused_and_fails_the_stage(tmp_path: Path) -> None:
    stage = Stage(data_dir=tmp_path / "data")
    with pytest.raises(BrokenImages) as failed, stage:
        client = WebClient(token=stage.emu.bot_token, base_url=stage.emu.api_url + "/")
        # A signed URL of the sandbox whose signature is wrong: 403, as an expired one would be.
        url = f"{stage.sandbox_url}/images/0123abcd.png?expires=1&sig=secret-signature"
        with pytest.raises(SlackApiError) as refused:
            client.chat_postMessage(channel=stage.channel, text="t", blocks=_image_block(url))
        assert refused.value.response["error"] == "invalid_blocks"
        assert stage.images_fetched() == 1
    said = str(failed.value)
    assert "/images/0123abcd.png: downloading image failed" in said
    assert "secret-signature" not in said and "sig=" not in said


def test_images_the_service_signed_load_and_leave_the_stage_clean(tmp_path: Path) -> None:
    with Stage(data_dir=tmp_path / "data") as stage:
        asset = _expanded_image(stage)
        client = WebClient(token=stage.emu.bot_token, base_url=stage.emu.api_url + "/")
        posted = client.chat_postMessage(
            channel=stage.channel, text="t", blocks=_image_block(asset["url"])
        )
        assert posted["ok"] and stage.images_fetched() == 1 and stage.broken_images() == []
