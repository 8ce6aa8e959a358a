"""Interactions that start work are recorded before the ack and carried out after a crash.

Slack never resends a thread reply, a modal submission or a button press it had our 200 for:
when the process dies between the ack and the end of the work, only what was written before
the ack can bring it back. Briefs are recorded as requests before their ack; every other
interaction that starts work is kept, sealed, in the same write that claims its delivery and
holds it for this replica (see :class:`~suggestbot.store.DeliveryLog`, written by the
``process_once`` middleware), and finished when its work ends. When the replica dies first,
its hold runs out and any live replica claims the delivery and carries it out
(:func:`carry_out_claimed`, called by ``jobs.interaction_claims``); on a single-process store,
whose holds die with the process, :func:`replay_unfinished` carries out every one at start.

A listener registers the work it hands over with :func:`on_view`, :func:`on_action`,
:func:`on_event` or :func:`on_thread_reply`, as a function of the delivery alone, so that the
replay does exactly what the listener would have done after its ack. Replaying is safe because
each step is: records created for an interaction take their id from it
(``flows.interactions.derived_id``), requests carry on through their own recovery, and state
changes are claims (a second attempt finds them done).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from typing import Any

from slack_sdk.models.blocks import MarkdownTextObject, SectionBlock

from suggestbot.flows import interactions, slackio
from suggestbot.flows.deps import Deps
from suggestbot.installations.scope import current_team, team_scope
from suggestbot.slackapp.listeners.ack import in_background, opens_modal
from suggestbot.store import VaultError
from suggestbot.ui.blocks.results import Message
from suggestbot.ui.messages import t
from suggestbot.ui.payloads import delivery_person, pressed_action_id
from suggestbot.ui.replies import composer_message, thread_reply

log = logging.getLogger(__name__)

# The work after the ack, from the delivery's body and the app's bot user id.
Work = Callable[[Deps, dict[str, Any], str | None], None]

# A delivery whose work killed the process this many times is given up (and logged).
MAX_ATTEMPTS = 3
THREAD_REPLY = "event:message"
COMPOSER_MESSAGE = "event:message.im"

_WORK: dict[str, Work] = {}
_ACTION_PATTERNS: list[tuple[re.Pattern[str], str]] = []


def on_view(callback_id: str, work: Callable[[Deps, dict[str, Any]], None]) -> None:
    """Replay submissions of the modal ``callback_id`` with ``work(deps, body)``, which must
    check the submission again (a submission answered with errors started nothing)."""
    _WORK[f"view:{callback_id}"] = lambda deps, body, _bot: work(deps, body)


def on_action(action: str | re.Pattern[str], work: Callable[[Deps, dict[str, Any]], None]) -> None:
    """Replay presses of the button ``action`` with ``work(deps, body)`` (without the press's
    ``trigger_id``: it has expired, so the work cannot open a modal)."""
    name = action if isinstance(action, str) else action.pattern
    if isinstance(action, re.Pattern) and (action, name) not in _ACTION_PATTERNS:
        _ACTION_PATTERNS.append((action, name))
    _WORK[f"action:{name}"] = lambda deps, body, _bot: work(deps, body)


def on_modal_button(action: str | re.Pattern[str]) -> None:
    """Record presses of the button ``action``, whose work opens a modal, like any other
    press: replayed after a crash, its trigger has expired and no modal can open, so the
    person is told in words to press again instead of seeing nothing."""
    opens_modal(action)
    on_action(action, press_again)


def press_again(deps: Deps, body: dict[str, Any]) -> None:
    """The replay of a press that was to open a modal: ask the person to press again."""
    user_id, channel = delivery_person(body)
    text = t("modal.press_again", deps.lang_of(user_id))
    message = Message(
        text=text, blocks=[SectionBlock(text=MarkdownTextObject(text=text)).to_dict()]
    )
    slackio.notify(deps, user_id=user_id, channel_id=channel or user_id, message=message)


def on_event(event_type: str, work: Callable[[Deps, dict[str, Any]], None]) -> None:
    """Replay deliveries of the event ``event_type`` (other than messages) with
    ``work(deps, body)``."""
    _WORK[f"event:{event_type}"] = lambda deps, body, _bot: work(deps, body)


def on_thread_reply(work: Work) -> None:
    """Replay a person's reply in a thread with ``work(deps, body, bot_user_id)``."""
    _WORK[THREAD_REPLY] = work


def on_composer_message(work: Work) -> None:
    """Replay a brief written in the app's Messages tab with ``work(deps, body, bot_user_id)``."""
    _WORK[COMPOSER_MESSAGE] = work


