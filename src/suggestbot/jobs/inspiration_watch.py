"""When the app looks for ready-made content it was asked to generate (old answers are
forgotten by :mod:`suggestbot.jobs.maintenance`). What a look does is
:mod:`suggestbot.flows.inspiration.polling`."""

from __future__ import annotations

import logging

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.inspiration import polling as inspiration_watches
from suggestbot.jobs.failures import log_failure
from suggestbot.jobs.scheduler import Scheduler

log = logging.getLogger(__name__)

JOB_ID = "inspiration:watches"
# How often due watches are looked at; the first poll is due 10 s after asking anyway.
TICK_S = 5.0
MIN_TICK_S = 0.2
# Old answers are forgotten by one replica at a time (jobs.maintenance).
PRUNE_EVERY_S = 3600.0
# Buttons of an answer older than this say it expired (ids only are kept, but no need to keep
# them for ever).
KEEP_OFFERS_S = 7 * 24 * 3600.0


def schedule(scheduler: Scheduler, deps: Deps) -> None:
    """Look at due watches every few seconds (scaled like every poll)."""

    def tick() -> None:
        try:
            inspiration_watches.poll_watches(deps)
        except Exception:
            log_failure(log, "polling for generated ready-made content failed; trying again")

    scheduler.every(JOB_ID, max(TICK_S * deps.poll_scale, MIN_TICK_S), tick)
