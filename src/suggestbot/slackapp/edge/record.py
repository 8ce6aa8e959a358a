"""Inputs that start work are recorded before the ack and carried out after a crash.

Slack never resends a command, a thread reply, a modal submission or a button press it had our
200 for: when the process dies between the ack and the end of the work, only what was written
before the ack can bring it back. Every declared input that is not read-only is kept, sealed,
as its typed value in the same write that claims its delivery and holds it for this replica
(:class:`~suggestbot.store.DeliveryLog`, written by ``edge.take``), and finished when its work
ends. When the replica dies first, its hold runs out and any live replica claims the delivery
and carries it out (:func:`carry_out_claimed`, called by ``jobs.interaction_claims``); on a
single-process store, whose holds die with the process, :func:`replay_unfinished` carries out
every one at start. Both run the input's own ``run`` with the value recorded, found by the
input's name in the app's :class:`~suggestbot.slackapp.edge.inputs.Inputs`: nothing is
registered for the replay by hand.

Replaying is safe because each step is: records created for an interaction take their id from
it (``flows.common.interactions.derived_id``), requests carry on through their own recovery, and
state changes are claims (a second attempt finds them done).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from suggestbot.flows.common import interactions
from suggestbot.flows.common.deps import Deps
from suggestbot.installations.scope import current_team, team_scope
from suggestbot.slackapp.edge.answer import ask_again
from suggestbot.slackapp.edge.background import in_background
from suggestbot.slackapp.edge.declaration import Given, Input, Refusal
from suggestbot.slackapp.edge.inputs import Inputs
from suggestbot.store import VaultError

log = logging.getLogger(__name__)

# A delivery whose work killed the process this many times is given up (and logged).
MAX_ATTEMPTS = 3


def seal(deps: Deps, declared: Input[Any], given: Given) -> str:
    """What is kept of an input that starts work: its typed value, encrypted (a connect
    submission holds the person's token; most hold short-lived URLs)."""
    kept = {
        "input": declared.name,
        "given": given.model_dump(mode="json", exclude={"trigger_id"}),
        "team": current_team(),
    }
    return deps.vault.seal(json.dumps(kept, separators=(",", ":")))


def carry_out(deps: Deps, declared: Input[Any], given: Given) -> None:
    """The input's work: ``run``, or, for one that opens a modal and has no trigger any more
    (carried out after a restart), a word asking the person to press again."""
    log.debug("carrying out input %s", declared.name)
    if declared.opens_modal and given.trigger_id is None:
        ask_again(deps, given)
        return
    declared.run(deps, given)


def finish(deps: Deps, key: str) -> None:
    if deps.deliveries is not None:
        deps.deliveries.finish(key)


def finish_current(deps: Deps) -> None:
    """Finish the input this listener is handling without handing work over (it was refused:
    a modal stays open, and nothing is left to carry out)."""
    key = interactions.current()
    if key is not None:
        finish(deps, key)


def replay_unfinished(deps: Deps, inputs: Inputs) -> int:
    """At start, on a store whose holds died with the process before (SQLite, memory): carry
    out every recorded input whose work did not finish, each on the background pool; returns
    how many were handed over. On a shared database a start carries out nothing: live
    replicas hold what they work on, and a dead one's holds are claimed once they run out."""
    if deps.deliveries is None or deps.deliveries.shares_leases:
        return 0
    replayed = 0
    for key, sealed in deps.deliveries.unfinished():
        deps.deliveries.hold(key)
        replayed += _carry_out(deps, inputs, key, sealed)
    if replayed:
        log.info("carrying out %d input(s) acknowledged before the restart", replayed)
    return replayed


def carry_out_claimed(deps: Deps, inputs: Inputs, key: str) -> bool:
    """Carry out the recorded input ``key``, claimed by this replica from one whose hold ran
    out (it died); whether work was handed over. One already finished is just ended."""
    if deps.deliveries is None:
        return False
    sealed = deps.deliveries.pending(key)
    if sealed is None:
        finish(deps, key)
        return False
    if _carry_out(deps, inputs, key, sealed):
        log.info("carrying out a %s whose replica stopped before its work ended", _what(key))
        return True
    return False


def _carry_out(deps: Deps, inputs: Inputs, key: str, sealed: str) -> bool:
    """Hand the recorded input's work over (this process holds it); False when it is given up
    or cannot be read (then it is finished)."""
    assert deps.deliveries is not None
    if deps.deliveries.next_attempt(key) > MAX_ATTEMPTS:
        log.error(
            "giving up a recorded %s: its work was cut short %d times", _what(key), MAX_ATTEMPTS
        )
        finish(deps, key)
        return False
    try:
        kept = json.loads(deps.vault.unseal(sealed))
    except (VaultError, ValueError):
        log.error("a recorded %s cannot be decrypted with the keys given; dropped", _what(key))
        finish(deps, key)
        return False
    found = _recorded(inputs, kept)
    if found is None:
        log.warning("no input is declared for a recorded %s; dropped", _what(key))
        finish(deps, key)
        return False
    declared, given = found
    with team_scope(kept.get("team")):
        interactions.enter(key)
        try:
            in_background(
                deps,
                carry_out,
                deps,
                declared,
                given,
                user_id=given.user_id,
                channel_id=given.channel_id,
                response_url=given.response_url,
                crash_point=not declared.opens_modal,
            )
        finally:
            interactions.enter(None)
    return True


def _recorded(inputs: Inputs, kept: dict[str, Any]) -> tuple[Input[Any], Given] | None:
    """The declared input and its value, from what was kept (also from a delivery recorded
    whole, as releases before declared inputs kept it)."""
    if "input" in kept:
        declared = inputs.named(str(kept["input"]))
        if declared is None:
            return None
        given = declared.given_type().model_validate({**kept["given"], "trigger_id": None})
        return declared, given
    body = {k: v for k, v in (kept.get("body") or {}).items() if k != "trigger_id"}
    declared = inputs.find(body, bot_user_id=kept.get("bot"))
    if declared is None:
        return None
    parsed = declared.parse(body, kept.get("bot"))
    return None if isinstance(parsed, Refusal) else (declared, parsed)


def _what(key: str) -> str:
    """The kind of delivery a key names, for a log line (its other half, a ``trigger_id``, is
    a short-lived credential)."""
    return key.split(":", 1)[0]
