"""A Workflow Builder step in flight when the app is killed with SIGKILL completes once.

Slack sends ``function_executed`` once and does not send it again after the app's 200; the
step's token lives until the step completes. The app runs as its own process, its work frozen
at a named point (``SUGGESTBOT_FREEZE_AT``) so that the kill lands exactly there: straight
after the ack (only the sealed delivery exists), with the run created and in flight, and
between completing the step and recording that. The app started again must complete the step,
exactly once, with the link to the one result and its first variant.
"""

from __future__ import annotations

from typing import Any

import pytest
from reliability_harness import (
    ProcessStage,
    StageFactory,
    metadata_of,
    poll,
    requests_in_store,
    result_problems,
    wait_quiet,
)

from suggestbot.demo.stage import ALICE

SETTLE_TIMEOUT_S = 60.0


def _execution(stage: ProcessStage, execution_id: str) -> dict[str, Any]:
    return stage.emu.function_execution(execution_id)


@pytest.mark.timeout(240)
@pytest.mark.parametrize(
    "point", ["interaction_acked", "after_create_run", "step_completed_not_recorded"]
)
def test_a_step_in_flight_at_a_sigkill_completes_once_after_the_restart(
    process_stage: StageFactory, point: str
) -> None:
    stage = process_stage(point.replace("_", "-"))
    stage.connect_all(ALICE)
    stage.stop_app()
    stage.freeze_at = point
    stage.start_app()

    step = stage.slack.run_workflow_step(
        "generate_suggestions",
        inputs={
            "brief": "Instagram post for the autumn trail days",
            "channel": stage.channel,
            "user": ALICE,
            "variant_count": 2,
        },
        user_id=ALICE,
    )
    assert step.delivery.status == 200  # acknowledged: Slack will not send it again
    poll(lambda: f"work frozen at {point}" in stage.log_text(), timeout=SETTLE_TIMEOUT_S)
    stage.kill_app()
    stage.freeze_at = None
    stage.start_app()

    execution_id = step.function_execution_id
    poll(lambda: _execution(stage, execution_id)["state"] != "running", timeout=SETTLE_TIMEOUT_S)
    ended = _execution(stage, execution_id)
    assert ended["state"] == "completed", (ended, stage.log_tail())
    roots = [m for m in stage.emu.messages(stage.channel) if metadata_of(m).get("role") == "root"]
    assert len(roots) == 1
    poll(lambda: not result_problems(stage, roots[0], user=ALICE, variants=2), timeout=30)
    digits = roots[0]["ts"].replace(".", "")
    assert ended["outputs"]["permalink"].endswith(f"/archives/{stage.channel}/p{digits}")
    assert ended["outputs"]["first_variant"].strip()
    assert stage.sandbox.counters.get("POST /v1/generation-runs") == 1
    assert ended["completions_refused"] == 0
    if point == "step_completed_not_recorded":
        # Completed before the kill; after it the step's token is dead, which the app takes
        # as done (and then records the request done) instead of failing the result.
        said = f"workflow step {execution_id} had already ended (token_expired)"
        poll(lambda: said in stage.log_text(), timeout=SETTLE_TIMEOUT_S)
    # The request ends done, and nothing is completed or posted again later.
    poll(
        lambda: any(
            r.get("step_execution_id") == execution_id and r.get("state") == "done"
            for r in requests_in_store(stage)
        ),
        timeout=SETTLE_TIMEOUT_S,
    )
    wait_quiet(lambda: len(stage.emu.calls()), settle_s=1.0, timeout=30, what="Slack calls")
    assert _execution(stage, execution_id)["completions_refused"] == 0
    assert len(stage.emu.messages(stage.channel, thread_ts=roots[0]["ts"])) == 4
