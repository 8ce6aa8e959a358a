"""Unsent text is forgotten after its keeping time, and not before."""

from __future__ import annotations

from jobs_helpers import store_only_deps

from suggestbot.flows.refine.replies import KEEP_PENDING, pending
from suggestbot.jobs import retention
from suggestbot.store.conversation import PendingInstruction
from suggestbot.store.records import KEEP_HELD, HeldInput

DAY = 24 * 3600.0
NOW = 1_800_000_000.0


def test_held_text_and_pending_replies_go_after_their_keeping_time_only() -> None:
    deps = store_only_deps(clock=lambda: NOW)
    held_days, pending_days = KEEP_HELD.days, KEEP_PENDING.days
    for days in (held_days - 1, held_days + 1):
        held = HeldInput(
            team_id="T1", user_id="U1", channel_id="C1", text=f"{days}", created_at=NOW - days * DAY
        )
        deps.records.held.put(held.id, held)
    for days in (pending_days - 1, pending_days + 1):
        item = PendingInstruction(
            team_id="T1",
            user_id="U1",
            channel="C1",
            thread_ts="1.0",
            text=f"{days}",
            created_at=NOW - days * DAY,
        )
        pending(deps).put(item.id, item)

    assert retention.prune_unsent(deps) == 2

    assert [h.text for h in deps.records.held.values()] == [f"{held_days - 1}"]
    assert [p.text for p in pending(deps).values()] == [f"{pending_days - 1}"]
