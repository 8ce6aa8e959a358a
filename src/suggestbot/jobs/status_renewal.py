"""When status lines are renewed: about every minute, so a run that lasts longer than Slack
keeps a line (two minutes after it was last set) never loses it. What is shown is decided in
:mod:`suggestbot.flows.requests` and :mod:`suggestbot.flows.live_status`.

One replica renews them all each time: the renewal is a unit of the store's ``status_renewal``
queue, due every :data:`EVERY_S`; every replica looks a few times a minute, and the one that
claims the due unit renews every line and writes the next due time. Alone (or on SQLite), a
process claims it each time.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from suggestbot.flows import requests
from suggestbot.flows.deps import Deps
from suggestbot.jobs.scheduler import Scheduler
from suggestbot.store import StoreError

log = logging.getLogger(__name__)

JOB_ID = "status:renew"
UNIT = "status_lines"
# Half of Slack's two-minute lapse: one late or failed renewal still leaves the line up.
EVERY_S = 60.0
# How often each replica looks for the due renewal: a renewal comes at most this much after
# its time, so lines are renewed 60–80 s apart.
LOOK_EVERY_S = 20.0


def renew(deps: Deps) -> None:
    """Renew every status line now (whoever else may be renewing)."""
    try:
        renewed = requests.renew_statuses(deps)
    except Exception:
        log.exception("renewing status lines failed; trying again in a minute")
        return
    if renewed:
        log.debug("renewed %d status line(s)", renewed)


def renew_if_due(deps: Deps, *, clock: Callable[[], float] = time.time) -> bool:
    """Claim the renewal if it is due and carry it out; whether this process did."""
    queue = deps.records.status_renewal
    now = clock()
    try:
        claims = queue.claim_due(owner=deps.owner, now=now, due_by=now, lease_s=EVERY_S, limit=1)
    except StoreError as exc:
        log.warning("looking for the status renewal failed (%s); again shortly", exc)
        return False
    if not claims:
        return False
    try:
        renew(deps)
    finally:
        try:
            queue.release(UNIT, owner=deps.owner, due_at=now + EVERY_S)
        except StoreError as exc:
            # Its lease runs out: another replica (or this one) renews a little late.
            log.warning("could not write the next status renewal (%s)", exc)
    return True


def schedule(scheduler: Scheduler, deps: Deps, *, clock: Callable[[], float] = time.time) -> None:
    """Write the renewal down (due now, unless it is already) and look for it every
    :data:`LOOK_EVERY_S` seconds."""
    deps.records.status_renewal.schedule(UNIT, due_at=clock(), if_absent=True)
    scheduler.every(JOB_ID, LOOK_EVERY_S, lambda: renew_if_due(deps, clock=clock))
