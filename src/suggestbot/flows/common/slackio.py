"""Posting to Slack so that nothing is lost: posts, updates, DMs, finding our posts again.

Telling one person something is :mod:`~suggestbot.flows.common.telling`.

Slack's own retries (429 with Retry-After, 5xx, broken connections) are handled by the
``WebClient`` retry handlers the entry point installs; what is left here are the answers a
retry cannot fix, such as the bot not being in the channel.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_sdk.errors import SlackApiError

from suggestbot.flows.common.deps import Deps
from suggestbot.installations.scope import current_team
from suggestbot.slack import Priority, priority
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


def slack_error(exc: SlackApiError) -> str:
    """Slack's error code of a refused call (``not_in_channel`` …), ``unknown_error`` if none."""
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
    """The id of the app's direct message channel with ``user_id`` (opened if need be).

    Raises:
        SlackApiError: Slack refused to open it.
    """
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
    if thread_ts and deps.outbound is not None:
        # Slack clears a thread's status line when the app posts in it.
        deps.outbound.status_lines.record(channel, thread_ts, "")
    return str(response["ts"])


def update(deps: Deps, *, channel: str, ts: str, message: Message) -> None:
    """Replace the text and blocks of the app's message ``ts`` in ``channel``.

    Raises:
        SlackApiError: Slack refused (the message is gone: see :func:`gone`).
    """
    deps.slack.chat_update(channel=channel, ts=ts, text=message.text, blocks=message.blocks)


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


def permalink(deps: Deps, *, channel: str, ts: str, urgent: bool = False) -> str | None:
    """The message's link, asked of Slack once per message and kept (only where a link is
    shown: the Home, a workflow step's output). Decoration unless ``urgent``: it may be
    dropped (``suggestbot.slack.Dropped``) when Slack's budget is short."""

    def fetch() -> str | None:
        level = Priority.URGENT if urgent else Priority.DECORATION
        with priority(level):
            answer: Any = deps.slack.chat_getPermalink(channel=channel, message_ts=ts)
        link = answer.get("permalink")
        return str(link) if link else None

    if deps.outbound is None:
        return fetch()
    workspace = current_team() or "-"
    return deps.outbound.permalinks.get(workspace=workspace, channel=channel, ts=ts, fetch=fetch)
