"""A button on a message deleted meanwhile (a client still shows the old copy): the person
reads in plain words that the message is gone, and the log has a WARNING, not an ERROR."""

from __future__ import annotations

import logging

import pytest
from deliveries import press, settle

from suggestbot.demo.stage import ALICE, Stage, wait_for
from suggestbot.ui.blocks import ids
from suggestbot.ui.messages import t

pytestmark = pytest.mark.loopback


def test_refresh_preview_on_a_deleted_message_says_it_is_gone(
    stage: Stage, caplog: pytest.LogCaptureFixture
) -> None:
    stage.connect(ALICE)
    stage.brief(ALICE, "Instagram post for the trail season")
    deps = stage.runtime.deps  # type: ignore[union-attr]
    req = wait_for(
        lambda: next((r for r in deps.records.requests.values() if r.state == "done"), None),
        what="the result",
    )
    variant = req.variants[0]
    with stage.emu.ws.lock:
        stage.emu.ws.delete_message(stage.emu.ws.message(req.post_channel_id, variant.ts))
    with caplog.at_level(logging.WARNING):
        answer = press(
            stage,
            ALICE,
            req.post_channel_id,
            action_id=ids.ACTION_REFRESH_PREVIEW,
            value=f"{req.id}:{variant.variant_no}",
            message_ts=variant.ts,
            thread_ts=req.root_ts,
        )
        assert answer.status == 200
        wait_for(
            lambda: t("gone.message", "en") in stage.emu.ephemeral_transcript(ALICE),
            what="the plain words",
            detail=lambda: stage.emu.ephemeral_transcript(ALICE),
        )
        settle(stage)
    assert "something went wrong" not in stage.emu.ephemeral_transcript(ALICE)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
