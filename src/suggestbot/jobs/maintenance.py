"""Periodic passes that forget old state (deliveries, unsent text, old answers), run by one
replica at a time instead of by every one.

Each pass is a unit of the store's ``maintenance`` queue, due when it should next run. Every
replica looks once a minute; the one that claims a due pass runs it and writes its next due
time when it releases it. A replica that dies mid-pass leaves its lease to run out, and another
runs the pass then: the passes are idempotent deletes, so one run in part and again does no harm.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.digests import wave
from suggestbot.flows.digests.schedule import from_epoch
from suggestbot.flows.inspiration import showing as inspiration
from suggestbot.jobs import inspiration_watch, retention
from suggestbot.jobs.failures import log_failure
from suggestbot.jobs.scheduler import Scheduler
from suggestbot.store import StoreError
from suggestbot.store.work_queue import WorkQueue

log = logging.getLogger(__name__)

JOB_ID = "maintenance"
LOOK_EVERY_S = 60.0
# Longer than a pass takes: the lease is not renewed. A pass that overran it might run twice at
# once, which idempotent deletes allow.
LEASE_S = 900.0
# Slack deliveries are forgotten some minutes after they were handled (store.deliveries).
DELIVERIES_EVERY_S = 600.0


@dataclass(frozen=True)
class Pass:
    """One periodic pass: its name (the unit's key), how often it runs, what it does."""

    name: str
    every_s: float
    run: Callable[[], object]
    # A pass that says it stopped short (its ``run`` returned False) is due again this much
    # later instead of ``every_s`` (None: at its usual time).
    unfinished_again_s: float | None = None


def run_due(
    queue: WorkQueue,
    passes: Sequence[Pass],
    *,
    owner: str,
    now: float | None = None,
    clock: Callable[[], float] = time.time,
    lease_s: float = LEASE_S,
) -> list[str]:
    """Claim and run the passes due by ``now``; the names of those this process ran.

    ``lease_s``: how long a pass stays this process's without being ended (longer than it
    takes; a pass that must not wait long after a replica died mid-pass says less).
    """
    now = clock() if now is None else now
    by_name = {p.name: p for p in passes}
    ran: list[str] = []
    claims = queue.claim_due(owner=owner, now=now, due_by=now, lease_s=lease_s, limit=len(passes))
    for claim in claims:
        chosen = by_name.get(claim.key)
        if chosen is None:
            # A pass this version does not know (another version's): left to it, a while later.
            queue.release(claim.key, owner=owner, due_at=now + lease_s)
            continue
        again_s = chosen.every_s
        try:
            if chosen.run() is False and chosen.unfinished_again_s is not None:
                again_s = chosen.unfinished_again_s
        except Exception:
            log_failure(log, "the %s pass failed; it runs again at its next time", chosen.name)
        ran.append(chosen.name)
        queue.release(claim.key, owner=owner, due_at=now + again_s)
    return ran


def passes(deps: Deps, *, prune_deliveries: Callable[[], object]) -> list[Pass]:
    """Every pass of the app: Slack deliveries handled long ago, text never sent, old
    inspiration answers, digest delivery claims of dates long past."""
    return [
        Pass("deliveries", DELIVERIES_EVERY_S, prune_deliveries),
        Pass("unsent", retention.EVERY_S, lambda: retention.prune_unsent(deps)),
        Pass(
            "inspiration",
            inspiration_watch.PRUNE_EVERY_S,
            lambda: inspiration.prune(
                deps, older_than=deps.clock() - inspiration_watch.KEEP_OFFERS_S
            ),
        ),
        Pass("digest_deliveries", 3600.0, lambda: wave.prune(deps, now=from_epoch(deps.clock()))),
    ]


def schedule(scheduler: Scheduler, queue: WorkQueue, passes: Sequence[Pass], *, owner: str) -> None:
    """Write each pass down (due now, unless it already is) and look for due ones every minute,
    and once at start."""
    now = time.time()
    for p in passes:
        queue.schedule(p.name, due_at=now, if_absent=True)

    def look() -> None:
        try:
            run_due(queue, passes, owner=owner)
        except StoreError as exc:
            log.warning("looking for due maintenance passes failed (%s); again in a minute", exc)
        except Exception:
            log_failure(log, "looking for due maintenance passes failed; again in a minute")

    scheduler.every(JOB_ID, LOOK_EVERY_S, look)
    scheduler.at(f"{JOB_ID}:start", 0, look)
