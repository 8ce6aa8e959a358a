"""Rebuild every timer from the store at start, and finish what a crash interrupted."""

from __future__ import annotations

import logging

from suggestbot.flows.common import requests
from suggestbot.flows.common.deps import Deps
from suggestbot.store.records import ACTIVE_STATES

log = logging.getLogger(__name__)


def resume_all(deps: Deps) -> int:
    """Resume every unfinished request; returns how many were resumed.

    - ``new``/``sending``: root posted if missing, then sent (``sending`` first looks for a run
      the crash may already have created);
    - ``delayed``: sent at its ``send_after`` time;
    - ``submitted``/``posting``: watched again at once, unless its poll is still scheduled in
      the store (another replica watches it; posting is exactly-once, see results).
    """
    watches: list[str] = []
    sends: dict[str, float] = {}
    # Only the active ones are read (by the state index on PostgreSQL), not every request.
    for req in list(deps.records.requests.where("state", ACTIVE_STATES)):
        if req.state in ("new", "sending"):
            sends[req.id] = deps.clock()
        elif req.state == "delayed":
            sends[req.id] = req.send_after or deps.clock()
        elif req.state in ("submitted", "posting"):
            watches.append(req.id)
    # Written in bulk: one statement per thousand requests, not a transaction for each.
    deps.timers.resume_many(watches=watches, sends=sends)
    resumed = len(watches) + len(sends)
    if resumed:
        log.info("resumed %d unfinished request(s) from the store", resumed)
    return resumed


def resume_one(deps: Deps, request_id: str) -> None:
    """Used by the send timer: post a missing root before sending. A send taken over from a
    replica that died once its run was recorded finds the request submitted: it is watched
    (unless its poll is already written down), not sent again."""
    req = deps.records.requests.get(request_id)
    if req is not None and req.state in ("submitted", "posting"):
        deps.timers.resume_watch(request_id)
        return
    requests.post_root(deps, request_id)
    requests.submit(deps, request_id)
