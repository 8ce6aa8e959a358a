"""A listener that fails before it hands a recorded interaction's work over: its hold is no
longer renewed (nobody would ever end it), so it runs out and the recorded work is carried out
again, as a dead replica's would be."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from dispatch_helpers import Workspace
from slack_bolt import Ack

from suggestbot.slackapp.listeners import interactions

VIEW = "test_failing_listener_view"


@pytest.fixture
def ws() -> Iterator[Workspace]:
    workspace = Workspace()
    yield workspace
    workspace.close()


def test_a_listener_that_raises_before_handing_over_leaves_its_hold_to_run_out(
    ws: Workspace, caplog: pytest.LogCaptureFixture
) -> None:
    carried_out: list[dict[str, Any]] = []
    interactions.on_view(VIEW, lambda deps, body: carried_out.append(body))

    @ws.app.view(VIEW)
    def failing(ack: Ack, body: dict[str, Any]) -> None:
        ack()
        raise RuntimeError("a bug between the ack and the hand-over")

    view = {"id": "V0FAILING1", "callback_id": VIEW, "blocks": [], "private_metadata": ""}
    ws.submit(view, {})
    deliveries = ws.deps.deliveries
    assert deliveries is not None
    [(key, _)] = deliveries.unfinished()  # still recorded: the work was never done
    assert deliveries.held() == set()  # but no longer renewed by this process
    assert deliveries.renew_held() == []
    assert "a listener failed after its ack (RuntimeError)" in caplog.text

    # Once its hold has run out it is claimed, like a dead replica's, and carried out.
    claims = ws.store.claim_due(
        "interactions", owner="other", now=9e9, due_by=9e9, lease_s=10, limit=9
    )
    assert [claim.key for claim in claims] == [key]


def test_a_listener_that_hands_over_then_raises_keeps_its_hold_until_the_work_ends(
    ws: Workspace,
) -> None:
    done: list[str] = []
    interactions.on_view(VIEW, lambda deps, body: done.append("replayed"))

    @ws.app.view(VIEW)
    def handing_over(ack: Ack, body: dict[str, Any]) -> None:
        ack()
        from suggestbot.slackapp.listeners.ack import in_background

        in_background(ws.deps, done.append, "worked", user_id="U0ALICE01", channel_id=None)
        raise RuntimeError("a bug after the hand-over")

    ws.submit({"id": "V0FAILING2", "callback_id": VIEW, "blocks": []}, {})
    deliveries = ws.deps.deliveries
    assert deliveries is not None
    assert done == ["worked"]
    assert deliveries.unfinished() == [] and deliveries.held() == set()
