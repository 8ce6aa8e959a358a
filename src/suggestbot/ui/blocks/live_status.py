"""The status line Slack shows under a thread while the app works on it
(``assistant.threads.setStatus``): its words and its loading messages, in the author's language.

Slack writes the app's name before the status ("suggestbot is drafting…"), so each status
starts with a verb. The flows decide where a request is (:class:`RequestStatus`); this module
only words it, and says when no line should show at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from suggestbot.ui.blocks.requests import Phase, RequestStatus
from suggestbot.ui.messages import t

# Slack takes at most 10 loading messages; each catalogue entry holds a few, one per line.
MAX_LOADING_MESSAGES = 10
_WORKING = {
    Phase.SENDING: "status.sending",
    Phase.DELAYED: "status.delayed",
    Phase.QUEUED: "status.queued",
    Phase.REQUEUED: "status.requeued",
    Phase.RUNNING: "status.running",
    Phase.POSTING: "status.posting",
}


@dataclass(frozen=True)
class LiveStatus:
    """What ``assistant.threads.setStatus`` is given."""

    status: str
    loading_messages: tuple[str, ...]


def build_live_status(*, lang: str, status: RequestStatus) -> LiveStatus | None:
    """The line for a request that is queued, running or retrying; None when it has ended or
    waits for its author (then no line should show)."""
    key = _WORKING.get(status.phase)
    if key is None:
        return None
    words = t(key, lang, attempt=max(status.attempt, 1))
    loading_key = "status.loading_brief" if status.kind == "brief" else "status.loading_refine"
    loading = tuple(line for line in t(loading_key, lang).splitlines() if line.strip())
    return LiveStatus(status=words, loading_messages=loading[:MAX_LOADING_MESSAGES])
