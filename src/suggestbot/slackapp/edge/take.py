"""How a delivery is taken in: matched to its declared input, recorded, acked, worked on.

For every delivery, before any listener (so before any ack), the ``take_once`` middleware finds
the input that takes it (:class:`~suggestbot.slackapp.edge.inputs.Inputs`) and parses it. The
first delivery wins, atomically, through the store's delivery log (it outlives restarts and is
shared by every replica on one database): Slack retries an event it thinks was not
acknowledged, and a double click or a resent request repeats a ``trigger_id``. The same one
write keeps the parsed input, sealed, until its work is done (``edge.record``), unless the
input is read-only. While the store cannot be reached, nothing is recorded and the delivery
gets ``store_outage``'s answer.

Then the input's listener: a refusal is the ack (field errors, or a plain sentence), else
``before_ack``, the ack, and the work in the background (``edge.background``).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import Ack, App, BoltContext, BoltResponse

from suggestbot.flows.common import interactions as current_interaction
from suggestbot.flows.common.deps import Deps
from suggestbot.slackapp.edge import store_outage, text_guard
from suggestbot.slackapp.edge.background import in_background
from suggestbot.slackapp.edge.declaration import (
    REPEATED,
    Action,
    Command,
    Event,
    Function,
    Given,
    Input,
    Refusal,
    Shortcut,
    View,
)
from suggestbot.slackapp.edge.inputs import Inputs
from suggestbot.slackapp.edge.record import carry_out, finish_current, seal
from suggestbot.store import StoreUnavailable
from suggestbot.ui.payloads import delivery_key

log = logging.getLogger(__name__)

# Where the middleware leaves what it found for the input's listener.
TAKEN = "suggestbot_taken"


def register(app: App, deps: Deps, inputs: Inputs) -> None:
    """The middleware, then one listener per declared input, in the declarations' order."""
    # Before anything stores a submission: text that is not text cannot even be stored.
    text_guard.register(app, deps)

    @app.middleware
    def take_once(
        body: dict[str, Any], context: BoltContext, next: Callable[[], None]
    ) -> BoltResponse | None:
        bot = context.bot_user_id
        declared = inputs.find(body, bot_user_id=bot)
        given = declared.parse(body, bot) if declared is not None else None
        key = delivery_key(body)
        context[TAKEN] = (declared, given, key)
        kept = None
        claims_later = declared is not None and declared.records_itself
        if key is not None and deps.deliveries is not None and not claims_later:
            if declared is not None and isinstance(given, Given) and not declared.read_only:
                kept = seal(deps, declared, given)
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

    for declared in inputs:
        _listen(app, deps, declared)
    # Events no input takes (edits, joins, bot posts, another tab) are answered 200 and
    # dropped, so Slack does not retry them.
    for event_type in ("message", "app_home_opened"):
        app.event(event_type)(_only_ack)


def _only_ack(ack: Ack) -> None:
    ack()


def _listen(app: App, deps: Deps, declared: Input[Any]) -> None:
    def mine(context: BoltContext) -> bool:
        taken = context.get(TAKEN)
        return taken is not None and taken[0] is declared

    def take(ack: Ack, body: dict[str, Any], context: BoltContext) -> None:
        _, given, key = context[TAKEN]
        _take(deps, declared, given, key, ack, body)

    m = declared.matches
    if isinstance(m, Command):
        app.command(m.command, matchers=[mine])(take)
    elif isinstance(m, Action):
        app.action(m.action, matchers=[mine])(take)
    elif isinstance(m, View):
        app.view(m.callback_id, matchers=[mine])(take)
    elif isinstance(m, Event):
        app.event(m.event_type, matchers=[mine])(take)
    elif isinstance(m, Shortcut):
        app.shortcut(m.callback_id, matchers=[mine])(take)
    elif isinstance(m, Function):
        app.function(m.callback_id, matchers=[mine], auto_acknowledge=False)(take)


def _take(
    deps: Deps,
    declared: Input[Any],
    given: Given | Refusal,
    key: str | None,
    ack: Ack,
    body: dict[str, Any],
) -> None:
    if isinstance(given, Refusal):
        _refuse(deps, given, ack, body)
        return
    work: Callable[[], None] | None = None
    if declared.before_ack is not None:
        try:
            outcome = declared.before_ack(deps, given)
            if outcome is None and declared.records_itself:
                outcome = None if _claim(deps, declared, given, key) else REPEATED
        except StoreUnavailable:
            # The store went away after the delivery was let through: nothing was recorded.
            if isinstance(body.get("command"), str):
                ack(**store_outage.command_reply(deps, body))
                return
            outcome = None  # the work does it again, once the store is back
        if isinstance(outcome, Refusal):
            finish_current(deps)  # nothing to carry out
            _refuse(deps, outcome, ack, body)
            return
        if outcome == REPEATED:
            ack()
            kind = key.split(":", 1)[0] if key else declared.name
            log.info("ignoring a repeated Slack delivery (%s)", kind)
            return
        if callable(outcome):
            work = _named(declared, outcome)
    ack()
    # Held at the named crash point after the ack: every input that starts work, but one that
    # opens a modal (its trigger lives 3 s) or whose own record is taken up by its own
    # recovery (a quick brief's request).
    held = not (declared.read_only or declared.opens_modal or (work and declared.records_itself))
    in_background(
        deps,
        work or functools.partial(carry_out, deps, declared, given),
        user_id=given.user_id,
        channel_id=given.channel_id,
        response_url=given.response_url,
        crash_point=held,
    )


def _named(declared: Input[Any], work: Callable[[], None]) -> Callable[[], None]:
    """The work ``before_ack`` handed over, logged as :func:`~.record.carry_out` logs."""

    def named() -> None:
        log.debug("carrying out input %s", declared.name)
        work()

    return named


def _claim(deps: Deps, declared: Input[Any], given: Given, key: str | None) -> bool:
    """The claim an input that records itself left undone (it did not record after all): the
    delivery is recorded as any other; False for a repeated delivery."""
    if key is None or deps.deliveries is None:
        return True
    kept = None if declared.read_only else seal(deps, declared, given)
    first = deps.deliveries.first_time(key, pending=kept)
    if first and kept is not None:
        current_interaction.enter(key)
    return first


def _refuse(deps: Deps, refusal: Refusal, ack: Ack, body: dict[str, Any]) -> None:
    """Answer bad input in the ack, in the sender's language (a Slack call: only now)."""
    user = body.get("user")
    user_id = user.get("id") if isinstance(user, dict) else body.get("user_id")
    lang = deps.lang_of(str(user_id or ""))
    if refusal.errors is not None:
        ack(response_action="errors", errors=refusal.errors(lang))
        return
    if refusal.message is not None:
        message = refusal.message(lang)
        ack(response_type="ephemeral", text=message.text, blocks=message.blocks)
        return
    ack()


def let_go_unhanded(deps: Deps) -> None:
    """After a listener failed: when it failed before handing the work of a recorded input
    over, stop renewing that input's hold, since nobody would ever end it. It runs out and is
    carried out again like a dead replica's, up to the attempts' limit (``edge.record``).
    Called by the app's one error handler."""
    key = current_interaction.current()
    if key is None or current_interaction.handed_over() or deps.deliveries is None:
        return
    deps.deliveries.let_go(key)
    log.warning(
        "a recorded %s was not handed over; it is carried out again once its hold runs out",
        key.split(":", 1)[0],
    )
