"""A failure between an input's ack and the hand-over of its work: its hold is no longer
renewed (nobody would ever end it), so it runs out and the recorded work is carried out again,
as a dead replica's would be."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from dispatch_helpers import Workspace

from suggestbot.slackapp.edge import take
from suggestbot.ui.blocks import ids


@pytest.fixture
def ws() -> Iterator[Workspace]:
    workspace = Workspace()
    yield workspace
    workspace.close()


def _reason_view(view_id: str) -> dict[str, Any]:
    return {"id": view_id, "callback_id": ids.VIEW_FEEDBACK_REASON, "blocks": []}


def test_a_failure_before_the_hand_over_leaves_the_hold_to_run_out(
    ws: Workspace, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("a bug between the ack and the hand-over")

    monkeypatch.setattr(take, "in_background", broken)
    ws.submit(_reason_view("V0FAILING1"), {})
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


def test_a_failure_after_the_hand_over_keeps_the_hold_until_the_work_ends(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    handed = take.in_background

    def hand_over_then_fail(*args: Any, **kwargs: Any) -> None:
        handed(*args, **kwargs)
        raise RuntimeError("a bug after the hand-over")

    monkeypatch.setattr(take, "in_background", hand_over_then_fail)
    ws.submit(_reason_view("V0FAILING2"), {})
    deliveries = ws.deps.deliveries
    assert deliveries is not None
    assert deliveries.unfinished() == [] and deliveries.held() == set()
