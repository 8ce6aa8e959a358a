"""Global middleware: process each Slack delivery once.

Slack retries an event it thinks was not acknowledged (with ``X-Slack-Retry-Num``), sometimes
while the first delivery is still being handled; a double click or a resent request repeats
a ``trigger_id``. The first delivery wins, atomically, through the store's delivery log, which
outlives restarts and is shared by every replica on one database. While the store cannot be
reached, nothing is recorded and the delivery gets ``store_outage``'s answer.

The same write keeps a delivery that starts work until that work is done, held by this replica
(see ``listeners.interactions``): it happens here, before any listener runs, so before any ack.
``/suggest brief <text>`` is the exception: its listener records the brief keyed by the
delivery, which makes a repeat count once in that same write (the ack waits for one write).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import App, BoltContext, BoltResponse

from suggestbot.flows import interactions as current_interaction
from suggestbot.flows.deps import Deps
from suggestbot.slackapp.listeners import interactions
from suggestbot.slackapp.listeners.commands import brief as brief_command
from suggestbot.slackapp.listeners.middleware import store_outage
from suggestbot.store import StoreUnavailable
from suggestbot.ui.payloads import delivery_key

log = logging.getLogger(__name__)


def register(app: App, deps: Deps) -> None:
    @app.middleware
    def process_once(
        body: dict[str, Any], context: BoltContext, next: Callable[[], None]
    ) -> BoltResponse | None:
        key = delivery_key(body)
        kept = None
        if brief_command.claims_its_own_delivery(body):
            key = None  # its listener records it once, in the one write before its ack
        if key is not None and deps.deliveries is not None:
            kept = interactions.seal(deps, body, bot_user_id=context.bot_user_id)
            try:
                first = deps.deliveries.first_time(key, pending=kept)
            except StoreUnavailable:
                return store_outage.answer(deps, body)
            if not first:
                log.info("ignoring a repeated Slack delivery (%s)", key.split(":", 1)[0])
                return BoltResponse(status=200, body="")
        # The listener and the work it hands over run in copies of this context: the work
        # finishes the record when it ends.
        current_interaction.enter(key if kept is not None else None)
        next()
        return None


def let_go_unhanded(deps: Deps) -> None:
    """After a listener failed: when it failed before handing the work of a recorded
    interaction over, stop renewing that interaction's hold, since nobody would ever end it. It
    runs out and is carried out again like a dead replica's, up to the attempts' limit (see
    ``listeners.interactions``). Called by the app's one error handler."""
    key = current_interaction.current()
    if key is None or current_interaction.handed_over() or deps.deliveries is None:
        return
    deps.deliveries.let_go(key)
    log.warning(
        "a recorded %s was not handed over; it is carried out again once its hold runs out",
        key.split(":", 1)[0],
    )
