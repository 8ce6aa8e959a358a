"""Polling submitted runs on the contract's schedule with the machine token.

Runs due at about the same time are polled together: one sweep of the run listing (newest
first, 100 a page, every run of the tenant for the machine token) reads many runs per request,
where polling each would cost one request per run — 5,000 watched runs are ~50 requests a tick,
not 5,000. A sweep reads at most half as many pages as the runs it serves, and a run it did not
meet (older than the pages read, or missed because the listing moved while paging) is polled
alone; so a sweep never costs more than polling each run, and no run goes unpolled.

A run moving ``running → queued`` (a stalled attempt) is shown as "retrying", never as a
failure. Transient trouble reaching the service just means the next poll comes later.

Each run keeps the guidance's spacing between the times its state is *read* (its listing page
arrived, or its single poll answered): the next poll is due one interval after this one was
due or was read, whichever came later. A poll is read at most the sweep's early tolerance
before it is due (see ``jobs.timers``), so two reads of a run are never closer than one
interval minus that tolerance. A run met on a page read for other runs is not polled by it
(nothing is rescheduled), except that a finished one is settled at once.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence

from suggestbot import metrics
from suggestbot.contentapi import (
    ContentApiError,
    GenerationRun,
    NotFound,
    RunStatus,
    ServerError,
    Timeout,
    TransportError,
    Unauthorized,
)
from suggestbot.contentapi.polling import next_poll_delay
from suggestbot.flows import home, requests, results, turns
from suggestbot.flows.deps import Deps
from suggestbot.jobs.watch_list import Due
from suggestbot.store.records import Request
from suggestbot.ui import failures

log = logging.getLogger(__name__)

WATCH_EXPIRED = failures.WATCH_EXPIRED
_TRANSIENT = (ServerError, TransportError, Timeout, Unauthorized)
# Below this many runs a sweep cannot beat polling each one.
SWEEP_MIN_RUNS = 2
PAGE_SIZE = 100
# A page whose oldest run is this much older than the oldest watched run ends the sweep (the
# margin covers clock differences between the app and the service).
AGE_MARGIN_S = 600.0

# Called with a request and its run when the run finished or moved: the caller settles it in
# a worker, so that posting results never holds up the next sweep.
HandOver = Callable[[str, GenerationRun], None]
# Called with the id of a finished run met on a page read: the id of its request if that
# request is watched and was not busy (it is then taken out for this sweep), else None.
ClaimFinished = Callable[[str], str | None]
# Called with a request (and when its poll was due) whose run the sweep did not meet: the
# caller polls it alone in a worker, so that single polls (each perhaps retried with a backoff
# at a faulty service) run side by side instead of one after another inside the sweep.
PollAlone = Callable[[str, float], None]


def poll(deps: Deps, request_id: str, *, due_at: float | None = None) -> None:
    """One poll of the request's run on its own; schedules the next one unless it ended."""
    req = _watched(deps, request_id)
    if req is None or req.run_id is None:
        return
    try:
        run = deps.content.get_run(run_id=req.run_id)
    except _TRANSIENT as exc:
        log.warning("polling run of request %s failed (%s); polling again later", request_id, exc)
        _again(deps, req, due_at, read_at=time.time())
        return
    except NotFound:
        requests.fail(deps, request_id, failures.NOT_FOUND)
        return
    except ContentApiError as exc:
        log.warning("polling request %s: unexpected %s; polling again later", request_id, exc)
        _again(deps, req, due_at, read_at=time.time())
        return
    metrics.observe_poll(due_at=due_at, read_at=time.time())
    settle(deps, request_id, run, due_at=due_at, read_at=time.time())


def sweep(
    deps: Deps,
    due: Sequence[Due],
    *,
    hand_over: HandOver,
    claim_finished: ClaimFinished = lambda run_id: None,
    poll_alone: PollAlone | None = None,
    time_budget_s: float | None = None,
) -> set[str]:
    """Poll every request in ``due`` (all of one workspace) with as few requests as possible.

    Runs met on the pages read that finished, though their poll was not due yet, are handed
    over too (``claim_finished``): their results need not wait for their own poll.
    Paging stops after ``time_budget_s`` (a slow listing must not hold up every poll of the
    workspace): the runs not met by then are polled alone.
    Returns the request ids handed over (to ``hand_over`` or ``poll_alone``: their poll goes
    on in the worker that got them).
    """
    watched: dict[str, tuple[Request, float]] = {}
    for item in due:
        req = _watched(deps, item.request_id)
        if req is not None and req.run_id is not None:
            watched[req.run_id] = (req, item.at)
    handed: set[str] = set()

    def alone(req: Request, at: float) -> None:
        """One run polled by itself: in a worker when one is offered, else right here."""
        if poll_alone is None:
            poll(deps, req.id, due_at=at)
        else:
            poll_alone(req.id, at)
            handed.add(req.id)

    if len(watched) < SWEEP_MIN_RUNS:
        for req, at in watched.values():
            alone(req, at)
        return handed
    finished_elsewhere: list[GenerationRun] = []
    deadline = None if time_budget_s is None else time.monotonic() + time_budget_s
    found = _read_listing(deps, watched, finished_elsewhere, deadline)
    for run_id, (req, at) in watched.items():
        met = found.get(run_id)
        metrics.observe_poll(due_at=at, read_at=met[1] if met else None)
        if met is None:
            alone(req, at)
        elif _needs_settling(req, met[0]):
            hand_over(req.id, met[0])
            handed.add(req.id)
        else:
            _again(deps, req, at, read_at=met[1])
    for run in finished_elsewhere:
        request_id = claim_finished(run.id)
        if request_id is not None:
            hand_over(request_id, run)
            handed.add(request_id)
    return handed


