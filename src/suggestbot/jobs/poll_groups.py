"""The group a run's poll is filed under in the store, which decides who may claim it.

Polls are claimed by group (``Store.claim_due_grouped``): one replica at a time serves a group,
and the replicas split the groups. A run not placed yet in its workspace's listing is filed
under one of its workspace's few *walk groups* (by its request id), whose walker finds it by a
walk from the first page. A run met on a page the listing reached by a cursor is filed under
that page (the workspace and the cursor): the page holds it however many runs are created
after it (``jobs.run_positions``), so whichever replica claims the page's polls reads that one
page for them. So a workspace of 20,000 runs is 200 groups the replicas share, not one walk a
single replica must make alone, and a replica that takes over a page's polls knows where they
sit without walking for them. The walk groups matter when a workspace's runs are all still to
be found (at a start, or the first start after an upgrade): several replicas walk for them
side by side, each for its share, instead of one replica serving every poll of the workspace
until its walk has placed them. One process sweeps a workspace once whatever its groups.
"""

from __future__ import annotations

import zlib

# Between the workspace and the cursor: neither a Slack team id nor a cursor holds one.
_PAGE_MARK = "\n"
# Between the workspace and the number of its walk group.
_WALK_MARK = "\t"
# Walk groups per workspace: enough for the replicas of a deployment to share a workspace's
# first walks; each costs a walk from the first page an interval while it has runs to find.
WALK_GROUPS = 4


def workspace_group(team_id: str | None, request_id: str) -> str:
    """The group of a run not placed yet: one of its workspace's walk groups, the same one
    for a request every time."""
    number = zlib.crc32(request_id.encode()) % WALK_GROUPS
    return f"{team_id or ''}{_WALK_MARK}{number}"


def page_group(team_id: str | None, cursor: str | None, request_id: str) -> str:
    """The group of a run met on the page ``cursor`` asked for (None: the first page, which
    moves as runs are created, so its runs stay in their walk groups)."""
    if cursor is None:
        return workspace_group(team_id, request_id)
    return f"{team_id or ''}{_PAGE_MARK}{cursor}"


def cursor_of(group: str) -> str | None:
    """The cursor of the page a group names, or None for a workspace's group."""
    _, mark, cursor = group.partition(_PAGE_MARK)
    return cursor if mark else None
