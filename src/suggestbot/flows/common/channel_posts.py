"""Finding the app's own top-level posts in a channel again, by their message metadata.

A crash between "posted" and "recorded as posted" leaves a claim without a ``ts``. Before
posting again, recovery reads the channel's history since the claim was made and looks for a
message carrying the same metadata (``slackio.find_posted`` does the same inside a thread).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from suggestbot.flows.common import slackio
from suggestbot.flows.common.deps import Deps

# A claim is written before the post, so the post's ts is later; the margin covers clock skew
# between this host and Slack.
SKEW_MARGIN_S = 120.0
HISTORY_PAGE = 200


def find_in_channel(
    deps: Deps,
    *,
    channel: str,
    since: float,
    matches: Callable[[dict[str, Any]], bool],
) -> str | None:
    """The ``ts`` of a top-level message posted after ``since`` (epoch seconds) whose metadata
    payload ``matches``, or None."""
    oldest = f"{max(since - SKEW_MARGIN_S, 0.0):.6f}"
    cursor: str | None = None
    while True:
        page: Any = deps.slack.conversations_history(
            channel=channel,
            oldest=oldest,
            include_all_metadata=True,
            limit=HISTORY_PAGE,
            cursor=cursor,
        )
        for message in page.get("messages", []):
            metadata = message.get("metadata") or {}
            if metadata.get("event_type") == slackio.METADATA_TYPE and matches(
                metadata.get("event_payload") or {}
            ):
                return str(message["ts"])
        cursor = (page.get("response_metadata") or {}).get("next_cursor") or None
        if not cursor:
            return None
