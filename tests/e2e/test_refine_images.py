"""The ``image`` field of a refinement, and what the failure buttons send: every run request the
sandbox receives is recorded on the wire, so "never sent" is checked where it matters."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from refine_helpers import (
    brief_thread,
    connect,
    refinement_runs,
    reply,
    service,
    thread_messages,
    thread_of_head,
    turns,
    wait_turn,
)

from suggestbot.demo.stage import ALICE, Stage, wait_for


class RunRequestLog:
    """ASGI middleware in front of the sandbox: keeps the body of every run creation."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.bodies: list[dict[str, Any]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if not (
            scope["type"] == "http"
            and scope["method"] == "POST"
            and scope["path"] == "/v1/generation-runs"
        ):
            await self.app(scope, receive, send)
            return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        self.bodies.append(json.loads(body))
        replayed = False

        async def replay() -> dict[str, Any]:
            nonlocal replayed
            if replayed:
                return dict(await receive())
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    def refinements(self) -> list[dict[str, Any]]:
        return [b for b in self.bodies if b.get("type") == "refinement"]


@pytest.fixture
def recorded(tmp_path: Path) -> Iterator[tuple[Stage, RunRequestLog]]:
    stage = Stage(data_dir=tmp_path / "data")
    log = RunRequestLog(stage.sandbox.app)
    stage.sandbox.app = log  # served from here on
    with stage:
        yield stage, log


def _open_refine(stage: Stage, message: dict[str, Any]) -> str:
    stage.slack.press_button(message, "Refine…", user_id=ALICE)
    wait_for(
        lambda: (stage.emu.current_view(ALICE) or {}).get("callback_id") == "refine",
        what="the Refine modal",
    )
    return stage.emu.view_transcript(ALICE)


def _image_of(message: dict[str, Any]) -> str | None:
    return next((b["image_url"] for b in message["blocks"] if b["type"] == "image"), None)


def _image_choices(stage: Stage) -> list[str]:
    view = stage.emu.current_view(ALICE) or {}
    return [
        option["text"]["text"]
        for block in view.get("blocks") or []
        if block.get("type") == "input" and block["element"]["type"] == "radio_buttons"
        for option in block["element"]["options"]
    ]


def test_an_email_is_never_refined_with_an_image_field(
    recorded: tuple[Stage, RunRequestLog],
) -> None:
    stage, log = recorded
    connect(stage, ALICE)
    ts = brief_thread(stage, ALICE, "Email about the autumn sale")
    modal = _open_refine(stage, thread_messages(stage, ts)[1])
    assert "Image" not in modal and _image_choices(stage) == []
    stage.slack.submit_view(ALICE, {"What should change?": "regenerate the image, make it bold"})
    wait_turn(stage, ts, 2)
    reply(stage, ALICE, ts, "regenerate image please")
    wait_turn(stage, ts, 3)

    assert len(log.refinements()) == 2
    assert all("image" not in body for body in log.refinements())
    assert [r.status.value for r in refinement_runs(stage)] == ["succeeded", "succeeded"]


