"""The flows' deferred work (:class:`~suggestbot.flows.common.deps.Timers`).

- **Sends** (a brief waiting to be sent, or to be sent again after ``Retry-After``) are units
  of work in the store too (``records.run_sends``), claimed by one process once due (never
  early) and run on the scheduler's workers (job id ``request:<id>``).
- **Polls** of submitted runs are units of work in the store (``records.run_polls``), filed
  under their workspace and claimed **by workspace** (``Store.claim_due_grouped``): a
  workspace's due polls go to the one process that holds a lease in it, or, when none does,
  to one process as a whole, so that several replicas on one database split the workspaces,
  never poll one run twice at once, and a workspace's runs are served by one walk of its run
  listing (100 runs a page) instead of each replica reading its scattered share one by one.
  One watch thread claims what is due (plus what falls due within the early tolerance) into a
  local :class:`~suggestbot.jobs.watch_list.WatchList`, takes it out, groups it by workspace
  and hands each group to a sweeper (:func:`~suggestbot.jobs.run_watcher.sweep`); while a
  workspace's sweep runs, its polls are claimed and taken out as soon as they are due within
  the early tolerance and join that sweep at its next page (it rolls on while there are any).
  A replica serves its fair share of the workspaces however many there are: when more of them
  have work than there are sweepers, a rolling sweep gives its sweeper up after each pass and
  its workspace waits its turn (one pass each, round the workspaces), so that no workspace
  waits for another's polls to stop falling due.
  Runs that finished or moved are settled on the scheduler's workers. The thread renews the
  leases it holds every third of the lease period; a poll's next due time is written to the
  store when it is rescheduled (which ends the lease, and is skipped when the lease is no
  longer this process's), and a poll that asked for none is released as done. A process that
  dies holding leases loses them when they run out: another one claims those workspaces then,
  within one lease period. One workspace is served by one process at a time: a single
  workspace's polls never spread over replicas (its listing is one walk).

A request is either waiting to be sent or being watched, never both: each of ``watch_run`` and
``send_later`` replaces the other.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor

from suggestbot import metrics
from suggestbot.contentapi import GenerationRun
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.common.requests import first_poll_delay
from suggestbot.installations.scope import team_scope
from suggestbot.jobs import run_watcher
from suggestbot.jobs.recovery import resume_one
from suggestbot.jobs.run_positions import RunPositions
from suggestbot.jobs.scheduler import Scheduler
from suggestbot.jobs.watch_list import Due, WatchList
from suggestbot.store import StoreError
from suggestbot.store.base import Claim
from suggestbot.store.records import Request, Table
from suggestbot.store.work_queue import WorkQueue

log = logging.getLogger(__name__)

# After a job fails unexpectedly (Slack down past its retries, a bug), try again later rather
# than leave the request stranded until the next restart: 30 s, doubling, at most 30 min.
FIRST_RETRY_S = 30.0
MAX_RETRY_S = 1800.0
# Early tolerance: a poll due within this share of the shortest poll interval joins the sweep
# being started (1 s at the contract's 10 s), so that one listing sweep serves every run due
# in the next second instead of one sweep each. It is the only way a run is read before its
# poll is due, and never by more: with the next poll counted from when this one was due or
# read, whichever is later (``run_watcher``), the service never sees a run polled less than
# 90 % of the guidance's interval after its previous poll — within the jitter any client's
# timer has, and a tenth of an interval of lag saved for every run of the sweep.
EARLY_SHARE = 0.1
# A sweep stops paging after this share of the interval; what it has not met by then is polled
# alone, side by side on the scheduler's workers (a slow listing degrades to single polls).
SWEEP_BUDGET_SHARE = 0.5
# A rolling sweep begins a pass round the listing at most once per this share of the interval
# (1 s at 10 s), the early tolerance: a poll joins it up to that long before it is due, so the
# pass that reads it begins by the time it is due, and it is late by no more than the walk to
# its page. A longer period would save walks but add its excess over the tolerance to the
# lateness (at 1.5 s: half a second on top of the walk). The service is still asked for one
# walk per period however fast it answers (at 5,000 runs, 50 pages a second: one request per
# 10 polls).
PASS_EVERY_SHARE = EARLY_SHARE
# Workspaces swept at the same time. A workspace's sweep rolls on while its polls keep falling
# due and no other workspace waits for a sweeper; with more workspaces than sweepers, each
# gets one pass round its listing at a time, in turn.
SWEEPERS = 16
# The watch thread looks at the list at least this often (also how fast it notices a stop).
IDLE_WAKE_S = 1.0
# While a sweep rolls, the watch thread hands it the polls that came within the early tolerance
# this often: a run joins within this of the earliest moment it may be read.
JOIN_EVERY_S = 0.05
# How long a claimed poll stays this process's without a renewal: one poll interval (10 s at
# the contract's schedule, at least 2 s however fast a test runs the schedule). A replica that
# dies mid-poll delays those polls by one interval at most (one missed poll, no failure); the
# process renews every third of it, so a stall of a few seconds (a slow database, a long
# collection pause) does not let another replica in while it still polls.
LEASE_SHARE = 1.0
MIN_LEASE_S = 2.0
RENEW_SHARE = 1 / 3
# A renewal skips leases taken or renewed less than this share of the period ago: such a
# lease is renewed at the following renewal instead, at most half a period after it was
# taken, so none ever has less than half of its period left when it is renewed.
RENEW_AFTER_SHARE = RENEW_SHARE / 2
# The watch thread asks the store for due polls at least this often when no sweep rolls (it is
# woken at once by a poll this process schedules): what another replica scheduled is claimed
# this late at most, well inside the early tolerance at the contract's schedule.
CLAIM_EVERY_S = 0.25
# Polls claimed at most per claim (what falls due in one claim period at 4,000 polls a second).
# Of the workspaces with due polls, a replica claims those it already serves and, of the ones
# nobody serves, enough to bring it to its share of the workspaces (as many replicas as are
# live split them), and claims at the same steady pace whether or not its sweeps roll, so
# adding a replica adds throughput across workspaces.
CLAIM_LIMIT = 1000
# How often a replica renews its heartbeat and counts the live ones: a replica joining gets
# its share within this.
BEAT_EVERY_S = 1.0
# Dead replicas' heartbeat units swept away at a time.
SWEEP_DEAD = 16


def lease_period(deps: Deps) -> float:
    return max(LEASE_SHARE * first_poll_delay(deps), MIN_LEASE_S)


def owner_id() -> str:
    """Who holds a lease: host, process and an instance id (two stages in one process differ)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _count_taken_over(claims: Iterable[Claim]) -> None:
    taken = sum(1 for claim in claims if claim.taken_over)
    if taken:
        metrics.CLAIMS_TAKEN_OVER.inc(taken)
        log.info("took over %d unit(s) of work whose holder's lease ran out", taken)


