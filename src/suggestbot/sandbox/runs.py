"""Generation runs: accepting them, and moving them through their states.

``queued → running → succeeded | failed``, with stalls (``running → queued``, retried, the next
attempt raises ``attempt_count``), the 10-minute attempt limit (``generation_timeout``) and
``steering_disabled`` for runs still waiting when generation from own instructions is switched
off. Durations are the nominal ones of the ``run_timing`` knob, scaled by ``time_factor``.
"""

from __future__ import annotations

import logging
import math
import re
from collections import deque
from datetime import datetime, timedelta
from typing import Any

from suggestbot.sandbox import content
from suggestbot.sandbox.auth import Caller
from suggestbot.sandbox.env import Env
from suggestbot.sandbox.errors import ApiError, not_found, validation_failed
from suggestbot.sandbox.records import PrecomputeJobRec, RunRec
from suggestbot.sandbox.state import NOTHING_PENDING
from suggestbot.sandbox.wire import RefinementRequest, SteeredGenerationRequest

logger = logging.getLogger(__name__)

MAX_STEERING_CHARS = 4000
ATTEMPT_LIMIT_S = 600.0
# C0 and C1 controls except tab, line feed and carriage return; surrogates; non-characters.
_NOT_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def check_text(text: str, *, limit: int | None, text_was_invalid: bool) -> None:
    """The brief or instruction checks that follow schema validation, in the contract's order."""
    if limit is not None and len(text) > limit:
        raise ApiError(422, "input_too_long")
    if not text.strip():
        raise ApiError(422, "input_rejected")
    if text_was_invalid or _NOT_TEXT.search(text):
        raise ApiError(422, "input_invalid_encoding")


def check_rate_limit(env: Env, tenant_id: str, now: datetime) -> None:
    limit = env.faults.run_create_rate_limit
    if limit is None:
        return
    window = timedelta(seconds=limit.window_s)
    times = env.state.run_creations.setdefault(tenant_id, deque())
    while times and times[0] <= now - window:
        times.popleft()
    if len(times) >= limit.max_runs:
        wait = (times[0] + window - now).total_seconds() if times else limit.window_s
        retry_after = max(1, math.ceil(wait))
        raise ApiError(429, "rate_limited", headers={"Retry-After": str(retry_after)})


def create_run(
    env: Env,
    *,
    caller: Caller,
    request: SteeredGenerationRequest | RefinementRequest,
    invalid_text: bool,
) -> RunRec:
    """Accept a run (202) or raise the synchronous error the contract names."""
    assert caller.user_id is not None
    if isinstance(request, SteeredGenerationRequest):
        check_text(request.steering_text, limit=MAX_STEERING_CHARS, text_was_invalid=invalid_text)
        if env.faults.refuses(request.steering_text):
            raise ApiError(422, "input_rejected")
        echo: dict[str, Any] = request.model_dump()
    else:
        # ``input_rejected`` is defined for ``steering_text`` only (contract §7): an instruction
        # that is empty once trimmed fails schema validation like any other missing value.
        if not request.instruction.strip():
            raise validation_failed(
                [
                    {
                        "loc": ["body", "instruction"],
                        "msg": "Instruction must not be empty once trimmed",
                        "type": "string_too_short",
                    }
                ]
            )
        if invalid_text or _NOT_TEXT.search(request.instruction):
            raise ApiError(422, "input_invalid_encoding")
        echo = request.model_dump()
    now = env.now()
    state = env.state
    with state.lock:
        if isinstance(request, SteeredGenerationRequest):
            if content.segment_in(env, caller.tenant_id, request.segment_id) is None:
                raise not_found()
            if content.use_case_in(env, caller.tenant_id, request.use_case_id) is None:
                raise not_found()
        else:
            parent = state.suggestions.get(request.parent_suggestion_id)
            if parent is None or not content.can_see_suggestion(caller, parent):
                raise not_found()
            if "image" in request.model_fields_set and content.image_of(parent) is None:
                raise ApiError(422, "image_not_applicable", details={"field": "image"})
        if not content.tenant_of(env, caller).steering_enabled:
            raise ApiError(403, "steering_disabled")
        check_rate_limit(env, caller.tenant_id, now)
        run = RunRec(
            id=env.ids.new(),
            tenant_id=caller.tenant_id,
            type=request.type,
            created_at=now,
            created_by=caller.user_id,
            request=echo,
            due_at=now + env.scaled(env.faults.run_timing.queued_s),
        )
        state.add_run(run)
        if env.faults.run_create_rate_limit is not None:
            state.run_creations.setdefault(caller.tenant_id, deque()).append(now)
        state.touch()
    env.wake.set()
    logger.info("run %s accepted (%s)", run.id, run.type)
    return run


def fail_waiting_runs(env: Env, *, tenant_id: str) -> int:
    """Steering switched off: runs still queued fail with ``steering_disabled``."""
    failed = 0
    with env.state.lock:
        for run in env.state.runs.values():
            if run.tenant_id == tenant_id and run.status == "queued":
                _fail(run, "steering_disabled")
                failed += 1
        if failed:
            env.state.touch()
    return failed


