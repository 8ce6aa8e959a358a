"""Deps for tests of the jobs (a store in memory, and only the other parts a test gives), and
runs in the sandbox for the watcher to poll."""

from __future__ import annotations

import time
from typing import Any

from suggestbot.contentapi import ContentClient, GenerationRun, SteeredGenerationRequest
from suggestbot.flows.common.deps import Deps
from suggestbot.sandbox import Sandbox
from suggestbot.store import MemoryStore
from suggestbot.store.records import Records, Request


def store_only_deps(**given: Any) -> Deps:
    """``Deps`` over a fresh in-memory store; parts not ``given`` are absent (None), so a test
    that reaches one fails loudly instead of calling something real."""
    parts: dict[str, Any] = {"vault": None, "content": None, "slack": None, "timers": None}
    parts.update(given)
    return Deps(records=Records(MemoryStore()), **parts)


def create_runs(box: Sandbox, machine: ContentClient, count: int) -> list[GenerationRun]:
    """``count`` runs of the demo user, in the order created (the listing shows them newest
    first)."""
    user = machine.as_user(box.demo.user_token)
    brief = SteeredGenerationRequest(
        type="steered_generation",
        segment_id=box.demo.segment_id,
        use_case_id=box.demo.use_case_id,
        steering_text="Autumn offers for trail runners",
    )
    return [user.create_run(request=brief) for _ in range(count)]


def submitted(run_id: str, *, team_id: str = "T1") -> Request:
    """A request whose run ``run_id`` was submitted, as the brief flow leaves it."""
    return Request(
        team_id=team_id,
        user_id="U1",
        channel_id="C1",
        body={"type": "steered_generation"},
        state="submitted",
        run_id=run_id,
        run_status="queued",
        attempt=0,
        sent_at=time.time(),
    )