def job_id(request_id: str) -> str:
    return f"request:{request_id}"


class SchedulerTimers:
    """Schedules polls and delayed sends; ``deps`` is attached once it has been built."""

    def __init__(self, scheduler: Scheduler, *, sweepers: int = SWEEPERS) -> None:
        self._scheduler = scheduler
        self.deps: Deps | None = None
        self.watching = WatchList()
        self._failures: dict[str, int] = {}
        self._lock = threading.Lock()
        self._sweepers = ThreadPoolExecutor(
            max_workers=sweepers, thread_name_prefix="suggestbot-sweep"
        )
        self._sweeper_count = sweepers
        self._sweeping: set[str | None] = set()  # workspaces with a sweep running
        self._held: dict[str | None, list[Due]] = {}  # their polls that fell due meanwhile
        # Workspaces whose sweep gave its sweeper up: when their next turn may begin (no
        # sooner than their next pass would have), and their polls waiting for it.
        self._parked: dict[str | None, tuple[float, list[Due]]] = {}
        # Run id -> watched request id (and back), to act on finished runs a sweep meets.
        self._request_of_run: dict[str, str] = {}
        self._run_of_request: dict[str, str] = {}
        # Per workspace, the listing page each watched run was last met on: its next poll
        # reads that page, not every page before it.
        self._positions: dict[str | None, RunPositions] = {}
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.owner = owner_id()
        # Request ids whose poll this process holds -> when its lease was taken or renewed.
        self._leased: dict[str, float] = {}
        self._sending: set[str] = set()  # request ids whose send this process holds
        self._renewed_at = 0.0
        self._claimed_at = 0.0
        self._beat_at = 0.0
        self._live = 1  # replicas claiming work, this one included (from their heartbeats)

    # --- the Timers protocol ----------------------------------------------------------------

    def watch_run(self, request_id: str, *, delay_s: float) -> None:
        """The next poll, written to the store for whichever replica claims it when due. A poll
        this process holds is released due then (only while it still holds it: one another
        replica took over once the lease ran out is left to that replica); any other is
        scheduled, filed under its workspace."""
        self._scheduler.cancel(job_id(request_id))
        due_at = time.time() + max(delay_s, 0.0)
        with self._lock:
            held = request_id in self._leased
        polls = self._polls()
        try:
            if held:
                if not polls.release(request_id, owner=self.owner, due_at=due_at):
                    log.info(
                        "the poll of %s was no longer this process's to reschedule", request_id
                    )
            else:
                polls.schedule_grouped({request_id: due_at}, groups=self._groups_of([request_id]))
        finally:
            # Written or not, the poll is no longer this process's: one the store could not
            # take keeps its row, held until the lease runs out and then claimed again — never
            # ended as done (deleted) by a caller that sees it still held here.
            self._drop(request_id)
        self.watching.wake()

    def watch_runs(self, delays: Mapping[str, float]) -> None:
        """:meth:`watch_run` of a sweep page's runs, in one write: the polls this process holds
        are released due at their next time (one statement per thousand); one held no longer
        (another replica claimed it once its lease ran out, or the request was cancelled) is
        left to whoever has it now. A poll this process never held is scheduled as before."""
        if not delays:
            return
        now = time.time()
        due = {rid: now + max(delay_s, 0.0) for rid, delay_s in delays.items()}
        for request_id in due:
            self._scheduler.cancel(job_id(request_id))
        with self._lock:
            held = {rid: at for rid, at in due.items() if rid in self._leased}
        polls = self._polls()
        released = set(polls.release_many(held, owner=self.owner)) if held else set()
        lost = [rid for rid in held if rid not in released]
        if lost:
            log.info("%d poll(s) were no longer this process's to reschedule", len(lost))
        unheld = {rid: at for rid, at in due.items() if rid not in held}
        if unheld:
            polls.schedule_grouped(unheld, groups=self._groups_of(unheld))
        for request_id in due:
            self._drop(request_id)
        self.watching.wake()

    def resume_watch(self, request_id: str) -> None:
        """At start: poll at once unless a poll is already scheduled (or held by a live
        replica), so that a replica starting never resets the work of the others."""
        self._scheduler.cancel(job_id(request_id))
        groups = self._groups_of([request_id])
        if self._polls().schedule_grouped({request_id: time.time()}, groups=groups, if_absent=True):
            self.watching.wake()

    def send_later(self, request_id: str, *, at: float) -> None:
        """The send, written to the store for whichever replica claims it once due (this ends
        this process's lease on an earlier send of it, if it held one)."""
        self._stop_polling(request_id)
        self._sends().schedule(request_id, due_at=at)
        with self._lock:
            self._sending.discard(request_id)
        self.watching.wake()

    def resume_send(self, request_id: str, *, at: float) -> None:
        """At start: send at ``at`` unless a send is already scheduled (or held by a live
        replica)."""
        if self._sends().schedule(request_id, due_at=at, if_absent=True):
            self.watching.wake()

    def resume_many(self, *, watches: Collection[str], sends: Mapping[str, float]) -> None:
        """:meth:`resume_watch` and :meth:`resume_send` of every unfinished request at start,
        written in bulk (a few statements per thousand), so that a replica starting over
        thousands of active requests is ready in seconds, not after a commit for each."""
        for request_id in watches:
            self._scheduler.cancel(job_id(request_id))
        now = time.time()
        added = self._polls().schedule_grouped(
            dict.fromkeys(watches, now), groups=self._groups_of(watches), if_absent=True
        )
        added += self._sends().schedule_many(sends, if_absent=True)
        if added:
            self.watching.wake()

    def hold_send(self, request_id: str) -> None:
        """Write the request's send down as held by this process (due when the hold runs out,
        renewed while the process lives), so that a replica dying before the service has the
        run leaves a unit another one claims within one lease period. Due no earlier than the
        hold ends, so no other replica's claim can come between the two writes."""
        lease_s = lease_period(self._deps())
        sends = self._sends()
        sends.schedule(request_id, due_at=time.time() + lease_s)
        if sends.claim_keys([request_id], owner=self.owner, now=time.time(), lease_s=lease_s):
            with self._lock:
                self._sending.add(request_id)

    def record_held_send(self, requests: Table[Request], req: Request) -> bool:
        """Write ``req`` and hold its send, in one write (see :meth:`hold_send`)."""
        sends = self._sends()
        stored = requests.put_if_absent_held(
            req.id,
            req,
            queue=sends.name,
            owner=self.owner,
            now=time.time(),
            lease_s=lease_period(self._deps()),
        )
        if stored:
            with self._lock:
                self._sending.add(req.id)
        return stored

    def end_send(self, request_id: str) -> None:
        """The held send is over: its unit goes, unless the send asked for another (a
        ``Retry-After`` rescheduled it, and this process no longer holds it)."""
        with self._lock:
            held = request_id in self._sending
            self._sending.discard(request_id)
        if held:
            try:
                self._sends().release(request_id, owner=self.owner, due_at=None)
            except StoreError as exc:
                # Its hold runs out: another replica (or this one) finds the request sent.
                log.warning("could not end the send of %s (%s)", request_id, exc)

    def cancel(self, request_id: str) -> None:
        self._stop_polling(request_id)
        self._sends().unschedule(request_id)
        with self._lock:
            self._sending.discard(request_id)
        self._scheduler.cancel(job_id(request_id))

    def _stop_polling(self, request_id: str) -> None:
        self._polls().unschedule(request_id)
        self._drop(request_id)
        self._forget_run(request_id)

    def _groups_of(self, request_ids: Collection[str]) -> dict[str, str]:
        """The group each request's poll is filed under: its workspace, whose run listing serves
        its polls together (``""`` for none). The requests are read together (on a database,
        a round trip per thousand), never every active request for a few of them."""
        found = self._deps().records.requests.get_many(request_ids)
        return {rid: (found[rid].team_id or "") if rid in found else "" for rid in request_ids}

    def _polls(self) -> WorkQueue:
        return self._deps().records.run_polls

    def _sends(self) -> WorkQueue:
        return self._deps().records.run_sends

    def _deps(self) -> Deps:
        deps = self.deps
        if deps is None:
            raise RuntimeError("SchedulerTimers used before its deps were attached")
        return deps

    def _drop(self, request_id: str) -> None:
        """This process no longer holds the request's poll (an idle local entry goes too)."""
        with self._lock:
            self._leased.pop(request_id, None)
        self.watching.discard(request_id)

    # --- life cycle -------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._watch_loop, name="suggestbot-watch", daemon=True
            )
            self._thread.start()

    def stop(self, *, wait: bool = True) -> None:
        """Stop claiming polls; with ``wait``, let the sweeps running finish and hand the polls
        claimed but not yet taken back to the store, due as they were (another replica, or the
        next start, takes them). Without, the leases run out by themselves, as if killed."""
        self._stopping.set()
        self.watching.wake()
        if wait and self._thread is not None:
            self._thread.join()
        self._sweepers.shutdown(wait=wait, cancel_futures=not wait)
        if wait and self.deps is not None:
            self._give_back(self.watching.take(until=float("inf")))
            with self._lock:
                parked = [item for _, items in self._parked.values() for item in items]
                self._parked.clear()
            self._give_back(parked)
            try:
                self.deps.records.replicas.unschedule(self.owner)  # no longer claims a share
            except (StoreError, RuntimeError) as exc:  # the store away, or already closed
                log.warning("could not remove this replica's heartbeat (%s)", exc)

    def _give_back(self, items: Iterable[Due]) -> None:
        for item in items:
            with self._lock:
                held = item.request_id in self._leased
                self._leased.pop(item.request_id, None)
            if held:
                try:
                    self._polls().release(item.request_id, owner=self.owner, due_at=item.at)
                except StoreError as exc:
                    log.warning("could not hand back the poll of %s (%s)", item.request_id, exc)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # --- polls ------------------------------------------------------------------------------

    def _watch_loop(self) -> None:
        while not self._stopping.is_set():
            deps = self.deps
            rolling = self._any_sweeping()
            if deps is not None:
                now = time.time()
                # The loop wakes often (a rolling sweep, a local poll falling due); claims keep
                # one steady pace all the same, so no replica out-asks the others.
                if now - self._claimed_at >= self._claim_every(deps):
                    self._claimed_at = now
                    self._claim_and_renew(deps, now)
                self._unpark(deps, now)
                # A sweep is paging: polls join it as soon as they may be read. Else a batch
                # starts once a poll is due, with every poll due within the tolerance.
                due = self.watching.take(
                    until=now + self._horizon(deps), once_due=None if rolling else now
                )
                if due:
                    try:
                        self._dispatch(deps, due)
                    except Exception:
                        log.exception("handing out %d polls failed; retrying them", len(due))
                        self._retry_later(deps, due)
                        self.watching.release(item.request_id for item in due)
            if rolling:
                self._stopping.wait(JOIN_EVERY_S)
            else:
                self.watching.wait(now=time.time(), at_most_s=self._claim_every(deps))

    def _claim_every(self, deps: Deps | None) -> float:
        if deps is None:
            return IDLE_WAKE_S
        return max(JOIN_EVERY_S, min(CLAIM_EVERY_S, self._horizon(deps) / 2))

    def _claim_and_renew(self, deps: Deps, now: float) -> None:
        """Claim the polls due within the early tolerance into the local list; renew the leases
        held every third of the lease period. A store that fails is tried again next time."""
        polls = deps.records.run_polls
        lease_s = lease_period(deps)
        try:
            if now - self._beat_at >= BEAT_EVERY_S:
                self._beat_at = now
                self._beat(deps.records.replicas, now, lease_s)
            if now - self._renewed_at >= RENEW_SHARE * lease_s:
                self._renew(polls, now, lease_s)
                self._renew_sends(deps.records.run_sends, now, lease_s)
            if not self._stopping.is_set():
                self._claim_sends(deps.records.run_sends, now, lease_s)
            claims = polls.claim_due_grouped(
                owner=self.owner,
                now=now,
                due_by=now + self._horizon(deps),
                lease_s=lease_s,
                limit=CLAIM_LIMIT,
                share=self._live,
            )
        except StoreError as exc:
            log.warning("claiming due polls failed (%s); trying again shortly", exc)
            return
        except Exception:
            # The watch thread must outlive a bug here, or this replica polls nothing more.
            log.exception("claiming due polls failed; trying again shortly")
            return
        _count_taken_over(claims)
        for claim in claims:
            with self._lock:
                self._leased[claim.key] = now
            self.watching.put(claim.key, claim.due_at)

    @property
    def live_replicas(self) -> int:
        """Replicas claiming work (this one included), as their heartbeats last said."""
        return self._live

    def _beat(self, replicas: WorkQueue, now: float, lease_s: float) -> None:
        """Keep this replica's heartbeat unit leased to it, sweep away dead replicas' units
        (their leases ran out) and count the live ones. Written due when its lease would run
        out, so no other replica can claim it between the two writes."""
        if not replicas.renew([self.owner], owner=self.owner, now=now, lease_s=lease_s):
            replicas.schedule(self.owner, due_at=now + lease_s, if_absent=True)
            replicas.claim_keys([self.owner], owner=self.owner, now=now, lease_s=lease_s)
        for claim in replicas.claim_due(
            owner=self.owner, now=now, due_by=now, lease_s=lease_s, limit=SWEEP_DEAD
        ):
            if claim.key != self.owner:
                replicas.unschedule(claim.key)
        self._live = max(1, replicas.holders(now=now))

    def _claim_sends(self, sends: WorkQueue, now: float, lease_s: float) -> None:
        """Sends due by now (never early: a ``Retry-After`` is kept), each run on a worker."""
        claims = sends.claim_due(
            owner=self.owner, now=now, due_by=now, lease_s=lease_s, limit=CLAIM_LIMIT
        )
        _count_taken_over(claims)
        for claim in claims:
            with self._lock:
                self._sending.add(claim.key)
            self._scheduler.at(job_id(claim.key), 0, self._send_claimed, claim.key)

    def _renew_sends(self, sends: WorkQueue, now: float, lease_s: float) -> None:
        with self._lock:
            sending = list(self._sending)
        held = set(sends.renew(sending, owner=self.owner, now=now, lease_s=lease_s))
        with self._lock:
            self._sending.difference_update(set(sending) - held)

    def _renew(self, polls: WorkQueue, now: float, lease_s: float) -> None:
        """Renew the leases taken or renewed at least :data:`RENEW_AFTER_SHARE` of a lease
        period ago; the younger ones last past the next renewal anyway. Most polls are read and
        released within a second or two of their claim, so a busy replica renews a few hundred
        leases, not the 20,000 it may hold, whose rows its own sweepers would wait for."""
        with self._lock:
            leased = [
                request_id
                for request_id, at in self._leased.items()
                if now - at >= RENEW_AFTER_SHARE * lease_s
            ]
        held = set(polls.renew(leased, owner=self.owner, now=now, lease_s=lease_s))
        self._renewed_at = now
        with self._lock:
            for request_id in held:
                if request_id in self._leased:
                    self._leased[request_id] = now
        lost = [request_id for request_id in leased if request_id not in held]
        for request_id in lost:
            with self._lock:
                self._leased.pop(request_id, None)
            self.watching.discard(request_id)
        if lost:
            log.warning(
                "lost the lease on %d poll(s) before renewing it (a stall longer than %.0f s); "
                "another replica polls them now",
                len(lost),
                lease_s,
            )

    def _any_sweeping(self) -> bool:
        """A sweep runs or waits for its turn: the watch thread hands out polls at once."""
        with self._lock:
            return bool(self._sweeping or self._parked)

    def _crowded(self) -> bool:
        """More workspaces want a sweeper than there are: rolling sweeps give theirs up."""
        with self._lock:
            return self._crowded_locked()

    def _crowded_locked(self) -> bool:
        return len(self._sweeping) > self._sweeper_count

    def _horizon(self, deps: Deps) -> float:
        return EARLY_SHARE * first_poll_delay(deps)

    def _dispatch(self, deps: Deps, due: list[Due]) -> None:
        by_team: dict[str | None, list[Due]] = {}
        found = deps.records.requests.get_many([item.request_id for item in due])
        for item in due:
            req = found.get(item.request_id)
            by_team.setdefault(req.team_id if req else None, []).append(item)
            if req is not None and req.run_id is not None:
                with self._lock:
                    self._request_of_run[req.run_id] = req.id
                    self._run_of_request[req.id] = req.run_id
        with self._lock:
            for team, items in by_team.items():
                self._to_sweeper(deps, team, items)

    def _to_sweeper(self, deps: Deps, team: str | None, items: list[Due]) -> None:
        """The workspace's polls join its sweep, or its turn, or a new sweep (lock held)."""
        if team in self._parked:
            self._parked[team][1].extend(items)
        elif team in self._sweeping:
            self._held.setdefault(team, []).extend(items)
        else:
            self._sweeping.add(team)
            self._sweepers.submit(self._sweep_team, deps, team, items)

    def _park(self, team: str | None, items: Sequence[Due], ready_at: float | None = None) -> None:
        """A workspace's polls wait for its next turn (lock held); still held by this process.
        The turn may begin at ``ready_at``, or as already parked, or now."""
        at, waiting = self._parked.get(team, (time.time() if ready_at is None else ready_at, []))
        waiting.extend(items)
        self._parked[team] = (at if ready_at is None else min(at, ready_at), waiting)

    def _unpark(self, deps: Deps, now: float) -> None:
        """Workspaces whose turn may begin go to the sweepers (behind those already waiting)."""
        with self._lock:
            ready = [team for team, (at, _) in self._parked.items() if at <= now]
            for team in ready:
                _, items = self._parked.pop(team)
                self._to_sweeper(deps, team, items)

    def _sweep_team(self, deps: Deps, team: str | None, due: list[Due]) -> None:
        """Sweep ``due``, then whatever fell due for the same workspace meanwhile, until
        nothing more is due or the sweep gave its sweeper up to another workspace."""
        while True:
            gave_up = self._sweep(deps, team, due)
            with self._lock:
                held = self._held.pop(team, None)
                if held and (gave_up or self._crowded_locked()) and not self._stopping.is_set():
                    # Still this process's: they wait for the workspace's next turn.
                    self._park(team, held)
                    held, gave_up = None, True
                over = gave_up or not held or self._stopping.is_set()
                if over:
                    self._sweeping.discard(team)
            if over:
                if held:
                    self._give_back(held)
                    self.watching.release(item.request_id for item in held)
                return
            assert held is not None
            due = held

    def _sweep(self, deps: Deps, team: str | None, due: list[Due]) -> bool:
        """One workspace's sweep; True if it gave its sweeper up with polls left to serve."""
        handed: set[str] = set()
        swept = list(due)  # and the polls that join it
        released: set[str] = set()
        parked: set[str] = set()

        def more() -> list[Due]:
            """Polls of this workspace that were held for it meanwhile join the sweep."""
            if self._stopping.is_set():
                return []
            with self._lock:
                joining = self._held.pop(team, [])
            swept.extend(joining)
            return joining

        def settled(request_ids: list[str]) -> None:
            """Their poll is over (the next one is scheduled): they may be taken out again."""
            released.update(request_ids)
            self.watching.release(request_ids)
            self._forget_ended(request_ids)

        def put_back(items: Sequence[Due], next_pass_at: float) -> None:
            """Not served yet: they wait, still held, for the workspace's next turn."""
            parked.update(item.request_id for item in items)
            with self._lock:
                self._park(team, items, next_pass_at)

        try:
            with team_scope(team):
                handed = run_watcher.sweep(
                    deps,
                    due,
                    hand_over=self._hand_over,
                    claim_finished=self._claim_finished,
                    poll_alone=self._poll_alone,
                    time_budget_s=SWEEP_BUDGET_SHARE * first_poll_delay(deps),
                    more=more,
                    settled=settled,
                    pass_every_s=PASS_EVERY_SHARE * first_poll_delay(deps),
                    keep_rolling=lambda: not self._crowded(),
                    put_back=put_back,
                    positions=self._positions_of(team),
                )
        except Exception:
            log.exception("polling %d runs failed; trying again later", len(swept))
            self._retry_later(deps, [item for item in swept if item.request_id not in released])
        finally:
            over = handed | released | parked
            done = [item.request_id for item in swept if item.request_id not in over]
            self.watching.release(done)
            self._forget_ended(done)
        return bool(parked)

    def _claim_finished(self, run_id: str) -> str | None:
        """The request of a finished run met on a page, taken out before its poll is due: from
        the local list if this process holds it, else claimed in the store if it is free."""
        with self._lock:
            request_id = self._request_of_run.get(run_id)
        if request_id is None:
            return None
        if self.watching.claim(request_id):
            return request_id
        deps = self.deps
        if deps is None or self.watching.is_busy(request_id):
            return None
        now = time.time()
        try:
            got = deps.records.run_polls.claim_keys(
                [request_id], owner=self.owner, now=now, lease_s=lease_period(deps)
            )
        except StoreError:
            return None
        if not got:
            return None
        with self._lock:
            self._leased[request_id] = now
        self.watching.put(request_id, now)
        return request_id if self.watching.claim(request_id) else None

    def _forget_ended(self, request_ids: list[str]) -> None:
        """Polls over that asked for no next one are done: their lease ends and the request
        leaves the run index."""
        for request_id in request_ids:
            with self._lock:
                held = request_id in self._leased
                self._leased.pop(request_id, None)
            if not held:
                continue  # rescheduled (or given up): no longer this process's
            try:
                self._polls().release(request_id, owner=self.owner, due_at=None)
            except StoreError as exc:
                log.warning("could not end the poll of %s (%s)", request_id, exc)
            self._forget_run(request_id)

    def _forget_run(self, request_id: str) -> None:
        with self._lock:
            run_id = self._run_of_request.pop(request_id, None)
            if run_id is not None:
                self._request_of_run.pop(run_id, None)
            positions = list(self._positions.values())
        if run_id is not None:
            for placed in positions:
                placed.forget([run_id])

    def _positions_of(self, team: str | None) -> RunPositions:
        """Where the workspace's watched runs sit in its run listing (only runs watched here
        are remembered)."""
        with self._lock:
            positions = self._positions.get(team)
            if positions is None:
                positions = RunPositions(keep=self._request_of_run.__contains__)
                self._positions[team] = positions
            return positions

    def _hand_over(self, request_id: str, run: GenerationRun) -> None:
        """Settle a finished or moved run on a scheduler worker; it stays busy until then."""
        self._on_worker(request_id, lambda deps, rid: run_watcher.settle(deps, rid, run))

    def _poll_alone(self, request_id: str, due_at: float) -> None:
        """Poll a run the sweep did not meet on a scheduler worker (busy until done)."""
        self._on_worker(request_id, lambda deps, rid: run_watcher.poll(deps, rid, due_at=due_at))

    def _on_worker(self, request_id: str, fn: Callable[[Deps, str], None]) -> None:
        def job(deps: Deps, rid: str) -> None:
            try:
                fn(deps, rid)
            finally:
                self.watching.release([rid])
                self._forget_ended([rid])

        self._scheduler.at(
            f"watch:{request_id}",
            0,
            self._run,
            job,
            request_id,
            self._watch_again,
        )

    def _watch_again(self, request_id: str, delay_s: float) -> None:
        """A worker's poll failed: poll again later. Released first, since a job that failed
        before its poll began (its request could not even be read, the store being away) never
        released it, and a busy request's next poll would wait for that release for good."""
        self.watching.release([request_id])
        self.watch_run(request_id, delay_s=delay_s)

    def _retry_later(self, deps: Deps, due: list[Due]) -> None:
        """Polls that failed unexpectedly, and were not rescheduled, come back in a while."""
        for item in due:
            with self._lock:
                held = item.request_id in self._leased
            if held:
                try:
                    self.watch_run(item.request_id, delay_s=FIRST_RETRY_S * deps.poll_scale)
                except StoreError as exc:
                    log.warning("could not reschedule the poll of %s (%s)", item.request_id, exc)

    # --- sends ------------------------------------------------------------------------------

    def _send_claimed(self, request_id: str) -> None:
        """Run a claimed send; a send that scheduled no other is done."""
        try:
            self._run(
                resume_one,
                request_id,
                lambda rid, delay: self.send_later(rid, at=time.time() + delay),
            )
        finally:
            self.end_send(request_id)

    def _run(
        self,
        fn: Callable[[Deps, str], None],
        request_id: str,
        again: Callable[[str, float], None],
    ) -> None:
        deps = self.deps
        if deps is None:
            return
        try:
            # The job acts for the request's workspace (its bot token, its service tenant).
            req = deps.records.requests.get(request_id)
            with team_scope(req.team_id if req else None):
                fn(deps, request_id)
        except Exception:
            with self._lock:
                failures = self._failures.get(request_id, 0) + 1
                self._failures[request_id] = failures
            delay = min(FIRST_RETRY_S * 2 ** (failures - 1), MAX_RETRY_S) * deps.poll_scale
            log.exception(
                "job for request %s failed (%d in a row); trying again in %.1f s",
                request_id,
                failures,
                delay,
            )
            again(request_id, delay)
        else:
            with self._lock:
                self._failures.pop(request_id, None)
