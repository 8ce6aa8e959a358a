"""Linking: the connect modal's token check, which its listener waits for before the ack."""

from __future__ import annotations

import contextvars

from flows_helpers import ALICE, TEAM, world

from suggestbot.flows.linking import accounts as linking
from suggestbot.slackapp.priority import PriorityGate, mark_foreground

# Long enough that a check held by the gate would miss the listener's budget below.
GATE_BOUND_S = 60.0
LISTENER_BUDGET_S = 10.0


def test_the_token_check_is_not_held_by_the_request_that_waits_for_it() -> None:
    """Post-ack work yields to Slack requests in flight; the check a listener starts before its
    ack belongs to that request (its context), so it calls the service at once instead of
    waiting for its own request to be answered — the modal would ack a second later per call."""
    w = world()
    gate = PriorityGate(max_wait_s=GATE_BOUND_S)
    waited: list[float] = []
    w.deps.content.before_each_send(lambda: waited.append(gate.yield_to_requests()))

    def listener() -> linking.LinkResult | None:
        mark_foreground()  # what the HTTP edge does for the thread serving a request
        checking = linking.verify_soon(w.deps, team_id=TEAM, user_id=ALICE, token="a-token")
        return linking.result_within(checking, seconds=LISTENER_BUDGET_S)

    with gate.serving():  # the connect submission, waiting for its ack
        result = contextvars.copy_context().run(listener)

    assert result is not None, "the check was held until after the listener's budget"
    assert waited and set(waited) == {0.0}
