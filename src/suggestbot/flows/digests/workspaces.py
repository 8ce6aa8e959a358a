"""Which workspaces' digests a replica posts in a wave: whole workspaces, claimed a share at a
time.

A workspace's content (one read per segment and use case) is read by each replica that posts
some of its digests; when replicas split a workspace's channels, each of them reads it. So every
replica running a wave first claims whole workspaces — units of the store's
``digest_workspaces`` queue, keyed by the wave and the workspace — its fair share at first (one
in as many as replicas are live, by their heartbeats), in an order of its own so that replicas
start apart, then, once it has posted those, whatever no live replica holds: a replica that
started its wave late, or died, leaves its workspaces to the others. The deliveries are still
claimed one by one (:mod:`suggestbot.flows.digests.wave`), so a workspace claimed twice (its
lease ran out) is still posted once, and one replica alone (or SQLite) claims everything.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence

from suggestbot.flows.common.deps import Deps

# As long as a wave's delivery claims: a workspace whose replica died is left to the others.
LEASE_S = 50.0
# Units of waves this long past are forgotten by the hourly clean-up.
KEEP_S = 3600.0


def unit_key(wave: str, team_id: str) -> str:
    """The key of one workspace's claim within one wave."""
    return f"{wave}|{team_id}"


class WorkspaceClaims:
    """The workspaces of one wave, as this replica claims them: :meth:`first` its share,
    :meth:`more` what is left once that is posted (until nothing is)."""

    def __init__(
        self,
        deps: Deps,
        *,
        wave: str,
        due_at: float,
        teams: Sequence[str],
        clock: Callable[[], float],
    ) -> None:
        self._deps = deps
        self._queue = deps.records.digest_workspaces
        self._wave = wave
        self._clock = clock
        owner = deps.owner
        self._left = sorted(
            set(teams),
            key=lambda team: hashlib.blake2b(f"{owner}:{team}".encode(), digest_size=8).digest(),
        )
        # Every replica writes the wave's units (those there already are left alone).
        self._queue.schedule_many(
            {unit_key(wave, team): due_at for team in self._left}, if_absent=True
        )

    def first(self) -> list[str]:
        """This replica's share of the workspaces (all of them when it is alone)."""
        return self._claim(self._left[: self._share()])

    def more(self) -> list[str]:
        """Once this replica's share is posted: another share of the workspaces no live replica
        holds (not claimed yet, or whose holder died); none when every one is held or done."""
        share = self._share() or 1
        for start in range(0, len(self._left), share):
            claimed = self._claim(self._left[start : start + share])
            if claimed:
                return claimed
        return []

    def _claim(self, teams: Sequence[str]) -> list[str]:
        if not teams:
            return []
        keys = {unit_key(self._wave, team): team for team in teams}
        claimed = self._queue.claim_keys(
            list(keys), owner=self._deps.owner, now=self._clock(), lease_s=LEASE_S
        )
        mine = {keys[key] for key in claimed}
        self._left = [team for team in self._left if team not in mine]
        return [team for team in teams if team in mine]

    def _share(self) -> int:
        """One in as many of the workspaces left as replicas are live (by their heartbeats)."""
        live = max(1, self._deps.records.replicas.holders(now=self._clock()))
        return math.ceil(len(self._left) / live)


def forget_old(deps: Deps, *, now: float) -> int:
    """Forget the units of waves over an hour past (a wave's own are left to run out: another
    replica may still be posting that minute); how many went."""
    queue = deps.records.digest_workspaces
    forgotten = 0
    while True:
        old = queue.claim_due(
            owner=deps.owner, now=now, due_by=now - KEEP_S, lease_s=LEASE_S, limit=500
        )
        for claim in old:
            forgotten += queue.unschedule(claim.key)
        if len(old) < 500:
            return forgotten