def test_a_social_post_regenerates_its_image_only_when_asked(
    recorded: tuple[Stage, RunRequestLog],
) -> None:
    stage, log = recorded
    connect(stage, ALICE)
    ts = brief_thread(stage, ALICE, "Instagram post: spring launch of the ultralight tent")
    variant = thread_messages(stage, ts)[1]
    assert "Image: [radio_buttons]" in _open_refine(stage, variant)
    assert _image_choices(stage) == ["Keep the image", "Generate a new image"]
    stage.slack.submit_view(
        ALICE, {"What should change?": "sunnier", "Image": "Generate a new image"}
    )
    turn = wait_turn(stage, ts, 2)
    assert [b["type"] for b in turn["blocks"]].count("image") == 1
    reply(stage, ALICE, ts, "add a hashtag")
    wait_turn(stage, ts, 3)

    assert log.refinements()[0]["image"] == "regenerate"
    assert "image" not in log.refinements()[1]  # a plain reply keeps the image (the default)
    first, second = sorted(refinement_runs(stage), key=lambda r: r.created_at)
    client = service(stage)
    original = client.get_suggestion(id=str(first.request.parent_suggestion_id))
    regenerated = client.get_suggestion(id=str(first.suggestion_id))
    kept = client.get_suggestion(id=str(second.suggestion_id))
    assert original.asset is not None and regenerated.asset is not None and kept.asset
    assert regenerated.asset.ref != original.asset.ref
    assert kept.asset.ref == regenerated.asset.ref

    # a turn's preview is minted again on request and shown in place
    minted = stage.sandbox.counters.get("POST /v1/assets/urls")
    turn = wait_turn(stage, ts, 3)
    [old_image] = [b["image_url"] for b in turn["blocks"] if b["type"] == "image"]
    stage.slack.press_button(turn, "Refresh preview", user_id=ALICE)
    wait_for(
        lambda: (
            stage.sandbox.counters.get("POST /v1/assets/urls") == minted + 1
            and _image_of(wait_turn(stage, ts, 3)) not in (None, old_image)
        ),
        what="the refreshed preview",
    )
    assert "Turn 3" in str(wait_turn(stage, ts, 3)["blocks"][0])


def test_image_not_applicable_offers_a_resend_without_the_image(
    recorded: tuple[Stage, RunRequestLog],
) -> None:
    stage, log = recorded
    connect(stage, ALICE)
    ts = brief_thread(stage, ALICE, "Instagram post: rain jackets for the trail")
    stage.sandbox.faults.fail_next_runs = ["image_not_applicable"]
    _open_refine(stage, thread_messages(stage, ts)[1])
    stage.slack.submit_view(
        ALICE, {"What should change?": "moodier", "Image": "Generate a new image"}
    )
    failed = wait_for(
        lambda: next(
            (m for m in thread_messages(stage, ts) if "Resend without image" in str(m["blocks"])),
            None,
        ),
        what="the failure with its button",
    )
    assert "has no image" in stage.emu.transcript(stage.channel, thread_ts=ts)
    stage.slack.press_button(failed, "Resend without image", user_id=ALICE)
    wait_turn(stage, ts, 2)
    first, resent = log.refinements()
    assert first["image"] == "regenerate"
    assert "image" not in resent
    assert resent["instruction"] == "moodier"
    assert resent["parent_suggestion_id"] == first["parent_suggestion_id"]


def test_invalid_parent_rereads_the_thread_and_refines_its_newest_turn(
    recorded: tuple[Stage, RunRequestLog],
) -> None:
    stage, log = recorded
    connect(stage, ALICE)
    ts = brief_thread(stage, ALICE, "Email for the weekend hikers' meetup")
    # two replies at once refine the same head: whichever finishes second has an outdated parent
    reply(stage, ALICE, ts, "shorter")
    reply(stage, ALICE, ts, "add a date")
    failed = wait_for(
        lambda: next(
            (m for m in thread_messages(stage, ts) if "Refine newest" in str(m["blocks"])), None
        ),
        what="the invalid_parent failure",
    )
    assert "no longer the newest" in stage.emu.transcript(stage.channel, thread_ts=ts)
    late = "add a date" if "add a date" in str(failed["blocks"]) else "shorter"
    wait_turn(stage, ts, 2)
    [done] = [r for r in refinement_runs(stage) if r.status.value == "succeeded"]

    stage.slack.press_button(failed, "Refine newest", user_id=ALICE)
    turn = wait_turn(stage, ts, 3)
    assert late in str(turn["blocks"])
    first, second, again = log.refinements()
    assert first["parent_suggestion_id"] == second["parent_suggestion_id"]
    assert again["instruction"] == late
    assert again["parent_suggestion_id"] == done.suggestion_id
    newest = max(refinement_runs(stage), key=lambda r: r.created_at)
    assert newest.suggestion_id is not None
    assert thread_of_head(stage, newest.suggestion_id).turn_count == 3
    assert len(turns(stage, ts)) == 2
