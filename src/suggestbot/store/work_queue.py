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
        """Make ``key`` due at ``due_at``; with ``if_absent``, only when not scheduled yet.

        Returns:
            Whether it was written.
        """
        return self.store.schedule(self.name, key, due_at=due_at, if_absent=if_absent)

    def schedule_many(self, due: Mapping[str, float], *, if_absent: bool = False) -> list[str]:
        """Schedule many units at once (``{key: due_at}``).

        Returns:
            The keys written.
        """
        return self.store.schedule_many(self.name, due, if_absent=if_absent)

    def unschedule(self, key: str) -> bool:
        """Remove ``key`` (held or not); returns whether it was there."""
        return self.store.unschedule(self.name, key)

    def claim_due(
        self, *, owner: str, now: float, due_by: float, lease_s: float, limit: int, share: int = 1
    ) -> list[Claim]:
        """Lease units due by ``due_by`` to ``owner`` for ``lease_s`` seconds, at most ``limit``;
        units whose lease ran out are taken over (``Claim.taken_over``).

        Args:
            share: how many replicas split the work (this one takes its share).
        """
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
        """Schedule units filed under a group each (``groups``: key → group, e.g. a
        workspace); see :meth:`claim_due_grouped`.

        Returns:
            The keys written.
        """
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
        """Like :meth:`claim_due`, by group: a group's due units go to the owner already
        holding units in it, or, when none does, to one owner as a whole.
        """
        return self.store.claim_due_grouped(
            self.name,
            owner=owner,
            now=now,
            due_by=due_by,
            lease_s=lease_s,
            limit=limit,
            share=share,
        )

    def claim_group_free(
        self, group: str, *, owner: str, now: float, due_by: float, lease_s: float, limit: int
    ) -> list[Claim]:
        """Lease the free units of ``group`` due by ``due_by`` (see
        :meth:`Store.claim_group_free`)."""
        return self.store.claim_group_free(
            self.name, group, owner=owner, now=now, due_by=due_by, lease_s=lease_s, limit=limit
        )

    def claim_keys(
        self, keys: Collection[str], *, owner: str, now: float, lease_s: float
    ) -> list[str]:
        """Lease the named units to ``owner`` if they are free or their lease ran out.

        Returns:
            The keys leased.
        """
        return self.store.claim_keys(self.name, keys, owner=owner, now=now, lease_s=lease_s)

    def renew(self, keys: Collection[str], *, owner: str, now: float, lease_s: float) -> list[str]:
        """Extend ``owner``'s leases on ``keys`` by ``lease_s`` from ``now``.

        Returns:
            The keys still held (the others were taken over).
        """
        return self.store.renew(self.name, keys, owner=owner, now=now, lease_s=lease_s)

    def release(self, key: str, *, owner: str, due_at: float | None) -> bool:
        """End ``owner``'s lease on ``key``: due again at ``due_at``, or done (deleted) with None.

        Returns:
            False when ``owner`` no longer held it.
        """
        return self.store.release(self.name, key, owner=owner, due_at=due_at)

    def release_many(
        self, due: Mapping[str, float], *, owner: str, groups: Mapping[str, str] | None = None
    ) -> list[str]:
        """Release many held units, each due again at its time (``{key: due_at}``), those
        named in ``groups`` filed under their new group.

        Returns:
            The keys that were still ``owner``'s.
        """
        return self.store.release_many(self.name, due, owner=owner, groups=groups)

    def holders(self, *, now: float) -> int:
        """How many distinct owners hold a live lease in this queue at ``now``."""
        return self.store.holders(self.name, now=now)
