"""Global middleware: process each Slack delivery once.

Slack retries an event it thinks was not acknowledged (with ``X-Slack-Retry-Num``), sometimes
while the first delivery is still being handled; a double click or a resent request repeats
a ``trigger_id``. The first delivery wins, atomically, through the store's delivery log, which
outlives restarts.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import App, BoltResponse

from suggestbot.slackapp.flows.deps import Deps
from suggestbot.slackapp.payloads import delivery_key

log = logging.getLogger(__name__)


def register(app: App, deps: Deps) -> None:
    @app.middleware
    def process_once(body: dict[str, Any], next: Callable[[], None]) -> BoltResponse | None:
        key = delivery_key(body)
        if key is not None and deps.deliveries is not None and not deps.deliveries.first_time(key):
            log.info("ignoring a repeated Slack delivery (%s)", key.split(":", 1)[0])
            return BoltResponse(status=200, body="")
        next()
        return None
