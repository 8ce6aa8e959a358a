"""Leases of the single-process backends (SQLite, memory), kept in the process.

With one process on the state, the only way a holder dies is the process itself, and the next
start rebuilds every unit from the records it belongs to (``jobs.recovery``); so these leases
need not survive a restart, and keeping them in memory spares a write per claim. A heap ordered
by *ready time* (when due if free, when the lease runs out if leased) makes a claim cost what it
takes out, not the size of the queue, as the PostgreSQL index does there.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass

from suggestbot.store.base import Claim, pick_groups


@dataclass
class _Unit:
    due_at: float
    owner: str | None = None
    lease_until: float = 0.0
    group: str = ""

    @property
    def ready_at(self) -> float:
        return self.due_at if self.owner is None else self.lease_until


class LeaseBook:
    """One queue's units; the caller serialises access (the store's lock)."""

    def __init__(self) -> None:
        self._units: dict[str, _Unit] = {}
        self._heap: list[tuple[float, int, str]] = []  # may hold stale entries
        self._order = itertools.count()
        self._members: dict[str, set[str]] = {}  # group -> its keys (a group claimed alone)

    def _push(self, key: str, unit: _Unit) -> None:
        old = self._units.get(key)
        if old is None or old.group != unit.group:
            if old is not None:
                self._leave_group(key, old.group)
            self._members.setdefault(unit.group, set()).add(key)
        self._units[key] = unit
        heapq.heappush(self._heap, (unit.ready_at, next(self._order), key))

    def _forget(self, key: str) -> bool:
        unit = self._units.pop(key, None)
        if unit is None:
            return False
        self._leave_group(key, unit.group)
        return True

    def _leave_group(self, key: str, group: str) -> None:
        members = self._members.get(group)
        if members is not None:
            members.discard(key)
            if not members:
                del self._members[group]

    def schedule(
        self, key: str, *, due_at: float, if_absent: bool, group: str | None = None
    ) -> bool:
        if if_absent and key in self._units:
            return False
        if group is None:  # a unit keeps its group when scheduled again without one
            old = self._units.get(key)
            group = "" if old is None else old.group
        self._push(key, _Unit(due_at, group=group))
        return True

    def schedule_grouped(
        self, due: Mapping[str, float], *, groups: Mapping[str, str], if_absent: bool
    ) -> list[str]:
        return [
            key
            for key, at in due.items()
            if self.schedule(key, due_at=at, if_absent=if_absent, group=groups.get(key, ""))
        ]

    def schedule_many(self, due: Mapping[str, float], *, if_absent: bool) -> list[str]:
        written = (self.schedule(key, due_at=at, if_absent=if_absent) for key, at in due.items())
        return [key for key, wrote in zip(due, written, strict=True) if wrote]

    def unschedule(self, key: str) -> bool:
        return self._forget(key)

    def _pop_ready(self, due_by: float) -> Iterator[tuple[str, _Unit]]:
        """Take the heap's entries ready by ``due_by`` off it, each live unit once: an entry is
        stale when its unit was replaced, claimed or forgotten since, and a unit pushed again
        at the same ready time (scheduled, then held to end when its hold does) has two. The
        caller pushes back what it does not claim."""
        seen: set[str] = set()
        while self._heap and self._heap[0][0] <= due_by:
            ready_at, _, key = heapq.heappop(self._heap)
            unit = self._units.get(key)
            if unit is None or unit.ready_at != ready_at or key in seen:
                continue
            seen.add(key)
            yield key, unit

    def claim_due(
        self, *, owner: str, now: float, due_by: float, lease_s: float, limit: int, share: int = 1
    ) -> list[Claim]:
        claimable: list[tuple[str, _Unit]] = []
        kept: list[tuple[str, _Unit]] = []
        if limit > 0:
            for key, unit in self._pop_ready(due_by):
                if unit.owner is not None and unit.lease_until > now:
                    kept.append((key, unit))  # runs out within the tolerance, not yet
                    continue
                claimable.append((key, unit))
                if len(claimable) >= limit:
                    break
        taking = -(-len(claimable) // max(share, 1))
        claimed: list[Claim] = []
        for key, unit in claimable[:taking]:
            taken_over = unit.owner is not None and unit.owner != owner
            unit.owner, unit.lease_until = owner, now + lease_s
            claimed.append(Claim(key, unit.due_at, taken_over, unit.group))
        for key, unit in kept + claimable:
            heapq.heappush(self._heap, (unit.ready_at, next(self._order), key))
        return sorted(claimed, key=lambda claim: claim.due_at)

    def claim_due_grouped(
        self,
        *,
        owner: str,
        now: float,
        due_by: float,
        lease_s: float,
        limit: int,
        share: int = 1,
    ) -> list[Claim]:
        claimable: dict[str, list[tuple[str, _Unit]]] = {}  # group -> units, most overdue first
        kept: list[tuple[str, _Unit]] = []
        for key, unit in self._pop_ready(due_by):
            if unit.owner is not None and unit.lease_until > now:
                kept.append((key, unit))
                continue
            claimable.setdefault(unit.group, []).append((key, unit))
        held: dict[str, tuple[bool, bool]] = {}
        for unit in self._units.values():
            if unit.owner is not None and unit.lease_until > now:
                mine, other = held.get(unit.group, (False, False))
                held[unit.group] = (mine or unit.owner == owner, other or unit.owner != owner)
        taking = pick_groups(list(claimable), held=held, share=share)
        picked = sorted(
            (pair for group in taking for pair in claimable[group]),
            key=lambda pair: pair[1].ready_at,
        )[: max(limit, 0)]
        claimed: list[Claim] = []
        for key, unit in picked:
            taken_over = unit.owner is not None and unit.owner != owner
            unit.owner, unit.lease_until = owner, now + lease_s
            claimed.append(Claim(key, unit.due_at, taken_over, unit.group))
        for pairs in claimable.values():
            kept.extend(pairs)
        for key, unit in kept:
            heapq.heappush(self._heap, (unit.ready_at, next(self._order), key))
        return sorted(claimed, key=lambda claim: claim.due_at)

    def claim_group_free(
        self, group: str, *, owner: str, now: float, due_by: float, lease_s: float, limit: int
    ) -> list[Claim]:
        members = [(key, self._units[key]) for key in self._members.get(group, ())]
        if any(u.owner not in (None, owner) and u.lease_until > now for _, u in members):
            return []  # another owner serves the group
        free = sorted(
            ((key, unit) for key, unit in members if unit.owner is None and unit.due_at <= due_by),
            key=lambda pair: (pair[1].due_at, pair[0]),
        )[: max(limit, 0)]
        claimed: list[Claim] = []
        for key, unit in free:
            unit.owner, unit.lease_until = owner, now + lease_s
            self._push(key, unit)
            claimed.append(Claim(key, unit.due_at, False, unit.group))
        return claimed

    def claim_keys(
        self, keys: Collection[str], *, owner: str, now: float, lease_s: float
    ) -> list[str]:
        claimed: list[str] = []
        for key in dict.fromkeys(keys):
            unit = self._units.get(key)
            if unit is None or (unit.owner is not None and unit.lease_until > now):
                continue
            unit.owner, unit.lease_until = owner, now + lease_s
            self._push(key, unit)
            claimed.append(key)
        return claimed

    def renew(self, keys: Collection[str], *, owner: str, now: float, lease_s: float) -> list[str]:
        held: list[str] = []
        for key in dict.fromkeys(keys):
            unit = self._units.get(key)
            if unit is not None and unit.owner == owner:
                unit.lease_until = now + lease_s
                self._push(key, unit)
                held.append(key)
        return held

    def release(
        self, key: str, *, owner: str, due_at: float | None, group: str | None = None
    ) -> bool:
        unit = self._units.get(key)
        if unit is None or unit.owner != owner:
            return False
        if due_at is None:
            self._forget(key)
        else:
            self._push(key, _Unit(due_at, group=unit.group if group is None else group))
        return True

    def release_many(
        self, due: Mapping[str, float], *, owner: str, groups: Mapping[str, str] | None = None
    ) -> list[str]:
        regroup = groups or {}
        return [
            key
            for key, at in due.items()
            if self.release(key, owner=owner, due_at=at, group=regroup.get(key))
        ]

    def holders(self, *, now: float) -> int:
        return len(
            {u.owner for u in self._units.values() if u.owner is not None and u.lease_until > now}
        )
