"""Posting to Slack so that nothing is lost: DM fallback, ephemeral notes, finding our posts.

Slack's own retries (429 with Retry-After, 5xx, broken connections) are handled by the
``WebClient`` retry handlers the entry point installs; what is left here are the answers a
retry cannot fix, such as the bot not being in the channel.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import logging
from collections.abc import Callable
from typing import Any

import httpx
from slack_sdk.errors import SlackApiError

from suggestbot.flows import interactions
from suggestbot.flows.deps import Deps
from suggestbot.ui.blocks.results import Message

log = logging.getLogger(__name__)

# Slack errors that mean "this channel will not take the bot's message".
UNREACHABLE_CHANNEL = frozenset(
    {"not_in_channel", "channel_not_found", "is_archived", "restricted_action"}
)
METADATA_TYPE = "suggestbot_post"
# Slack errors that mean "what you act on no longer exists", by what it was: a message deleted
# meanwhile, a thread whose root was deleted, a modal closed before it was updated.
GONE = {
    "message_not_found": "message",
    "cant_update_message": "message",
    "thread_not_found": "thread",
    "not_found": "view",
    "view_not_found": "view",
    # A modal opened too late (a slow answer) or twice: the press is what is gone.
    "expired_trigger_id": "trigger",
    "exchanged_trigger_id": "trigger",
}
# Slack errors of chat.postEphemeral that a direct message gets round.
_NOT_EPHEMERAL = UNREACHABLE_CHANNEL | {"user_not_in_channel"}


def slack_error(exc: SlackApiError) -> str:
    return str(exc.response.get("error", "unknown_error"))


def gone(exc: BaseException) -> str | None:
    """What no longer exists when Slack refused a call for that reason (see :data:`GONE`)."""
    return GONE.get(slack_error(exc)) if isinstance(exc, SlackApiError) else None


def unavailable(exc: BaseException) -> bool:
    """Slack was down or overloaded past the client's own retries (5xx, 429, no connection):
    worth trying again later, unlike a refusal such as ``invalid_blocks``."""
    if isinstance(exc, SlackApiError):
        status = exc.response.status_code
        return status == 429 or status >= 500
    return isinstance(exc, OSError)  # refused, reset, timed out (urllib's errors are OSErrors)


def open_dm(deps: Deps, user_id: str) -> str:
    opened: Any = deps.slack.conversations_open(users=user_id)
    return str(opened["channel"]["id"])


def post(
    deps: Deps,
    *,
    channel: str,
    message: Message,
    thread_ts: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> str:
    """Post ``message`` and return its ``ts``. ``metadata`` lets recovery find it again."""
    kwargs: dict[str, Any] = {"channel": channel, "text": message.text, "blocks": message.blocks}
    if thread_ts:
        kwargs["thread_ts"] = thread_ts
    if metadata is not None:
        kwargs["metadata"] = {"event_type": METADATA_TYPE, "event_payload": metadata}
    response: Any = deps.slack.chat_postMessage(**kwargs)
    return str(response["ts"])


def update(deps: Deps, *, channel: str, ts: str, message: Message) -> None:
    deps.slack.chat_update(channel=channel, ts=ts, text=message.text, blocks=message.blocks)


def notify(
    deps: Deps,
    *,
    user_id: str,
    channel_id: str,
    message: Message,
    response_url: str | None = None,
) -> None:
    """Tell one user something only they should see.

    Uses the command's ``response_url`` when there is one (it works even where the bot is not a
    member), else ``chat.postEphemeral``, else a direct message.
    """
    if not _first_telling(deps, user_id, message):
        return
    if response_url and answer_via(response_url, message, replace_original=False):
        return
    try:
        deps.slack.chat_postEphemeral(
            channel=channel_id, user=user_id, text=message.text, blocks=message.blocks
        )
        return
    except SlackApiError as exc:
        if slack_error(exc) not in _NOT_EPHEMERAL:
            raise
    post(deps, channel=open_dm(deps, user_id), message=message)


def _first_telling(deps: Deps, user_id: str, message: Message) -> bool:
    """False when the recorded interaction this work serves already told ``user_id`` this
    (its work is carried out again after a crash): an ephemeral note is shown once. Noted
    before it is sent, so a crash in between loses the note rather than doubling it."""
    key = interactions.current()
    if key is None or deps.deliveries is None:
        return True
    text = json.dumps([user_id, message.text, message.blocks], sort_keys=True, default=str)
    return deps.deliveries.first_telling(key, hashlib.sha256(text.encode()).hexdigest()[:16])


# One client for every response_url answer: a new client per call builds a new SSL context
# and connection pool each time, which under load held up the listener threads' acks. It lives
# as long as the process, and is closed as the process ends: a pooled keep-alive socket left
# to the interpreter's teardown is an "unclosed socket" warning at every exit.
_RESPONSE_URLS = httpx.Client(timeout=10)
atexit.register(_RESPONSE_URLS.close)


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


def find_posted(
    deps: Deps,
    *,
    channel: str,
    thread_ts: str,
    matches: Callable[[dict[str, Any]], bool],
) -> str | None:
    """The ``ts`` of a message in the thread whose metadata payload ``matches``, if any.

    Recovery uses this after a crash between "about to post" and "posted", so a result is
    never posted twice.
    """
    cursor: str | None = None
    while True:
        page: Any = deps.slack.conversations_replies(
            channel=channel, ts=thread_ts, include_all_metadata=True, cursor=cursor, limit=200
        )
        for message in page.get("messages", []):
            metadata = message.get("metadata") or {}
            if metadata.get("event_type") == METADATA_TYPE and matches(
                metadata.get("event_payload") or {}
            ):
                return str(message["ts"])
        cursor = (page.get("response_metadata") or {}).get("next_cursor") or None
        if not cursor:
            return None
