"""When status lines are renewed: about every minute, so a run that lasts longer than Slack
keeps a line (two minutes after it was last set) never loses it. What is shown is decided in
:mod:`suggestbot.flows.common.requests` and :mod:`suggestbot.flows.common.live_status`.

One replica renews them all each time: the renewal is a unit of the store's ``status_renewal``
queue, due every :data:`EVERY_S`; every replica looks a few times a minute, and the one that
claims the due unit renews every line and writes the next due time. Alone (or on SQLite), a
process claims it each time.

With thousands of runs in flight a renewal takes longer than a look's period, or even than
its lease (and a second replica would renew the same lines at once): a renewal stops after
:data:`PASS_BUDGET_S`, the longest-working requests first, and is due again at the next look.
A process skips the lines it set less than 50 s ago, so its next look goes on with the
lines it did not reach; another replica, which does not know them, begins again with the
longest-working (the lines that lapse then are the newest, set when their root was posted).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from suggestbot.flows.common import requests
from suggestbot.flows.common.deps import Deps
from suggestbot.jobs.failures import log_failure
from suggestbot.jobs.maintenance import Pass, run_due
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
# A renewal stops after this long: less than a look's period, so no look finds it still
# running, and far less than its lease.
PASS_BUDGET_S = 15.0


def renew(deps: Deps, *, clock: Callable[[], float] = time.time) -> bool:
    """Renew the status lines now (whoever else may be renewing), for at most
    :data:`PASS_BUDGET_S`; False when it stopped with lines left."""
    started = clock()
    try:
        renewed = requests.renew_statuses(deps, until=started + PASS_BUDGET_S, clock=clock)
    except Exception:
        log_failure(log, "renewing status lines failed; trying again in a minute")
        return True
    if not renewed.finished:
        log.info(
            "renewed %d status line(s) in %.0f s and stopped; the next look goes on",
            renewed.lines,
            clock() - started,
        )
    elif renewed.lines:
        log.debug("renewed %d status line(s)", renewed.lines)
    return renewed.finished


def renew_if_due(deps: Deps, *, clock: Callable[[], float] = time.time) -> bool:
    """Claim the renewal if it is due and carry it out (one periodic pass, leased for a
    minute: a replica dying mid-renewal delays the next by a minute at most); whether this
    process did."""
    renewal = Pass(UNIT, EVERY_S, lambda: renew(deps, clock=clock), unfinished_again_s=0.0)
    try:
        ran = run_due(
            deps.records.status_renewal, [renewal], owner=deps.owner, clock=clock, lease_s=EVERY_S
        )
    except StoreError as exc:
        log.warning("the status renewal could not be claimed or ended (%s); again shortly", exc)
        return False
    return UNIT in ran


def schedule(scheduler: Scheduler, deps: Deps, *, clock: Callable[[], float] = time.time) -> None:
    """Write the renewal down (due now, unless it is already) and look for it every
    :data:`LOOK_EVERY_S` seconds."""
    deps.records.status_renewal.schedule(UNIT, due_at=clock(), if_absent=True)
    scheduler.every(JOB_ID, LOOK_EVERY_S, lambda: renew_if_due(deps, clock=clock))
