"""The group a run's poll is filed under in the store, which decides who may claim it.

Polls are claimed by group (``Store.claim_due_grouped``): one replica at a time serves a group,
and the replicas split the groups. Groups belong to a run *listing*, the one the runs are read
from (``Deps.listing_of``): every workspace on the app's own service client shares one tenant,
so one listing, and a page of it serves runs of all of them; a workspace with credentials of
its own has a listing of its own. A run not placed yet in its listing is filed under one of
the listing's few *walk groups* (by its request id), whose walker finds it by a walk from the
first page. A run met on a page the listing reached by a cursor is filed under that page (the
listing and the cursor): the page holds it however many runs are created after it
(``jobs.run_positions``), so whichever replica claims the page's polls reads that one page for
them; a run met on the first page is filed under the listing's first page, found again by a
walk from the top. So a listing of 20,000 runs is 200 groups the replicas share, not one walk
a single replica must make alone, and a replica that takes over a page's polls knows where
they sit without walking for them. A page's read also serves its group's free polls due
within half an interval (``Store.claim_group_free``), so a page's runs are due together and
read once an interval, however their polls were split before (by the walk groups they came
from, or between replicas). The walk groups matter when a listing's runs are all still to be
found (at a start, or the first start after an upgrade): several replicas walk for them side
by side, each for its share, instead of one replica serving every poll of the listing until
its walk has placed them. One process sweeps a listing once whatever its groups.
"""

from __future__ import annotations

import zlib

# Between the listing and the cursor: neither a Slack team id nor a cursor holds one.
_PAGE_MARK = "\n"
# Between the listing and the number of its walk group.
_WALK_MARK = "\t"
# Walk groups per listing: enough for the replicas of a deployment to share a listing's first
# walks; each costs a walk from the first page an interval while it has runs to find.
WALK_GROUPS = 4


def walk_group(listing: str | None, request_id: str) -> str:
    """The group of a run not placed yet: one of its listing's walk groups, the same one for
    a request every time."""
    number = zlib.crc32(request_id.encode()) % WALK_GROUPS
    return f"{listing or ''}{_WALK_MARK}{number}"


def page_group(listing: str | None, cursor: str | None) -> str:
    """The group of a run met on the page ``cursor`` asked for. None is the first page: it
    moves as runs are created, so its runs are found again by a walk from the top, but they
    are one group, read by one walk an interval (the contract never hands out an empty
    cursor, so the empty one names it)."""
    return f"{listing or ''}{_PAGE_MARK}{cursor or ''}"


def cursor_of(group: str) -> str | None:
    """The cursor of the page a group names, or None for the first page or a walk group."""
    _, mark, cursor = group.partition(_PAGE_MARK)
    return cursor if mark and cursor else None
