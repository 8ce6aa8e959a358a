"""Polling each submitted run on the contract's schedule with the machine token.

A run moving ``running → queued`` (a stalled attempt) is shown as "retrying", never as a
failure. Transient trouble reaching the service just means the next poll comes later.
"""

from __future__ import annotations

import logging

from suggestbot.contentapi import (
    ContentApiError,
    NotFound,
    RunStatus,
    ServerError,
    Timeout,
    TransportError,
    Unauthorized,
)
from suggestbot.contentapi.polling import next_poll_delay
from suggestbot.slackapp.flows import brief, failures, results, turns
from suggestbot.slackapp.flows.deps import Deps

log = logging.getLogger(__name__)

WATCH_EXPIRED = failures.WATCH_EXPIRED
_TRANSIENT = (ServerError, TransportError, Timeout, Unauthorized)


def poll(deps: Deps, request_id: str) -> None:
    """One poll of the request's run; schedules the next one unless the run has ended."""
    req = deps.records.requests.get(request_id)
    if req is None or req.run_id is None or req.state not in ("submitted", "posting"):
        return
    elapsed = deps.clock() - (req.sent_at or req.created_at)
    try:
        run = deps.content.get_run(run_id=req.run_id)
    except _TRANSIENT as exc:
        log.warning("polling run of request %s failed (%s); polling again later", request_id, exc)
        _again(deps, request_id, elapsed)
        return
    except NotFound:
        brief.fail(deps, request_id, failures.NOT_FOUND)
        return
    except ContentApiError as exc:
        log.warning("polling request %s: unexpected %s; polling again later", request_id, exc)
        _again(deps, request_id, elapsed)
        return

    status = RunStatus(run.status)
    if status is RunStatus.SUCCEEDED:
        posting = deps.records.requests.update(
            request_id,
            lambda r: r.model_copy(
                update={"state": "posting", "run_status": str(status), "attempt": run.attempt_count}
            ),
        )
        deps.crash_point("run_succeeded")
        if posting and posting.kind == "refinement":
            turns.post_turn(deps, posting, run)
        elif posting:
            results.post_results(deps, posting, run)
        return
    if status is RunStatus.FAILED:
        code = run.error.code if run.error else "generation_failed"
        brief.fail(deps, request_id, code)
        return
    if (str(status), run.attempt_count) != (req.run_status, req.attempt):
        moved = deps.records.requests.update(
            request_id,
            lambda r: r.model_copy(
                update={"run_status": str(status), "attempt": run.attempt_count}
            ),
        )
        if moved:
            brief.refresh_root(deps, moved)
    _again(deps, request_id, elapsed)


def _again(deps: Deps, request_id: str, elapsed: float) -> None:
    delay = next_poll_delay(elapsed / deps.poll_scale)
    if delay is None:
        brief.fail(deps, request_id, WATCH_EXPIRED)
        return
    deps.timers.watch_run(request_id, delay_s=delay * deps.poll_scale)