def _fail(run: RunRec, code: str) -> None:
    run.status = "failed"
    run.error_code = code
    run.due_at = None
    logger.info("run %s failed: %s", run.id, code)


def _complete(env: Env, run: RunRec) -> None:
    """Finish an attempt: a knob-ordered failure, a safety refusal, or the content."""
    code = env.faults.take_run_failure()
    if code is not None:
        _fail(run, code)
        return
    text = run.request.get("steering_text") or run.request.get("instruction") or ""
    if env.faults.rejects_output(str(text)):
        _fail(run, "output_rejected")
        return
    if run.type == "steered_generation":
        request = run.request
        record = content.create_set(
            env,
            tenant_id=run.tenant_id,
            segment_id=request["segment_id"],
            use_case_id=request["use_case_id"],
            origin="steered",
            variant_count=int(request["variant_count"]),
            brief=request["steering_text"],
            run_id=run.id,
            created_by=run.created_by,
        )
        run.suggestion_set_id = record.id
    else:
        parent = env.state.suggestions.get(run.request["parent_suggestion_id"])
        if parent is None or not content.head_check(env, parent):
            _fail(run, "invalid_parent")
            return
        run.suggestion_id = content.refine(env, run=run, parent=parent).id
    run.status = "succeeded"
    run.due_at = None
    logger.info("run %s succeeded", run.id)


def _advance_run(env: Env, run: RunRec, now: datetime) -> bool:
    timing = env.faults.run_timing
    if run.status == "queued":
        if run.due_at is None or run.due_at > now:
            return False
        if not env.state.tenants[run.tenant_id].steering_enabled:
            _fail(run, "steering_disabled")
            return True
        run.status = "running"
        run.attempt_count += 1
        run.attempt_started_at = now
        run.due_at = now + env.scaled(timing.running_s)
        run.stall_pending = env.faults.take_stall()
        return True
    if run.status != "running" or run.due_at is None or run.attempt_started_at is None:
        return False
    deadline = run.attempt_started_at + env.scaled(ATTEMPT_LIMIT_S)
    if run.due_at > deadline:
        if now < deadline:
            return False
        _fail(run, "generation_timeout")
        return True
    if run.due_at > now:
        return False
    if run.stall_pending:
        run.stall_pending = False
        run.status = "queued"
        run.due_at = now + env.scaled(timing.queued_s)
        logger.info("run %s stalled; queued again", run.id)
        return True
    _complete(env, run)
    return True


def _finish_precompute(env: Env, job: PrecomputeJobRec) -> None:
    content.create_set(
        env,
        tenant_id=job.tenant_id,
        segment_id=job.segment_id,
        use_case_id=job.use_case_id,
        origin="precompute",
        variant_count=env.state.use_cases[job.use_case_id].precompute_variants,
        brief=None,
        run_id=None,
        created_by=None,
    )


def advance(env: Env) -> tuple[int, datetime | None]:
    """Make every transition that is due; returns how many, and when the next one is due.

    Walking every run holds the state lock (listings wait) and the GIL, and the worker calls
    this many times a second: while the earliest next move that the last walk found (see
    :attr:`State.next_move_at`) is still ahead, nothing can be due, so the walk is skipped.
    """
    now = env.now()
    state = env.state
    with state.lock:
        known = state.next_move_at
        if known is not None and now < known:
            return 0, None if known == NOTHING_PENDING else known
        moved, next_due = _walk(env, now)
        state.next_move_at = NOTHING_PENDING if next_due is None else next_due
        if moved:
            state.touch()
    return moved, next_due


def _walk(env: Env, now: datetime) -> tuple[int, datetime | None]:
    """Every run and ready-made generation in progress, moved as far as ``now`` allows."""
    moved = 0
    next_due: datetime | None = None
    for run in list(env.state.runs.values()):
        if run.status in ("queued", "running"):
            # A transition may make the next one due at once (zero durations).
            while _advance_run(env, run, now):
                moved += 1
            if run.due_at is not None:
                due = run.due_at
                if run.status == "running" and run.attempt_started_at is not None:
                    due = min(due, run.attempt_started_at + env.scaled(ATTEMPT_LIMIT_S))
                next_due = due if next_due is None else min(next_due, due)
    for key, job in list(env.state.precompute_jobs.items()):
        if job.due_at <= now:
            del env.state.precompute_jobs[key]
            _finish_precompute(env, job)
            moved += 1
        else:
            next_due = job.due_at if next_due is None else min(next_due, job.due_at)
    return moved, next_due


def trigger_precompute(env: Env, *, tenant_id: str, segment_id: str, use_case_id: str) -> bool:
    """Start a regeneration, or join the one in progress; True if a new one started."""
    key = f"{tenant_id}|{segment_id}|{use_case_id}"
    with env.state.lock:
        if key in env.state.precompute_jobs:
            return False
        job = PrecomputeJobRec(
            tenant_id=tenant_id,
            segment_id=segment_id,
            use_case_id=use_case_id,
            due_at=env.now() + env.scaled(env.faults.run_timing.precompute_s),
        )
        env.state.precompute_jobs[key] = job
        env.state.expect_move_at(job.due_at)
        env.state.touch()
    env.wake.set()
    return True
