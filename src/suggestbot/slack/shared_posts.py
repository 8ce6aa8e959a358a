"""Slack's one post a second per channel, shared by the replicas through the store.

Each replica's :class:`~suggestbot.slack.budget.Budget` paces only its own posts, so two
replicas posting into one channel (a channel's briefs taken by different replicas) together
send two a second, and Slack answers ``429``. With a database the replicas take each post's
slot from one record per channel instead, in one atomic read-modify-write: the record holds
when the channel's next post is due if posts went back to back, one spacing apart (the
"theoretical arrival time" of a leaky bucket); a post may go up to ``burst - 1`` spacings
ahead of it, which is Slack's short burst. Taking a slot reserves it, so replicas asking at
the same moment are handed successive seconds, never the same one.

Times are on the wall clock (epoch seconds), the only one replicas share. A record whose time
has passed holds nothing (the next post goes at once either way), so records older than
:data:`FORGET_AFTER_S` are deleted by whichever replica sweeps next (at most once a minute
each): the table holds the channels posted to in the last minute, not every channel ever.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from suggestbot.slack.budget import POST_SPACING_S
from suggestbot.slack.stale_sweep import StaleSweep
from suggestbot.slack.tiers import POST_CHANNEL_BURST
from suggestbot.store.marks import PostSlot
from suggestbot.store.records import Table

log = logging.getLogger(__name__)

FORGET_AFTER_S = 60.0


class SharedPosts:
    """Each channel's post slots, taken from the store.

    Args:
        table: the store's ``slack_post_slots``.
        wall_clock: epoch seconds.
        spacing_s, burst: one post per ``spacing_s``, ``burst`` back to back.
    """

    def __init__(
        self,
        table: Table[PostSlot],
        *,
        wall_clock: Callable[[], float] = time.time,
        spacing_s: float = POST_SPACING_S,
        burst: int = POST_CHANNEL_BURST,
    ) -> None:
        self._table = table
        self._wall = wall_clock
        self._spacing = spacing_s
        self._burst = burst
        self._sweep = StaleSweep(
            table, field="next", what="the channels' post slots", now=wall_clock()
        )

    def reserve(self, workspace: str, channel: str) -> float:
        """Take the channel's next post slot: when (epoch seconds) this post may go, now or
        later. When the store cannot be reached the post goes now (this replica's own pacing
        still holds; Slack's 429, if any, pauses posting for every caller)."""
        now = self._wall()
        slot = [now]

        def take(old: PostSlot | None) -> PostSlot:
            due = max(now, old.next if old is not None else now)
            slot[0] = max(now, due - (self._burst - 1) * self._spacing)
            return PostSlot(next=due + self._spacing)

        try:
            self._table.upsert(f"{workspace}|{channel}", take)
        except Exception as exc:
            log.warning("could not share a channel's post pacing with the other replicas (%s)", exc)
            return now
        self._sweep(now, cutoff=now - FORGET_AFTER_S)
        return slot[0]
