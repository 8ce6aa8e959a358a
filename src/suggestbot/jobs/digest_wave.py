"""When digests are posted: a wave at second 0 of every minute (and once at start), and the
old delivery claims forgotten hourly. What a wave posts is :mod:`suggestbot.flows.digests.wave`.

Digests are due on the minute; the wave starts then, so the first post follows within the time
one inspiration read and one post take.
"""

from __future__ import annotations

import logging

from suggestbot.flows.deps import Deps
from suggestbot.flows.digests import wave
from suggestbot.flows.digests.schedule import from_epoch
from suggestbot.jobs.scheduler import Scheduler

log = logging.getLogger(__name__)

JOB_ID = "digests:wave"


def schedule(scheduler: Scheduler, deps: Deps) -> None:
    """Run a wave each minute; forget old delivery claims once an hour."""
    pruned_hour = [-1]

    def tick() -> None:
        try:
            now = from_epoch(deps.clock())
            report = wave.run_wave(deps, now=now)
            if now.hour != pruned_hour[0]:
                wave.prune(deps, now=now)
                pruned_hour[0] = now.hour
        except Exception:
            log.exception("digest wave failed; the next one runs in a minute")
            return
        if report.due:
            log.info("digest wave: %s", report.summary())

    scheduler.each_minute(JOB_ID, tick)
