"""Work held under leases in the store: what this process claims, renews and gives back.

Polls of submitted runs (``records.run_polls``) are claimed **by group**
(``Store.claim_due_grouped``, groups named in ``jobs.poll_groups``: a page of a workspace's run
listing, or one of its walk groups): a group's due polls go to the one process that holds a
lease in it, or, when none does, to one process as a whole, so replicas on one database split
the pages and workspaces and never poll one run twice at once. Sends (``records.run_sends``)
are claimed once due, never early. Each replica keeps a heartbeat unit so that the live ones
split the groups fairly. Leases are renewed every third of the lease period; a process that
dies holding leases loses them when they run out, and another claims that work within one
lease period.

:class:`LeaseHolder` is the state and the store side of
:class:`~suggestbot.jobs.lease_engine.SchedulerTimers`; :mod:`~suggestbot.jobs.sweeping` hands
what it claims to sweepers.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Collection, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor

from suggestbot import metrics
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.common.requests import first_poll_delay
from suggestbot.jobs.poll_groups import cursor_of, walk_group
from suggestbot.jobs.run_positions import RunPositions
from suggestbot.jobs.scheduler import Scheduler
from suggestbot.jobs.watch_list import Due, WatchList
from suggestbot.store import StoreError
from suggestbot.store.base import Claim
from suggestbot.store.work_queue import WorkQueue

log = logging.getLogger(__name__)

# Early tolerance: a poll due within this share of the shortest poll interval joins the sweep
# being started (1 s at the contract's 10 s), so that one listing sweep serves every run due
# in the next second instead of one sweep each. A sweep begins no earlier than this before a
# poll it serves is due; the page it reads then also serves the other polls filed under it
# (``run_watcher``: their runs are on it, read either way), so a page is read once an
# interval: 90 % of the guidance's interval or more after its previous read.
EARLY_SHARE = 0.1
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
    """How long a claim lasts without renewal: the operator's ``SUGGESTBOT_LEASE_SECONDS``,
    else one poll interval, at least ``MIN_LEASE_S``."""
    if deps.lease_s is not None:
        return max(deps.lease_s, MIN_LEASE_S)
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


class LeaseHolder(ABC):
    """What this process holds in the store and its local list of claimed polls."""

    def __init__(self, scheduler: Scheduler, *, sweepers: int) -> None:
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
        # Request id -> the cursor of the listing page its claimed poll was filed under (by
        # whichever replica read it last): placed on that page when handed to its sweep.
        self._page_of: dict[str, str] = {}
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

    @abstractmethod
    def _send_claimed(self, request_id: str) -> None:
        """Run a claimed send (:class:`~suggestbot.jobs.lease_engine.SchedulerTimers`)."""

    # --- releasing a held poll to its next time ---------------------------------------------

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

    def watch_runs(
        self, delays: Mapping[str, float], *, groups: Mapping[str, str] | None = None
    ) -> None:
        """:meth:`watch_run` of a sweep page's runs, in one write: the polls this process holds
        are released due at their next time (one statement per thousand); one held no longer
        (another replica claimed it once its lease ran out, or the request was cancelled) is
        left to whoever has it now. A poll this process never held is scheduled as before.
        ``groups``: the group each poll is filed under from now on (``jobs.poll_groups``: the
        listing page its run was met on), where the sweep knows it."""
        if not delays:
            return
        now = time.time()
        due = {rid: now + max(delay_s, 0.0) for rid, delay_s in delays.items()}
        for request_id in due:
            self._scheduler.cancel(job_id(request_id))
        with self._lock:
            held = {rid: at for rid, at in due.items() if rid in self._leased}
        polls = self._polls()
        released = set(polls.release_many(held, owner=self.owner, groups=groups)) if held else set()
        lost = [rid for rid in held if rid not in released]
        if lost:
            log.info("%d poll(s) were no longer this process's to reschedule", len(lost))
        unheld = {rid: at for rid, at in due.items() if rid not in held}
        if unheld:
            given = groups or {}
            filed = {rid: given[rid] for rid in unheld if rid in given}
            # Only the polls the sweep could not name a group for are read for their workspace.
            unnamed = [rid for rid in unheld if rid not in filed]
            if unnamed:
                filed.update(self._groups_of(unnamed))
            polls.schedule_grouped(unheld, groups=filed)
        for request_id in due:
            self._drop(request_id)
        self.watching.wake()

    def _groups_of(self, request_ids: Collection[str]) -> dict[str, str]:
        """The group each request's poll is filed under until a walk of its run listing has
        met its run: one of the listing's walk groups (``jobs.poll_groups``). The requests are
        read together (on a database, a round trip per thousand), never every active request
        for a few of them."""
        deps = self._deps()
        found = deps.records.requests.get_many(request_ids)
        return {
            rid: walk_group(deps.listing_of(found[rid].team_id if rid in found else None), rid)
            for rid in request_ids
        }

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
            self._page_of.pop(request_id, None)
        self.watching.discard(request_id)

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

    # --- claiming and renewing --------------------------------------------------------------

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
            self._hold(claim.key, claim.due_at, now, page=cursor_of(claim.group))

    def _hold(self, request_id: str, due_at: float, now: float, *, page: str | None = None) -> None:
        """A poll just claimed: its lease is renewed from ``now`` and it waits in the local list
        for ``due_at``; ``page``: the cursor of the page it is filed under."""
        with self._lock:
            self._leased[request_id] = now
            if page is not None:
                self._page_of[request_id] = page
        self.watching.put(request_id, due_at)

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
            leased = {
                request_id: at
                for request_id, at in self._leased.items()
                if now - at >= RENEW_AFTER_SHARE * lease_s
            }
        held = set(polls.renew(leased, owner=self.owner, now=now, lease_s=lease_s))
        self._renewed_at = now
        with self._lock:
            for request_id in held:
                if request_id in self._leased:
                    self._leased[request_id] = now
        lost: list[str] = []
        for request_id, at in leased.items():
            if request_id in held:
                continue
            with self._lock:
                # Released meanwhile, or claimed again since (a page read took it ahead of its
                # time): neither is a lease lost.
                if self._leased.get(request_id) != at:
                    continue
                self._leased.pop(request_id, None)
            lost.append(request_id)
            self.watching.discard(request_id)
        if lost:
            log.warning(
                "lost the lease on %d poll(s) before renewing it (a stall longer than %.0f s); "
                "another replica polls them now",
                len(lost),
                lease_s,
            )

    def _horizon(self, deps: Deps) -> float:
        return EARLY_SHARE * first_poll_delay(deps)

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
        self._hold(request_id, now, now)
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

    def _positions_of(self, listing: str | None) -> RunPositions:
        """Where runs sit in a run listing (``Deps.listing_of``): every run its walks met, not
        only those whose poll this process held then, so that a poll claimed later (falling
        due after the walk passed its page, as the oldest runs' do one after another when
        thousands are watched at once) is read from its page instead of a walk of its own. A
        walk goes no further back than the oldest run it seeks, and the map has a bound."""
        with self._lock:
            positions = self._positions.get(listing)
            if positions is None:
                positions = RunPositions()
                self._positions[listing] = positions
            return positions
