"""Which recorded Slack interaction the current work carries out, if any.

An interaction that starts work is recorded before the ack and carried out again at the next
start when the process died before finishing it (see ``slackapp.edge.record``). A
flow that creates a record for it takes the record's id from :func:`derived_id`: the replay
then finds the record the first attempt already wrote instead of creating a second one.
"""

from __future__ import annotations

import contextvars
import hashlib
import uuid

_CURRENT: contextvars.ContextVar[str | None] = contextvars.ContextVar("interaction", default=None)
# Whether the listener serving the current interaction handed its work over (then the work
# ends the interaction's record; else nobody would).
_HANDED: contextvars.ContextVar[bool] = contextvars.ContextVar("handed_over", default=False)


def current() -> str | None:
    """The delivery key of the recorded interaction this work serves."""
    return _CURRENT.get()


def enter(key: str | None) -> None:
    """Serve ``key`` (or nothing) from here on in this context; the app's pools copy the
    context into the listener and into the work handed over (like the workspace scope)."""
    _CURRENT.set(key)
    _HANDED.set(False)


def hand_over() -> None:
    """The listener handed the current interaction's work over (the work ends its record)."""
    _HANDED.set(True)


def handed_over() -> bool:
    """Whether the listener serving the current interaction handed its work over."""
    return _HANDED.get()


def derived_id(purpose: str, key: str | None = None) -> str:
    """A record id that is the same each time the current interaction (or the delivery
    ``key``) is carried out; a fresh one outside any recorded interaction."""
    key = key if key is not None else current()
    if key is None:
        return uuid.uuid4().hex
    return hashlib.sha256(f"{purpose}\0{key}".encode()).hexdigest()[:32]
