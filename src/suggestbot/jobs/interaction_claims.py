"""Recorded interactions held across replicas: renewed while their work runs here, and taken
over from a replica that died.

A thread reply, a modal submission, a button press or an event that starts work is recorded
before its ack and held by the replica that acked it (``store.deliveries``). One scheduler job
keeps those holds alive every third of a lease period while the work runs, and claims the
units whose holder let its lease run out: each is carried out here, by the Slack edge's
function given at composition (``jobs`` never imports the edge). A unit is claimed by one
replica at a time, so a starting replica no longer redoes what a live one is doing, and a dead
replica's work is done within about one lease period instead of at some later start.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from suggestbot import metrics
from suggestbot.jobs.failures import log_failure
from suggestbot.jobs.scheduler import Scheduler
from suggestbot.store import DeliveryLog, StoreError

log = logging.getLogger(__name__)

JOB_ID = "interaction_claims"
# Holds are renewed (and lapsed ones looked for) every this share of the lease period.
RENEW_SHARE = 1 / 3
# Units claimed per look: a dead replica holds a handful (one per interaction in flight).
CLAIM_LIMIT = 50


class InteractionClaims:
    """The job: ``carry_out(key)`` starts the work of a claimed recorded interaction."""

    def __init__(self, deliveries: DeliveryLog, *, carry_out: Callable[[str], object]) -> None:
        self._deliveries = deliveries
        self._carry_out = carry_out
        self._claiming = threading.Event()
        self._claiming.set()

    def schedule(self, scheduler: Scheduler) -> None:
        """Look every third of a lease period, and once now."""
        every_s = RENEW_SHARE * self._deliveries.lease_s
        scheduler.every(JOB_ID, every_s, self.look, keeper=True)
        scheduler.at(f"{JOB_ID}:start", 0, self.look)

    def stop_claiming(self) -> None:
        """Claim nothing more (a drain): the holds of work still running are renewed until the
        scheduler stops, so that no other replica redoes it meanwhile."""
        self._claiming.clear()

    def look(self) -> int:
        """Renew this replica's holds, then claim and carry out lapsed ones; how many."""
        try:
            lost = self._deliveries.renew_held()
            if lost:
                log.warning(
                    "lost the hold on %d recorded interaction(s) (a stall longer than %.0f s); "
                    "another replica carries them out",
                    len(lost),
                    self._deliveries.lease_s,
                )
            if not self._claiming.is_set():
                return 0
            claims = self._deliveries.claim_abandoned(limit=CLAIM_LIMIT)
        except StoreError as exc:
            log.warning("renewing or claiming recorded interactions failed (%s)", exc)
            return 0
        taken = sum(1 for claim in claims if claim.taken_over)
        if taken:
            metrics.CLAIMS_TAKEN_OVER.inc(taken)
            log.info("took over %d recorded interaction(s) whose replica stopped", taken)
        for claim in claims:
            try:
                self._carry_out(claim.key)
            except Exception:
                # Its hold runs out again and it is claimed again, up to the attempts' limit.
                self._deliveries.let_go(claim.key)
                log_failure(log, "carrying out a claimed recorded interaction failed")
        return len(claims)
