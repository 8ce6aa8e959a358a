"""Telling one person something: the one way, with one fallback order.

What only one person should see goes, in this order, to whichever works first:

1. the interaction's ``response_url``, when there is one (it reaches a channel the app is not a
   member of, and a command's own channel);
2. ``chat.postEphemeral`` in the channel — inside the thread when there is one;
3. a direct message from the app.

A refusal that a direct message cannot get round either (``invalid_blocks``, a revoked token)
is raised, not hidden. Telling someone something in a direct message on purpose (a
confirmation that belongs in their DM) is :func:`tell_in_dm`; replacing the message a person
pressed a button in is :func:`replace_pressed`. What a modal says about its fields is answered
in the submission's ack (``response_action: errors``) by the Slack edge, not from here.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import logging
from typing import Any, Literal

import httpx
from slack_sdk.errors import SlackApiError

from suggestbot.flows.common import interactions, slackio
from suggestbot.flows.common.deps import Deps
from suggestbot.ui.blocks.results import Message

log = logging.getLogger(__name__)

# "already": the recorded interaction this work serves told the person this before a crash.
Told = Literal["response_url", "ephemeral", "dm", "already"]

# Slack errors of chat.postEphemeral that a direct message gets round.
NOT_EPHEMERAL = slackio.UNREACHABLE_CHANNEL | {"user_not_in_channel"}

# One client for every response_url answer: a new client per call builds a new SSL context
# and connection pool each time, which under load held up the listener threads' acks. It lives
# as long as the process, and is closed as the process ends: a pooled keep-alive socket left
# to the interpreter's teardown is an "unclosed socket" warning at every exit.
_RESPONSE_URLS = httpx.Client(timeout=10)
atexit.register(_RESPONSE_URLS.close)


def tell(
    deps: Deps,
    *,
    user_id: str,
    channel_id: str,
    message: Message,
    thread_ts: str | None = None,
    response_url: str | None = None,
) -> Told:
    """Show ``message`` to ``user_id`` alone, by the first way that works (see above).

    Args:
        deps: the ports (the Slack client).
        user_id: who is told.
        channel_id: where they are (a command's or a button's channel).
        message: what they are told.
        thread_ts: the thread they are in, if any: the ephemeral shows there.
        response_url: the interaction's, if any: tried first.

    Returns:
        Which way it went.

    Raises:
        SlackApiError: Slack refused for a reason a direct message does not get round.
    """
    if not _first_telling(deps, user_id, message):
        return "already"
    if response_url and answer_via(response_url, message, replace_original=False):
        return "response_url"
    kwargs: dict[str, Any] = {"thread_ts": thread_ts} if thread_ts else {}
    try:
        deps.slack.chat_postEphemeral(
            channel=channel_id, user=user_id, text=message.text, blocks=message.blocks, **kwargs
        )
        return "ephemeral"
    except SlackApiError as exc:
        if slackio.slack_error(exc) not in NOT_EPHEMERAL:
            raise
    tell_in_dm(deps, user_id=user_id, message=message)
    return "dm"


def tell_in_dm(deps: Deps, *, user_id: str, message: Message) -> str:
    """Post ``message`` in the app's direct message with ``user_id``; returns its ``ts``.

    Raises:
        SlackApiError: Slack refused to open the DM or to post in it.
    """
    return slackio.post(deps, channel=slackio.open_dm(deps, user_id), message=message)


def replace_pressed(response_url: str | None, message: Message) -> bool:
    """Replace the message a button was pressed in, through the press's ``response_url``.

    Returns:
        False when there is no ``response_url`` or it failed (the caller tells another way).
    """
    if not response_url:
        return False
    return answer_via(response_url, message, replace_original=True)


def answer_via(response_url: str, message: Message, *, replace_original: bool) -> bool:
    """Answer through an interaction's ``response_url`` (ephemeral); False when it failed."""
    try:
        answer = _RESPONSE_URLS.post(
            response_url,
            json={
                "response_type": "ephemeral",
                "replace_original": replace_original,
                "text": message.text,
                "blocks": message.blocks,
            },
        )
    except httpx.HTTPError as exc:
        log.warning("response_url failed (%s)", type(exc).__name__)
        return False
    if answer.status_code != 200:
        log.warning("response_url answered %s", answer.status_code)
        return False
    return True


def _first_telling(deps: Deps, user_id: str, message: Message) -> bool:
    """False when the recorded interaction this work serves already told ``user_id`` this
    (its work is carried out again after a crash): an ephemeral note is shown once. Noted
    before it is sent, so a crash in between loses the note rather than doubling it."""
    key = interactions.current()
    if key is None or deps.deliveries is None:
        return True
    text = json.dumps([user_id, message.text, message.blocks], sort_keys=True, default=str)
    return deps.deliveries.first_telling(key, hashlib.sha256(text.encode()).hexdigest()[:16])
