"""When Slack takes the app's tokens away: stop the workspace's work, forget what it gave.

Slack sends ``tokens_revoked`` when a token is revoked and, when a workspace removes the app,
both ``tokens_revoked`` and ``app_uninstalled`` in no promised order. Either way the bot token
is dead: anything the app would post there fails, so nothing may be left that tries. These
functions are shared by both install modes (one workspace with ``SLACK_BOT_TOKEN``, and the
OAuth install's :mod:`suggestbot.flows.workspace.uninstall`); running them twice, or in either
order, leaves the same result.
"""

from __future__ import annotations

from dataclasses import dataclass

from suggestbot.flows.common.deps import Deps
from suggestbot.flows.inspiration.showing import watches
from suggestbot.store.records import ACTIVE_STATES, Failure, user_key


@dataclass(frozen=True)
class Stopped:
    """What :func:`stop_work` stopped (for the operator's log line and the tests)."""

    requests: int
    digests: int
    watches: int


def stop_work(deps: Deps, *, team_id: str, reason: str) -> Stopped:
    """Stop everything that would post to workspace ``team_id``.

    Requests in flight are marked failed with ``reason`` (their timers cancelled: no poll, no
    post, no progress of their root still waiting to be shown), digests are paused with
    ``reason`` (an admin resumes them once the app is back), and pending "generate now"
    watches are dropped.
    """
    records = deps.records
    stopped = 0
    failed = {"state": "failed", "failure": Failure(code=reason)}
    for request in records.requests.matching(team_id=team_id, state=ACTIVE_STATES):
        # Failed first, then the timer: a poll already in flight may still schedule one more,
        # which finds the request ended and drops it without reading the run.
        records.requests.update(request.id, lambda r: r.model_copy(update=failed))
        deps.timers.cancel(request.id)
        if deps.outbound is not None and request.post_channel_id and request.root_ts:
            # Its root's progress not shown yet would be sent with the dead token.
            deps.outbound.roots.drop((request.post_channel_id, request.root_ts))
        stopped += 1
    paused = 0
    for digest in records.digests.matching(team_id=team_id, paused=False):
        records.digests.update(
            digest.id,
            lambda d: d.model_copy(update={"paused": True, "paused_reason": reason}),
        )
        paused += 1
    table = watches(deps)
    dropped = 0
    for watch in table.matching(team_id=team_id):
        if table.delete(watch.id):
            dropped += 1
    return Stopped(stopped, paused, dropped)


def forget_people(deps: Deps, *, team_id: str) -> int:
    """Unlink every person of ``team_id`` (their personal service tokens are deleted) and drop
    what they typed while unlinked; returns how many links were removed."""
    records = deps.records
    users = 0
    for user in records.users.matching(team_id=team_id):
        if records.users.delete(user_key(team_id, user.user_id)):
            users += 1
    for held in records.held.matching(team_id=team_id):
        records.held.delete(held.id)
    return users
