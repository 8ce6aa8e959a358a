"""When status lines are renewed: every minute, so a run that lasts longer than Slack keeps a
line (two minutes after it was last set) never loses it. What is shown is decided in
:mod:`suggestbot.flows.requests` and :mod:`suggestbot.flows.live_status`.
"""

from __future__ import annotations

import logging

from suggestbot.flows import requests
from suggestbot.flows.deps import Deps
from suggestbot.jobs.scheduler import Scheduler

log = logging.getLogger(__name__)

JOB_ID = "status:renew"
# Half of Slack's two-minute lapse: one late or failed renewal still leaves the line up.
EVERY_S = 60.0


def renew(deps: Deps) -> None:
    try:
        renewed = requests.renew_statuses(deps)
    except Exception:
        log.exception("renewing status lines failed; trying again in a minute")
        return
    if renewed:
        log.debug("renewed %d status line(s)", renewed)


def schedule(scheduler: Scheduler, deps: Deps) -> None:
    """Renew the status lines of the requests still working, every :data:`EVERY_S` seconds."""
    scheduler.every(JOB_ID, EVERY_S, lambda: renew(deps))
