"""The lease engine: the flows' deferred work (:class:`~suggestbot.flows.common.deps.Timers`),
as units of work in the store held under leases (:mod:`.leases`) and swept per workspace
(:mod:`.sweeping`).

- **Sends** (a brief waiting to be sent, or to be sent again after ``Retry-After``) are units
  of work in the store too (``records.run_sends``), claimed by one process once due (never
  early) and run on the scheduler's workers (job id ``request:<id>``).
- **Polls** of submitted runs are units of work in the store (``records.run_polls``), filed
  under the page of their workspace's run listing they were last met on (or a walk group of
  the workspace until then, ``jobs.poll_groups``) and claimed **by group**
  (``Store.claim_due_grouped``): a group's due polls go to the one process that holds a lease
  in it, or, when none does, to one process as a whole, so that several replicas on one
  database split the pages, never poll one run twice at once, and a page's runs are served by
  one read of it (100 runs a page) instead of each replica reading its scattered share one by
  one.
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
import threading
import time
from collections.abc import Collection, Mapping

from suggestbot.jobs.failures import log_failure
from suggestbot.jobs.leases import JOIN_EVERY_S, job_id, lease_period
from suggestbot.jobs.recovery import resume_one
from suggestbot.jobs.scheduler import Scheduler
from suggestbot.jobs.sweeping import SWEEPERS, Sweeping
from suggestbot.store import StoreError
from suggestbot.store.records import Request, Table

log = logging.getLogger(__name__)


class SchedulerTimers(Sweeping):
    """Schedules polls and delayed sends; ``deps`` is attached once it has been built."""

    def __init__(self, scheduler: Scheduler, *, sweepers: int = SWEEPERS) -> None:
        super().__init__(scheduler, sweepers=sweepers)

    # --- the Timers protocol (watch_run and watch_runs: LeaseHolder) ------------------------

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
                        log_failure(log, "handing out %d polls failed; retrying them", len(due))
                        self._retry_later(deps, due)
                        self.watching.release(item.request_id for item in due)
            if rolling:
                self._stopping.wait(JOIN_EVERY_S)
            else:
                self.watching.wait(now=time.time(), at_most_s=self._claim_every(deps))

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
