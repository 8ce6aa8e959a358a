"""Forgetting what users typed that was never sent, once it is old.

Held inputs (a brief or reply typed before linking, kept for a one-click resend) and pending
instructions (a reply waiting for its variant to be chosen) hold the user's own words. Kept
forever they would grow without bound and keep text nobody will send any more; so they go
after a while, and a late press of their button says so instead of doing nothing.
"""

from __future__ import annotations

import logging

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.refine.replies import KEEP_PENDING, pending
from suggestbot.store.records import KEEP_HELD

log = logging.getLogger(__name__)

EVERY_S = 3600.0


def prune_unsent(deps: Deps) -> int:
    """Delete held inputs and pending instructions past their keeping time; how many went."""
    now = deps.clock()
    removed = 0
    for held in deps.records.held.values():
        if now - held.created_at > KEEP_HELD.total_seconds() and deps.records.held.delete(held.id):
            removed += 1
    kept = pending(deps)
    for item in kept.values():
        if now - item.created_at > KEEP_PENDING.total_seconds() and kept.delete(item.id):
            removed += 1
    if removed:
        log.info("forgot %d unsent input(s) past their keeping time", removed)
    return removed
