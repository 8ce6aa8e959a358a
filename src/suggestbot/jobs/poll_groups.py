"""The group a run's poll is filed under in the store, which decides who may claim it.

Polls are claimed by group (``Store.claim_due_grouped``): one replica at a time serves a group,
and the replicas split the groups. A run not placed yet in its workspace's listing is filed
under the workspace, whose walk from the first page finds it. A run met on a page the listing
reached by a cursor is filed under that page (the workspace and the cursor): the page holds it
however many runs are created after it (``jobs.run_positions``), so whichever replica claims
the page's polls reads that one page for them. So a workspace of 20,000 runs is 200 groups the
replicas share, not one walk a single replica must make alone, and a replica that takes over
a page's polls knows where they sit without walking for them.
"""

from __future__ import annotations

# Between the workspace and the cursor: neither a Slack team id nor a cursor holds one.
_PAGE_MARK = "\n"


def workspace_group(team_id: str | None) -> str:
    """The group of a run not placed yet: its workspace (``""`` for none)."""
    return team_id or ""


def page_group(team_id: str | None, cursor: str | None) -> str:
    """The group of a run met on the page ``cursor`` asked for (None: the first page, which
    moves as runs are created, so its runs stay filed under the workspace)."""
    if cursor is None:
        return workspace_group(team_id)
    return f"{workspace_group(team_id)}{_PAGE_MARK}{cursor}"


def cursor_of(group: str) -> str | None:
    """The cursor of the page a group names, or None for a workspace's group."""
    _, mark, cursor = group.partition(_PAGE_MARK)
    return cursor if mark else None