def kind_of(body: dict[str, Any], *, bot_user_id: str | None) -> str | None:
    """Which registered work ``body`` starts, or None (then nothing is kept for it)."""
    kind = body.get("type")
    if kind == "event_callback":
        event = body.get("event") or {}
        if event.get("type") != "message":
            name = f"event:{event.get('type')}"
            return name if name in _WORK else None
        team_id = body.get("team_id")
        if COMPOSER_MESSAGE in _WORK and composer_message(
            event, bot_user_id=bot_user_id, team_id=team_id
        ):
            return COMPOSER_MESSAGE
        if THREAD_REPLY not in _WORK:
            return None
        reply = thread_reply(event, bot_user_id=bot_user_id, team_id=team_id)
        return THREAD_REPLY if reply is not None else None
    if kind == "view_submission":
        name = f"view:{(body.get('view') or {}).get('callback_id')}"
        return name if name in _WORK else None
    if kind == "block_actions":
        action_id = pressed_action_id(body)
        if f"action:{action_id}" in _WORK:
            return f"action:{action_id}"
        for pattern, name in _ACTION_PATTERNS:
            if pattern.fullmatch(action_id):
                return f"action:{name}"
    return None


def seal(deps: Deps, body: dict[str, Any], *, bot_user_id: str | None) -> str | None:
    """What is kept of a delivery that starts work: encrypted (a connect submission holds the
    user's token; every delivery holds short-lived URLs), or None for any other delivery."""
    kind = kind_of(body, bot_user_id=bot_user_id)
    if kind is None:
        return None
    kept = {"kind": kind, "body": body, "team": current_team(), "bot": bot_user_id}
    return deps.vault.seal(json.dumps(kept, separators=(",", ":")))


def finish(deps: Deps, key: str) -> None:
    if deps.deliveries is not None:
        deps.deliveries.finish(key)


def finish_current(deps: Deps) -> None:
    """Finish the interaction this listener is handling without handing work over (it was
    answered with field errors: the modal stays open and nothing is left to carry out)."""
    key = interactions.current()
    if key is not None:
        finish(deps, key)


def replay_unfinished(deps: Deps) -> int:
    """At start, on a store whose holds died with the process before (SQLite, memory): carry
    out every recorded interaction whose work did not finish, each on the background pool;
    returns how many were handed over. On a shared database a start carries out nothing: live
    replicas hold what they work on, and a dead one's holds are claimed once they run out."""
    if deps.deliveries is None or deps.deliveries.shares_leases:
        return 0
    replayed = 0
    for key, sealed in deps.deliveries.unfinished():
        deps.deliveries.hold(key)
        replayed += _carry_out(deps, key, sealed)
    if replayed:
        log.info("carrying out %d interaction(s) acknowledged before the restart", replayed)
    return replayed


def carry_out_claimed(deps: Deps, key: str) -> bool:
    """Carry out the recorded interaction ``key``, claimed by this replica from one whose hold
    ran out (it died); whether work was handed over. One already finished is just ended."""
    if deps.deliveries is None:
        return False
    sealed = deps.deliveries.pending(key)
    if sealed is None:
        finish(deps, key)
        return False
    if _carry_out(deps, key, sealed):
        log.info("carrying out a %s whose replica stopped before its work ended", _what(key))
        return True
    return False


def _carry_out(deps: Deps, key: str, sealed: str) -> bool:
    """Hand the kept delivery's work over (this process holds it); False when it is given up
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
    work = _WORK.get(str(kept.get("kind")))
    if work is None:
        log.warning("no work is registered for a recorded %s; dropped", kept.get("kind"))
        finish(deps, key)
        return False
    body = {k: v for k, v in kept["body"].items() if k != "trigger_id"}
    _hand_over(deps, key, work, body, kept.get("team"), kept.get("bot"))
    return True


def _what(key: str) -> str:
    """The kind of delivery a key names, for a log line (its other half, a ``trigger_id``, is
    a short-lived credential)."""
    return key.split(":", 1)[0]


def _hand_over(
    deps: Deps, key: str, work: Work, body: dict[str, Any], team: str | None, bot: str | None
) -> None:
    user_id, channel = delivery_person(body)
    with team_scope(team):
        interactions.enter(key)
        try:
            in_background(
                deps,
                work,
                deps,
                body,
                bot,
                user_id=user_id,
                channel_id=channel,
                response_url=body.get("response_url"),
            )
        finally:
            interactions.enter(None)
