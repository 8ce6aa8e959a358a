"""The status line under a request's Slack thread while its run works.

Set whenever the request's root is shown afresh (:func:`show`, called by ``flows.common.requests``),
renewed by a timer while the run lasts (Slack lets a line lapse two minutes after it was last
set), and cleared when the request ends: Slack removes it by itself when the app posts its
reply in the thread, so it is cleared explicitly only where nothing is posted (a failure, a
request that waits for its author). The line is a courtesy: whatever Slack answers (a missing
scope, ``not_in_channel``), the request goes on, with one log line saying why.
"""

from __future__ import annotations

import logging

from slack_sdk.errors import SlackApiError

from suggestbot.flows.common import slackio
from suggestbot.flows.common.deps import Deps
from suggestbot.store.records import Request
from suggestbot.ui.blocks.live_status import LiveStatus, build_live_status
from suggestbot.ui.blocks.requests import Phase, RequestStatus

log = logging.getLogger(__name__)

# Cleared explicitly: these end without a post in the thread that would clear the line.
_CLEAR_ON = frozenset({Phase.FAILED, Phase.WAITING_USER})


def thread_of(req: Request) -> tuple[str, str] | None:
    """The conversation and thread root the request's line shows under: a brief's own root,
    or the Slack thread a refinement belongs to."""
    if not (req.post_channel_id and req.root_ts):
        return None
    return req.post_channel_id, req.thread_ts or req.root_ts


def show(deps: Deps, *, req: Request, status: RequestStatus) -> None:
    """Show ``status`` as the thread's line (or clear it when the request has ended)."""
    line = build_live_status(lang=req.posts_lang, status=status)
    if line is None and status.phase not in _CLEAR_ON:
        return  # done: the results posted in the thread have cleared it
    _set(deps, req=req, line=line)


def clear(deps: Deps, *, req: Request) -> None:
    """End the line of a request that ended without a new post in its thread (a refinement's
    turn replaces its status reply in place, which Slack does not count as a reply)."""
    _set(deps, req=req, line=None)


def _set(deps: Deps, *, req: Request, line: LiveStatus | None) -> None:
    where = thread_of(req)
    if where is None:
        return
    channel, thread_ts = where
    try:
        deps.slack.assistant_threads_setStatus(
            channel_id=channel,
            thread_ts=thread_ts,
            status=line.status if line else "",
            loading_messages=list(line.loading_messages) if line else None,
        )
    except SlackApiError as exc:
        log.warning(
            "request %s: Slack refused its status line (%s); carrying on without it",
            req.id,
            slackio.slack_error(exc),
        )
    except Exception as exc:  # a courtesy must not stop the request
        log.warning(
            "request %s: could not set its status line (%s); carrying on without it",
            req.id,
            type(exc).__name__,
        )
