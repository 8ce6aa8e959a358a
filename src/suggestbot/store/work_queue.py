"""One named queue of deferred work, with its leases (see ``Store.claim_due``).

Bound to its queue name so that, as with tables, nothing outside ``store`` names a queue.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from suggestbot.store.base import Claim, Store


class WorkQueue:
    """The units of one kind of deferred work (for example run polls), keyed by what they are
    for (the request id)."""

    def __init__(self, store: Store, name: str) -> None:
        self.store = store
        self.name = name

    def schedule(self, key: str, *, due_at: float, if_absent: bool = False) -> bool:
        return self.store.schedule(self.name, key, due_at=due_at, if_absent=if_absent)

    def schedule_many(self, due: Mapping[str, float], *, if_absent: bool = False) -> list[str]:
        return self.store.schedule_many(self.name, due, if_absent=if_absent)

    def unschedule(self, key: str) -> bool:
        return self.store.unschedule(self.name, key)

    def claim_due(
        self, *, owner: str, now: float, due_by: float, lease_s: float, limit: int, share: int = 1
    ) -> list[Claim]:
        return self.store.claim_due(
            self.name,
            owner=owner,
            now=now,
            due_by=due_by,
            lease_s=lease_s,
            limit=limit,
            share=share,
        )

    def schedule_grouped(
        self, due: Mapping[str, float], *, groups: Mapping[str, str], if_absent: bool = False
    ) -> list[str]:
        return self.store.schedule_grouped(self.name, due, groups=groups, if_absent=if_absent)

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
        return self.store.claim_due_grouped(
            self.name,
            owner=owner,
            now=now,
            due_by=due_by,
            lease_s=lease_s,
            limit=limit,
            share=share,
        )

    def claim_keys(
        self, keys: Collection[str], *, owner: str, now: float, lease_s: float
    ) -> list[str]:
        return self.store.claim_keys(self.name, keys, owner=owner, now=now, lease_s=lease_s)

    def renew(self, keys: Collection[str], *, owner: str, now: float, lease_s: float) -> list[str]:
        return self.store.renew(self.name, keys, owner=owner, now=now, lease_s=lease_s)

    def release(self, key: str, *, owner: str, due_at: float | None) -> bool:
        return self.store.release(self.name, key, owner=owner, due_at=due_at)

    def release_many(self, due: Mapping[str, float], *, owner: str) -> list[str]:
        return self.store.release_many(self.name, due, owner=owner)

    def holders(self, *, now: float) -> int:
        return self.store.holders(self.name, now=now)