def settle(
    deps: Deps,
    request_id: str,
    run: GenerationRun,
    *,
    due_at: float | None = None,
    read_at: float | None = None,
) -> None:
    """Act on what a poll read (at ``read_at``, epoch seconds; now if not given): post the
    result, tell the failure, show progress, or wait."""
    req = _watched(deps, request_id)
    if req is None:
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
        home.refresh(deps, team_id=req.team_id, user_id=req.user_id)
        return
    if status is RunStatus.FAILED:
        code = run.error.code if run.error else "generation_failed"
        requests.fail(deps, request_id, code)
        home.refresh(deps, team_id=req.team_id, user_id=req.user_id)
        return
    if _needs_settling(req, run):
        moved = deps.records.requests.update(
            request_id,
            lambda r: r.model_copy(
                update={"run_status": str(status), "attempt": run.attempt_count}
            ),
        )
        if moved:
            requests.refresh_root(deps, moved)
    _again(deps, req, due_at, read_at=read_at)


def _watched(deps: Deps, request_id: str) -> Request | None:
    req = deps.records.requests.get(request_id)
    if req is None or req.run_id is None or req.state not in ("submitted", "posting"):
        return None
    return req


def _needs_settling(req: Request, run: GenerationRun) -> bool:
    """Finished, or moved since the last poll (its root message shows the run's state)."""
    status = RunStatus(run.status)
    if status in (RunStatus.SUCCEEDED, RunStatus.FAILED):
        return True
    return (str(status), run.attempt_count) != (req.run_status, req.attempt)


def _read_listing(
    deps: Deps,
    watched: dict[str, tuple[Request, float]],
    finished_elsewhere: list[GenerationRun],
    deadline: float | None,
) -> dict[str, tuple[GenerationRun, float]]:
    """The watched runs met in the listing's first pages, each with when its page arrived (at
    most half as many pages as runs, none begun after ``deadline``); other finished runs met
    go to ``finished_elsewhere``.

    A page that fails is not retried: the runs not met by then are polled alone, each with the
    client's retries, which is what polling without sweeps would have done (a sweep waiting
    out a backoff would hold up every other poll of the workspace).
    """
    budget = math.ceil(len(watched) / 2)
    oldest = min(req.sent_at or req.created_at for req, _ in watched.values()) - AGE_MARGIN_S
    found: dict[str, tuple[GenerationRun, float]] = {}
    cursor: str | None = None
    for _ in range(budget):
        try:
            page = deps.content.list_runs_page(cursor=cursor, limit=PAGE_SIZE, retry=False)
        except ContentApiError as exc:
            log.warning(
                "listing runs failed (%s); polling the %d runs not met alone",
                exc,
                len(watched) - len(found),
            )
            break
        arrived = time.time()
        for run in page.items:
            if run.id in watched:
                found.setdefault(run.id, (run, arrived))
            elif RunStatus(run.status).is_terminal:
                finished_elsewhere.append(run)
        cursor = page.next_cursor
        if cursor is None or len(found) == len(watched):
            break
        if page.items and page.items[-1].created_at.timestamp() < oldest:
            break
        if deadline is not None and time.monotonic() > deadline:
            break
    return found


def _again(deps: Deps, req: Request, due_at: float | None, *, read_at: float | None) -> None:
    """Schedule the next poll by the contract's schedule: one interval after this poll was due
    or was read, whichever came later.

    From when it was due when it was read early (to join a sweep), so the run keeps its
    rhythm; from when it was read when it was read late, so that a late read followed by an
    early one never puts two reads closer than the guidance allows (less the early tolerance).
    """
    elapsed = deps.clock() - (req.sent_at or req.created_at)
    delay = next_poll_delay(elapsed / deps.poll_scale)
    if delay is None:
        requests.fail(deps, req.id, WATCH_EXPIRED)
        return
    interval = delay * deps.poll_scale
    now = time.time()
    read = now if read_at is None else read_at
    start = read if due_at is None else max(due_at, read)
    deps.timers.watch_run(req.id, delay_s=start + interval - now)
