"""Work after the ack: on a bounded pool, with every error logged and shown to the user.

When the work carries out a recorded interaction (see ``listeners.interactions``), the record
is finished once the work has ended, whether it succeeded or told the user it failed: only a
process that died in between leaves it for the next start.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import Any

from suggestbot.flows import interactions, slackio
from suggestbot.flows.deps import Deps
from suggestbot.ui.blocks.notices import build_notice
from suggestbot.ui.messages import t

log = logging.getLogger(__name__)


def in_background(
    deps: Deps,
    fn: Callable[..., Any],
    *args: Any,
    user_id: str,
    channel_id: str | None,
    response_url: str | None = None,
) -> None:
    """Run ``fn(*args)`` off the listener thread. A failure is logged with a short reference,
    and the user is told (ephemerally) with the same reference, never a traceback."""
    recorded = interactions.current()

    def work() -> None:
        try:
            fn(*args)
        except Exception:
            ref = uuid.uuid4().hex[:8]
            log.exception("background work failed (reference %s)", ref)
            lang = deps.lang_of(user_id)
            try:
                slackio.notify(
                    deps,
                    user_id=user_id,
                    channel_id=channel_id or user_id,
                    message=build_notice(lang=lang, text=t("error.generic", lang, ref=ref)),
                    response_url=response_url,
                )
            except Exception:
                log.exception("could not tell user %s about failure %s", user_id, ref)

    def run() -> None:
        if recorded is not None:
            deps.crash_point("interaction_acked")  # recorded and acked, nothing done yet
        work()
        if recorded is not None and deps.deliveries is not None:
            deps.deliveries.finish(recorded)

    if deps.background is None:
        run()
    else:
        deps.background.submit(run)
