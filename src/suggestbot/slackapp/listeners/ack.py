"""Ack, then work: the one way a listener hands work over.

Slack wants an answer within 3 seconds, so a listener acks first (after recording what must
not be lost, see ``listeners.interactions``) and leaves the work to :func:`in_background`: on
a bounded pool, with every error logged and shown to the user. A button needs nothing more
than that, so :func:`on_button` registers the whole pattern in one line.

When the work carries out a recorded interaction, the record is finished once the work has
ended, whether it succeeded or told the user it failed: only a process that died in between
leaves it for the next start.
"""

from __future__ import annotations

import contextlib
import logging
import re
import uuid
from collections.abc import Callable
from typing import Any

from slack_bolt import Ack, App

from suggestbot.flows import interactions, slackio
from suggestbot.flows.deps import Deps
from suggestbot.store import StoreUnavailable
from suggestbot.ui.blocks.notices import build_failure_notice, build_gone
from suggestbot.ui.blocks.results import Message
from suggestbot.ui.payloads import button_place

log = logging.getLogger(__name__)

# What a button starts after its ack: ``work(deps, body)``.
ButtonWork = Callable[[Deps, dict[str, Any]], None]

# Buttons whose work opens a modal (``interactions.on_modal_button``): that must happen within
# the trigger's 3 s, so the named crash point after a recorded ack is not theirs.
_OPENS_MODAL: set[str] = set()


def opens_modal(action: str | re.Pattern[str]) -> None:
    """Note that the button ``action``'s work opens a modal."""
    _OPENS_MODAL.add(action if isinstance(action, str) else action.pattern)


def in_background(
    deps: Deps,
    fn: Callable[..., Any],
    *args: Any,
    user_id: str,
    channel_id: str | None,
    response_url: str | None = None,
    opens_a_modal: bool = False,
) -> None:
    """Run ``fn(*args)`` off the listener thread. A failure is logged with a short reference,
    and the user is told (ephemerally) with the same reference, never a traceback."""
    recorded = interactions.current()
    interactions.hand_over()

    def tell(message: Message, what: str) -> None:
        try:
            slackio.notify(
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
        if recorded is not None and not opens_a_modal:
            deps.crash_point("interaction_acked")  # recorded and acked, nothing done yet
        work()
        if recorded is not None and deps.deliveries is not None:
            deps.deliveries.finish(recorded)

    if deps.background is None:
        run()
    else:
        deps.background.submit(run)


def on_button(
    app: App,
    *,
    deps: Deps,
    action: str | re.Pattern[str],
    work: ButtonWork,
    before_ack: ButtonWork | None = None,
) -> None:
    """Ack each press of ``action`` (an ``action_id``, or a pattern of numbered ones) and run
    ``work(deps, body)`` in the background.

    A press that starts work is also given to ``interactions.on_action``, so that it is
    recorded before the ack and carried out after a crash; one that opens a modal to
    ``interactions.on_modal_button`` (its trigger expires: the replay asks the person to press
    again). ``before_ack(deps, body)``, if given, is
    what must have happened by the time Slack has the ack (``work`` does it again, as a no-op,
    and does it alone when the store went away meanwhile).
    """

    @app.action(action)
    def pressed(ack: Ack, body: dict[str, Any]) -> None:
        if before_ack is not None:
            with contextlib.suppress(StoreUnavailable):
                before_ack(deps, body)
        ack()
        in_background(
            deps,
            work,
            deps,
            body,
            user_id=body["user"]["id"],
            channel_id=button_place(body).channel,
            response_url=body.get("response_url"),
            opens_a_modal=(action if isinstance(action, str) else action.pattern) in _OPENS_MODAL,
        )
