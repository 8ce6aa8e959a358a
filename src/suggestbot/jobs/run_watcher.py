"""Polling submitted runs on the contract's schedule with the machine token.

Runs due at about the same time are polled together: one sweep of the run listing (newest
first, 100 a page, every run of the tenant for the machine token) reads many runs per request,
where polling each would cost one request per run — 5,000 watched runs are ~50 requests a tick,
not 5,000. A sweep reads at most half as many pages as the runs it serves, and a run it did not
meet (older than the pages read, or missed because the listing moved while paging) is polled
alone; so a sweep never costs more than polling each run, and no run goes unpolled.

A sweep rolls: polls that fall due while it pages join it at the next page instead of waiting
for it to end, and it starts over from the first page for those whose pages it had passed.

The listing is newest first, so the runs most due — the oldest, when briefs come in over time —
sit on the last pages of a walk from the first page: at 5,000 runs a walk of 50 pages reaches
them seconds late. So a run met once is *placed* (``jobs.run_positions``: the cursor of its
page, which keeps its runs however many are created after them) and its next poll reads that
one page once it is due, with every other run of the page due within the early tolerance:
about one request per 100 polls, on time. Only runs not placed yet (new ones, those met on
the first page, which moves) are walked for from the first page.

A run moving ``running → queued`` (a stalled attempt) is shown as "retrying", never as a
failure. Transient trouble reaching the service just means the next poll comes later.

Each run keeps the guidance's spacing between the times its state is *read* (its listing page
arrived, or its single poll answered): the next poll is due one interval after this one was
due or was read, whichever came later — or, for a run the watcher's sweeps read (they know
where runs sit), one interval after the read: a page is read, and a walk from the first page
begins, only once a run sought there is due, and a read that serves polls also serves the
others filed under that page which fall due within half an interval and nobody holds (the page
shows their runs as well), so the runs read together are due together and one read serves
them all each interval, however their polls were split before (by walk groups, or between
replicas). A page is read at most the sweep's early tolerance before the first of its runs
sought there is due (see ``jobs.leases``). A run met on a page read for other runs and not
served by it (its poll filed elsewhere, or held by another replica) is not polled by it
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
from suggestbot.flows.brief import results
from suggestbot.flows.common import requests
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.home import tab as home
from suggestbot.flows.refine import turns
from suggestbot.jobs.poll_groups import page_group
from suggestbot.jobs.run_positions import RunPositions
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
# While runs wait for their own page to fall due, polls that fall due meanwhile are taken in
# at least this often.
PLACED_WAIT_S = 0.05

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
# Called after each page of a rolling sweep: the polls of the listing that fell due meanwhile
# (taken out for this sweep), which join it.
TakeMore = Callable[[], Sequence[Due]]
# Called with the requests whose poll the sweep has finished (rescheduled), page by page.
Settled = Callable[[list[str]], None]
# Asked between passes of a rolling sweep: False when other listings wait for a sweeper, so
# this one gives its place up instead of rolling on (a rolling sweep never ends by itself
# while its listing's polls keep falling due).
KeepRolling = Callable[[], bool]
# Called with the polls a sweep that gave its place up had not served yet, and when its next
# pass would have begun (epoch seconds): they wait for their listing's next turn.
PutBack = Callable[[Sequence[Due], float], None]
# Called with the cursor of a listing page just read for polls it served (None: the first
# page): the polls filed under that page which fall due within half an interval and nobody
# holds, taken out for this sweep (the read shows their runs too, so it serves them).
Adopt = Callable[[str | None], Sequence[Due]]


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
    more: TakeMore | None = None,
    settled: Settled | None = None,
    pass_every_s: float = 0.0,
    keep_rolling: KeepRolling | None = None,
    put_back: PutBack | None = None,
    positions: RunPositions | None = None,
    adopt: Adopt | None = None,
) -> set[str]:
    """Poll every request in ``due`` (all read from one run listing: ``Deps.listing_of``; the
    workspaces on the app's own client share one) with as few requests as possible.

    Each page is acted on as it arrives: a run met on it is rescheduled from that moment (and
    ``settled`` is told), or handed over when it finished or moved. Runs met on the pages read
    that finished, though their poll was not due yet, are handed over too
    (``claim_finished``): their results need not wait for their own poll.

    With ``positions`` (where each run was last met, see :mod:`~suggestbot.jobs.run_positions`),
    a run whose page is known is read from that page once its poll is due — one request for
    every run of the page due within the early tolerance, without walking the pages before it
    — and only the runs not placed yet are walked for from the first page (which places them).
    A run not on its page any more is walked for.

    With ``adopt``, a page read that served polls also serves the others filed under it that
    fall due soon (``adopt`` says which): their runs are on it, so they are rescheduled from
    this read with the rest, and the page's runs fall due together (one read an interval)
    however their polls were split before. A page read in passing (a walk to other pages)
    serves only the polls sought there, and so does any page while other polls wait, due,
    for their reads: catching up comes first.

    With ``more``, the sweep rolls on: after each page it asks for the polls that fell due
    meanwhile and serves them from the next pages, starting over from the first page for those
    it may have passed, until no run is left to serve; a pass begins at most every
    ``pass_every_s`` (the service sees one walk round the listing per period, however fast it
    answers). A run a whole pass (from the first page to the end of the listing) did not meet
    is polled alone. Between passes, when ``keep_rolling`` says no, the sweep ends and hands
    the polls it has not served to ``put_back`` (neither read nor polled alone): other
    listings get the sweeper meanwhile. Paging also stops after ``time_budget_s`` in one
    pass (a slow listing must not hold up every poll read from it) once no more runs are
    left than a page holds (more are served by the next pages with fewer requests, and no
    later: thousands of single reads would only queue behind each other and the service's
    rate limit): the runs the walk still seeks are polled alone, and those whose pages are
    known wait for those pages (a loaded machine whose walks overrun would otherwise poll
    every placed run alone, a request each). Paging ends once it has read half as many pages
    as the runs it served, or at a failing page: every run not met by then is polled alone.

    Returns the request ids handed over (to ``hand_over`` or ``poll_alone``: their poll goes
    on in the worker that got them).
    """
    handed: set[str] = set()
    # Run id -> its request, when its poll was due, and the pass during which it joined (0:
    # before the first); a run is missed once a pass that began after it joined is over.
    watched: dict[str, tuple[Request, float, int]] = {}
    served = 0

    def join(items: Sequence[Due], pass_no: int) -> None:
        nonlocal served
        # Read together: one round trip for the batch on a database, not one per poll.
        found = deps.records.requests.get_many([item.request_id for item in items]) if items else {}
        for item in items:
            req = found.get(item.request_id)
            if _is_watched(req) and req is not None and req.run_id is not None:
                watched[req.run_id] = (req, item.at, pass_no)
                served += 1

    def alone(req: Request, at: float) -> None:
        """One run polled by itself: in a worker when one is offered, else right here."""
        if poll_alone is None:
            poll(deps, req.id, due_at=at)
        else:
            poll_alone(req.id, at)
            handed.add(req.id)

    def all_alone(*, sought_only: bool = False, joined_before: float = math.inf) -> None:
        """Poll alone what is left; ``sought_only``: only the runs the walk seeks (placed runs
        wait for their own pages), and only those that joined before pass ``joined_before``."""
        for run_id, (req, at, joined) in list(watched.items()):
            if joined >= joined_before or (sought_only and not unplaced(run_id)):
                continue
            del watched[run_id]
            alone(req, at)

    def unplaced(run_id: str) -> bool:
        return positions is None or positions.cursor(run_id) is None

    def act(items: Sequence[GenerationRun], cursor: str | None, pass_no: int) -> None:
        arrived = time.time()
        if positions is not None:
            positions.met((run.id for run in items), cursor)
        if adopt is not None:
            on_page = {run.id for run in items}
            # Not a page read in passing (a walk to other pages: its polls keep their times),
            # nor while behind (a start, a backlog: due polls first, the page's others later).
            # Taken before the page is acted on, so that one write reschedules them all.
            if not on_page.isdisjoint(watched) and not any(
                at <= arrived for run_id, (_, at, _) in watched.items() if run_id not in on_page
            ):
                join(adopt(cursor), pass_no)
        serve(items, cursor, arrived)

    def serve(items: Sequence[GenerationRun], cursor: str | None, arrived: float) -> None:
        _act_on_page(
            deps,
            items,
            positions is not None,
            watched,
            arrived,
            hand_over,
            claim_finished,
            handed,
            settled,
            page=cursor,
        )

    def read_placed(pass_no: int) -> None:
        """The known pages of the runs whose poll is due by now, earliest due first."""
        if positions is None:
            return
        first_due: dict[str, float] = {}
        on_page: dict[str, list[str]] = {}
        for run_id, (_, at, _) in watched.items():
            cursor = positions.cursor(run_id)
            if cursor is not None:
                first_due[cursor] = min(at, first_due.get(cursor, at))
                on_page.setdefault(cursor, []).append(run_id)
        now = time.time()
        for cursor in sorted(
            (c for c, at in first_due.items() if at <= now), key=lambda c: first_due[c]
        ):
            try:
                page = deps.content.list_runs_page(cursor=cursor, limit=PAGE_SIZE, retry=False)
            except ContentApiError as exc:
                log.warning("reading a page of the run listing failed (%s); walking instead", exc)
                positions.forget(on_page[cursor])
                continue
            act(page.items, cursor, pass_no)
            # Not where it was (it should be): found again by a walk from the first page.
            positions.forget(rid for rid in on_page[cursor] if rid in watched)
            if more is not None:
                join(more(), pass_no)

    join(due, 0)
    if len(watched) < SWEEP_MIN_RUNS:
        all_alone()
        return handed
    pages = 0
    pass_no = 0
    walk_at = time.monotonic()  # when the next walk from the first page may begin
    while True:
        if not watched and more is not None:
            join(more(), pass_no)
        if not watched:
            break
        read_placed(pass_no)
        # A walk may begin once a pass period has gone by and (with positions) once a run it
        # seeks is due: the runs it reads together are then due again together.
        sought_due = min(
            (at for run_id, (_, at, _) in watched.items() if unplaced(run_id)), default=math.inf
        )
        walking = sought_due < math.inf
        walk_from = time.time() + walk_at - time.monotonic()
        if positions is not None:
            walk_from = max(walk_from, sought_due)
        if not (walking and time.time() >= walk_from):
            if not watched:
                continue
            # Wait for the next page that falls due, or for the next walk.
            next_at = min(
                (at for run_id, (_, at, _) in watched.items() if not unplaced(run_id)),
                default=math.inf,
            )
            if walking:
                next_at = min(next_at, walk_from)
            if put_back is not None and keep_rolling is not None and not keep_rolling():
                put_back([Due(req.id, at) for req, at, _ in watched.values()], next_at)
                return handed
            wait_s = next_at - time.time()
            if positions is not None:
                wait_s = min(wait_s, PLACED_WAIT_S)
            time.sleep(max(0.0, wait_s))
            if more is not None:
                join(more(), pass_no)
            continue
        if pass_no and put_back is not None and keep_rolling is not None and not keep_rolling():
            # Between passes, and other listings wait for a sweeper.
            put_back([Due(req.id, at) for req, at, _ in watched.values()], time.time())
            return handed
        pass_no += 1
        began = time.monotonic()
        walk_at = began + pass_every_s
        deadline = None if time_budget_s is None else began + time_budget_s
        cursor: str | None = None
        while True:
            if pages >= math.ceil(served / 2):
                all_alone()  # paging costs more than polling each run by now
                return handed
            try:
                page = deps.content.list_runs_page(cursor=cursor, limit=PAGE_SIZE, retry=False)
            except ContentApiError as exc:
                log.warning("listing runs failed (%s); polling %d runs alone", exc, len(watched))
                all_alone()
                return handed
            pages += 1
            act(page.items, cursor, pass_no)
            if more is not None:
                join(more(), pass_no)
            read_placed(pass_no)
            cursor = page.next_cursor
            sought = [req for run_id, (req, _, _) in watched.items() if unplaced(run_id)]
            if cursor is None or not sought:
                break
            oldest = min(req.sent_at or req.created_at for req in sought)
            if page.items and page.items[-1].created_at.timestamp() < oldest - AGE_MARGIN_S:
                break
            if deadline is not None and time.monotonic() > deadline and len(sought) <= PAGE_SIZE:
                # The walk is over; the runs whose pages are known still wait for those pages
                # (one read for a page's runs, where polling each alone would cost one each).
                all_alone(sought_only=True)
                break
        # A run that was watched when this pass began and was not met is not in the listing.
        all_alone(sought_only=True, joined_before=pass_no)
    return handed


def _act_on_page(
    deps: Deps,
    runs: Sequence[GenerationRun],
    together: bool,
    watched: dict[str, tuple[Request, float, int]],
    arrived: float,
    hand_over: HandOver,
    claim_finished: ClaimFinished,
    handed: set[str],
    settled: Settled | None,
    *,
    page: str | None,
) -> None:
    """The watched runs on the page ``page`` asked for (a cursor; None: the first page), which
    arrived at ``arrived``: each rescheduled from then, or handed over; other finished runs on
    it handed over when their request can be claimed. The page's next polls are written
    together (one statement, not a commit per run), filed under the page
    (``jobs.poll_groups``), so that whichever replica claims them next reads this page for
    them. ``together``: pages are read once a run sought there is due, so the page's runs are
    due again together, from the read (see :func:`_next_delay`)."""
    rescheduled: list[str] = []
    delays: dict[str, float] = {}
    groups: dict[str, str] = {}
    for run in runs:
        entry = watched.pop(run.id, None)
        if entry is not None:
            req, at, _ = entry
            metrics.observe_poll(due_at=at, read_at=arrived)
            if _needs_settling(req, run):
                hand_over(req.id, run)
                handed.add(req.id)
            else:
                delay_s = _next_delay(deps, req, at, read_at=arrived, together=together)
                if delay_s is not None:
                    delays[req.id] = delay_s
                    groups[req.id] = page_group(deps.listing_of(req.team_id), page)
                rescheduled.append(req.id)
        elif RunStatus(run.status).is_terminal:
            request_id = claim_finished(run.id)
            if request_id is not None:
                hand_over(request_id, run)
                handed.add(request_id)
    if delays:
        deps.timers.watch_runs(delays, groups=groups)
    if settled is not None and rescheduled:
        settled(rescheduled)


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
    return req if _is_watched(req) else None


def _is_watched(req: Request | None) -> bool:
    return req is not None and req.run_id is not None and req.state in ("submitted", "posting")


def _needs_settling(req: Request, run: GenerationRun) -> bool:
    """Finished, or moved since the last poll (its root message shows the run's state)."""
    status = RunStatus(run.status)
    if status in (RunStatus.SUCCEEDED, RunStatus.FAILED):
        return True
    return (str(status), run.attempt_count) != (req.run_status, req.attempt)


def _again(deps: Deps, req: Request, due_at: float | None, *, read_at: float | None) -> None:
    """Schedule the next poll by the contract's schedule (see :func:`_next_delay`)."""
    delay_s = _next_delay(deps, req, due_at, read_at=read_at)
    if delay_s is not None:
        deps.timers.watch_run(req.id, delay_s=delay_s)


def _next_delay(
    deps: Deps,
    req: Request,
    due_at: float | None,
    *,
    read_at: float | None,
    together: bool = False,
) -> float | None:
    """Seconds from now to the next poll: one interval after this poll was due or was read,
    whichever came later; None (and the request failed) once the run has been watched too long.

    From when it was due when it was read early (to join a sweep), so the run keeps its
    rhythm; from when it was read when it was read late, so that a late read followed by an
    early one never puts two reads closer than the guidance allows (less the early tolerance).
    ``together``: read with the other runs of its page, so from the read either way — the
    page's runs stay due together (the page was read once the first of them was due, so none
    of them ends up read early again and again).
    """
    # Its age on the clock it was sent by (the database's when replicas share one).
    elapsed = deps.shared_now() - (req.sent_at or req.created_at)
    delay = next_poll_delay(elapsed / deps.poll_scale)
    if delay is None:
        requests.fail(deps, req.id, WATCH_EXPIRED)
        return None
    interval = delay * deps.poll_scale
    now = time.time()
    read = now if read_at is None else read_at
    start = read if due_at is None or together else max(due_at, read)
    return start + interval - now
