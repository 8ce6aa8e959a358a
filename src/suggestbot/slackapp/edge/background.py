"""Ack, then work: the one way an input's work is handed over.

Slack wants an answer within 3 seconds, so an input is acked first (after recording what must
not be lost, see ``edge.record``) and its work left to :func:`in_background`: on a bounded
pool, with every error logged and shown to the user.

When the work carries out a recorded input, the record is finished once the work has
ended, whether it succeeded or told the user it failed: only a process that died in between
leaves it for the next start.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import Any

from suggestbot.flows.common import interactions, slackio, telling
from suggestbot.flows.common.deps import Deps
from suggestbot.ui.blocks.notices import build_failure_notice, build_gone
from suggestbot.ui.blocks.results import Message

log = logging.getLogger(__name__)


def in_background(
    deps: Deps,
    fn: Callable[..., Any],
    *args: Any,
    user_id: str,
    channel_id: str | None,
    response_url: str | None = None,
    crash_point: bool = False,
) -> None:
    """Run ``fn(*args)`` off the listener thread. A failure is logged with a short reference,
    and the user is told (ephemerally) with the same reference, never a traceback.

    ``crash_point``: the work stops first at the named crash point ``interaction_acked`` (an
    input that starts work, acked, nothing done yet), where tests kill the process."""
    recorded = interactions.current()
    interactions.hand_over()

    def tell(message: Message, what: str) -> None:
        try:
            telling.tell(
                deps,
                user_id=user_id,
                channel_id=channel_id or user_id,
                message=message,
                response_url=response_url,
            )
        except Exception:
            log.exception("could not tell user %s about %s", user_id, what)

    def work() -> None:
        try:
            fn(*args)
        except Exception as exc:
            what = slackio.gone(exc)
            if what is not None:
                # Deleted or closed meanwhile: nothing went wrong, the person is told so.
                log.warning("background work stopped: the %s no longer exists in Slack", what)
                tell(build_gone(lang=deps.lang_of(user_id), what=what), f"a {what} gone")
                return
            ref = uuid.uuid4().hex[:8]
            log.exception("background work failed (reference %s)", ref)
            tell(build_failure_notice(lang=deps.lang_of(user_id), ref=ref), f"failure {ref}")

    def run() -> None:
        if crash_point:
            deps.crash_point("interaction_acked")  # acked, nothing done yet
        work()
        if recorded is not None and deps.deliveries is not None:
            deps.deliveries.finish(recorded)

    if deps.background is None:
        run()
    else:
        deps.background.submit(run)
