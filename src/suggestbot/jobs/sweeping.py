"""Claimed polls handed to sweepers, one run listing's sweep at a time.

The watch thread takes what is due (plus what falls due within the early tolerance) out of the
local list, groups it by the listing its runs are read from (``Deps.listing_of``: every
workspace on the app's own service client shares one tenant's listing, so a page serves the
runs of all of them) and hands each group to a sweeper
(:func:`~suggestbot.jobs.run_watcher.sweep`); while a listing's sweep runs, its polls join that
sweep at its next page (it rolls on while there are any). When more listings have work than
there are sweepers, a rolling sweep gives its sweeper up after each pass and its listing waits
its turn (one pass each, round the listings), so that no listing waits for another's polls to
stop falling due. Finished runs a sweep meets are settled on the scheduler's workers, each for
its own workspace.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

from suggestbot.contentapi import GenerationRun
from suggestbot.flows.common.deps import Deps
from suggestbot.flows.common.requests import first_poll_delay
from suggestbot.installations.scope import team_scope
from suggestbot.jobs import run_watcher
from suggestbot.jobs.failures import log_failure
from suggestbot.jobs.leases import EARLY_SHARE, LeaseHolder, lease_period
from suggestbot.jobs.poll_groups import page_group
from suggestbot.jobs.watch_list import Due
from suggestbot.store import StoreError
from suggestbot.store.records import Request

log = logging.getLogger(__name__)

# After a job fails unexpectedly (Slack down past its retries, a bug), try again later rather
# than leave the request stranded until the next restart: 30 s, doubling, at most 30 min.
FIRST_RETRY_S = 30.0
MAX_RETRY_S = 1800.0
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
# Listings swept at the same time. A listing's sweep rolls on while its polls keep falling due
# and no other listing waits for a sweeper; with more listings than sweepers, each gets one
# pass round it at a time, in turn.
SWEEPERS = 16
# Polls of one page taken ahead of their time at most (a page shows 100 runs), and how far
# ahead: those due within this share of the interval (see ``Sweeping._adopt``).
ADOPT_LIMIT = 200
ADOPT_SHARE = 0.5


class Sweeping(LeaseHolder):
    """Hands claimed polls to sweepers per run listing, and single jobs to the scheduler."""

    def _any_sweeping(self) -> bool:
        """A sweep runs or waits for its turn: the watch thread hands out polls at once."""
        with self._lock:
            return bool(self._sweeping or self._parked)

    def _crowded(self) -> bool:
        """More listings want a sweeper than there are: rolling sweeps give theirs up."""
        with self._lock:
            return self._crowded_locked()

    def _crowded_locked(self) -> bool:
        return len(self._sweeping) > self._sweeper_count

    def _dispatch(self, deps: Deps, due: list[Due]) -> None:
        by_listing: dict[str | None, list[Due]] = {}
        found = deps.records.requests.get_many([item.request_id for item in due])
        for item in due:
            req = found.get(item.request_id)
            listing = deps.listing_of(req.team_id if req else None)
            by_listing.setdefault(listing, []).append(item)
            if req is not None and req.run_id is not None:
                self._note_run(req)
                with self._lock:
                    cursor = self._page_of.pop(req.id, None)
                if cursor is not None:
                    # Filed under the page it was last met on (perhaps by another replica).
                    self._positions_of(listing).met([req.run_id], cursor)
        with self._lock:
            for listing, items in by_listing.items():
                self._to_sweeper(deps, listing, items)

    def _note_run(self, req: Request) -> None:
        """Which run a held poll watches, so that its run met finished on a page read for
        others is settled at once (``_claim_finished``)."""
        if req.run_id is not None:
            with self._lock:
                self._request_of_run[req.run_id] = req.id
                self._run_of_request[req.id] = req.run_id

    def _to_sweeper(self, deps: Deps, listing: str | None, items: list[Due]) -> None:
        """The listing's polls join its sweep, or its turn, or a new sweep (lock held)."""
        if listing in self._parked:
            self._parked[listing][1].extend(items)
        elif listing in self._sweeping:
            self._held.setdefault(listing, []).extend(items)
        else:
            self._sweeping.add(listing)
            self._sweepers.submit(self._sweep_listing, deps, listing, items)

    def _park(
        self, listing: str | None, items: Sequence[Due], ready_at: float | None = None
    ) -> None:
        """A listing's polls wait for its next turn (lock held); still held by this process.
        The turn may begin at ``ready_at``, or as already parked, or now."""
        at, waiting = self._parked.get(listing, (time.time() if ready_at is None else ready_at, []))
        waiting.extend(items)
        self._parked[listing] = (at if ready_at is None else min(at, ready_at), waiting)

    def _unpark(self, deps: Deps, now: float) -> None:
        """Listings whose turn may begin go to the sweepers (behind those already waiting)."""
        with self._lock:
            ready = [listing for listing, (at, _) in self._parked.items() if at <= now]
            for listing in ready:
                _, items = self._parked.pop(listing)
                self._to_sweeper(deps, listing, items)

    def _sweep_listing(self, deps: Deps, listing: str | None, due: list[Due]) -> None:
        """Sweep ``due``, then whatever fell due for the same listing meanwhile, until
        nothing more is due or the sweep gave its sweeper up to another listing."""
        while True:
            gave_up = self._sweep(deps, listing, due)
            with self._lock:
                held = self._held.pop(listing, None)
                if held and (gave_up or self._crowded_locked()) and not self._stopping.is_set():
                    # Still this process's: they wait for the listing's next turn.
                    self._park(listing, held)
                    held, gave_up = None, True
                over = gave_up or not held or self._stopping.is_set()
                if over:
                    self._sweeping.discard(listing)
            if over:
                if held:
                    self._give_back(held)
                    self.watching.release(item.request_id for item in held)
                return
            assert held is not None
            due = held

    def _sweep(self, deps: Deps, listing: str | None, due: list[Due]) -> bool:
        """One listing's sweep, read with its client (the scope of its workspace, or of none
        for the app's own client); True if it gave its sweeper up with polls left to serve."""
        handed: set[str] = set()
        swept = list(due)  # and the polls that join it
        released: set[str] = set()
        parked: set[str] = set()

        def more() -> list[Due]:
            """Polls of this listing that were held for it meanwhile join the sweep."""
            if self._stopping.is_set():
                return []
            with self._lock:
                joining = self._held.pop(listing, [])
            swept.extend(joining)
            return joining

        def settled(request_ids: list[str]) -> None:
            """Their poll is over (the next one is scheduled): they may be taken out again."""
            released.update(request_ids)
            self.watching.release(request_ids)
            self._forget_ended(request_ids)

        def put_back(items: Sequence[Due], next_pass_at: float) -> None:
            """Not served yet: they wait, still held, for the listing's next turn."""
            parked.update(item.request_id for item in items)
            with self._lock:
                self._park(listing, items, next_pass_at)

        try:
            with team_scope(listing):
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
                    positions=self._positions_of(listing),
                    adopt=lambda cursor: self._adopt(deps, listing, cursor),
                )
        except Exception:
            log_failure(log, "polling %d runs failed; trying again later", len(swept))
            self._retry_later(deps, [item for item in swept if item.request_id not in released])
        finally:
            over = handed | released | parked
            done = [item.request_id for item in swept if item.request_id not in over]
            self.watching.release(done)
            self._forget_ended(done)
        return bool(parked)

    def _adopt(self, deps: Deps, listing: str | None, cursor: str | None) -> list[Due]:
        """The free polls filed under the page ``cursor`` asked for that fall due within half
        an interval, claimed now and taken out for the sweep that just read the page: their
        runs are on it. Half: of two sets of a page's polls due apart, the one read first
        takes the other, or the other, read first, takes it, so they come together within one
        interval; and polls another read of the page served a moment ago stay where they are
        (taken at once, they would only move from one reader to the next)."""
        if self._stopping.is_set():
            return []
        now = time.time()
        try:
            claims = self._polls().claim_group_free(
                page_group(listing, cursor),
                owner=self.owner,
                now=now,
                due_by=now + ADOPT_SHARE * first_poll_delay(deps),
                lease_s=lease_period(deps),
                limit=ADOPT_LIMIT,
            )
        except StoreError as exc:
            log.warning("could not take a page's other polls (%s); they keep their time", exc)
            return []
        taken: list[Due] = []
        try:  # which runs they watch, for a finished run met later (none: it waits its time)
            found = deps.records.requests.get_many([c.key for c in claims]) if claims else {}
        except StoreError:
            found = {}
        for claim in claims:
            req = found.get(claim.key)
            if req is not None:
                self._note_run(req)
            self._hold(claim.key, claim.due_at, now)
            # Busy here (its worker still finishing): it waits in the list for its time.
            if self.watching.claim(claim.key):
                taken.append(Due(claim.key, claim.due_at))
        return taken

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
            log_failure(
                log,
                "job for request %s failed (%d in a row); trying again in %.1f s",
                request_id,
                failures,
                delay,
            )
            again(request_id, delay)
        else:
            with self._lock:
                self._failures.pop(request_id, None)
