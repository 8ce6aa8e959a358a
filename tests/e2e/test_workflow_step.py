"""The Workflow Builder step "Generate content suggestions", run as Slack runs it."""

from __future__ import annotations

from typing import Any

from suggestbot.demo.stage import ALICE, BRUNO, Stage, wait_for
from suggestbot.ui.blocks.text import unescape_markdown

STEP = "generate_suggestions"


def _ended(stage: Stage, execution_id: str) -> dict[str, Any]:
    return wait_for(
        lambda: (e := stage.emu.function_execution(execution_id))["state"] != "running" and e,
        what="the step to end",
        detail=lambda: str(stage.emu.function_execution(execution_id)),
    )


def _run(stage: Stage, user: str, **inputs: Any) -> dict[str, Any]:
    step = stage.slack.run_workflow_step(
        STEP, inputs={"channel": stage.channel, "user": user, **inputs}, user_id=user
    )
    assert step.delivery.status == 200
    return _ended(stage, step.function_execution_id)


def test_the_step_posts_the_result_and_completes_with_its_link_and_first_variant(
    stage: Stage,
) -> None:
    stage.connect(ALICE)
    ended = _run(
        stage,
        ALICE,
        brief="Email: the spring launch of the ultralight tent",
        segment="trail runners",  # a name, in any case
        use_case="Spring Launch",
        variant_count=2,
    )
    assert ended["state"] == "completed", ended
    [root] = stage.emu.messages(stage.channel)
    assert "Trail Runners" in str(root["blocks"]) and "Spring Launch" in str(root["blocks"])
    digits = root["ts"].replace(".", "")
    assert ended["outputs"]["permalink"].endswith(f"/archives/{stage.channel}/p{digits}")
    gallery, first, _second = stage.emu.messages(stage.channel, thread_ts=root["ts"])[1:]
    assert gallery["blocks"][0]["type"] == "carousel"
    body = "".join(unescape_markdown(b["text"]) for b in first["blocks"] if b["type"] == "markdown")
    subject = next(b["text"]["text"] for b in first["blocks"] if b.get("block_id") == "subject")
    text = ended["outputs"]["first_variant"]
    assert text.endswith(body) and text.startswith("Subject: ")
    assert subject.split("* ", 1)[1] in text
    assert stage.sandbox.counters.get("POST /v1/generation-runs") == 1
    assert stage.emu.warnings == []


def test_a_failed_run_fails_the_step_with_a_readable_message(stage: Stage) -> None:
    stage.connect(ALICE)
    stage.sandbox.faults.fail_next_runs = ["generation_failed"]
    ended = _run(stage, ALICE, brief="Instagram post for the autumn trail days")
    assert ended["state"] == "failed"
    error = ended["error"]
    assert error.startswith("The content suggestions could not be made: ")
    assert "generation_failed" not in error and "*" not in error
    assert "failed" in stage.emu.transcript(stage.channel)  # the channel's root says so too


def test_inputs_that_cannot_be_sent_fail_the_step_at_once_saying_why(stage: Stage) -> None:
    stage.connect(ALICE)
    stage.connect(BRUNO)
    unknown = _run(stage, ALICE, brief="Spring sale", segment="Skiers")
    assert unknown["state"] == "failed"
    assert unknown["error"] == (
        "There is no segment called “Skiers”. Known segments: Trail Runners, Weekend Hikers."
    )
    too_many = _run(stage, BRUNO, brief="Frühjahrsaktion", variant_count=5)
    assert too_many["error"] == (
        "Die Zahl der Varianten muss zwischen 1 und 3 liegen; der Schritt bekam 5."
    )
    blank = _run(stage, ALICE, brief="   ")
    assert blank["error"] == "The brief is empty: give the step a brief to send."
    assert stage.emu.messages(stage.channel) == []  # nothing was posted
    assert not stage.sandbox.counters.get("POST /v1/generation-runs")
