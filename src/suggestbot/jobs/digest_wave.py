"""When digests are posted: a wave at second 0 of every minute (and once at start). What a
wave posts is :mod:`suggestbot.flows.digests.wave`.

Digests are due on the minute; the wave starts then, so the first post follows within the time
one inspiration read and one post take.
"""

from __future__ import annotations

import logging

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.digests import wave
from suggestbot.flows.digests.schedule import from_epoch
from suggestbot.jobs.failures import log_failure
from suggestbot.jobs.scheduler import Scheduler

log = logging.getLogger(__name__)

JOB_ID = "digests:wave"


def schedule(scheduler: Scheduler, deps: Deps) -> None:
    """Run a wave each minute (old delivery claims are forgotten by jobs.maintenance)."""

    def tick() -> None:
        try:
            # The database's time, not this host's: replicas agree on the minute and the date.
            report = wave.run_wave(deps, now=from_epoch(deps.shared_now()))
        except Exception:
            log_failure(log, "digest wave failed; the next one runs in a minute")
            return
        if report.due:
            log.info("digest wave: %s", report.summary())

    scheduler.each_minute(JOB_ID, tick)
