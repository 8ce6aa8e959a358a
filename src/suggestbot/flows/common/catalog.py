"""The tenant's segments and use cases, kept briefly in memory and written through to the store.

They rarely change, and nearly every modal and command shows them, so one read of the service
serves every person of a workspace for a few minutes. The store keeps the last answer too: a
decision made before an ack (no time to ask the service) and a process started after a crash
still know the catalogue.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from suggestbot.contentapi import ContentClient
from suggestbot.installations.scope import current_team
from suggestbot.store.records import StoredCatalog, Table


@dataclass
class Catalog:
    """Segments and use cases of the tenant as ``(id, name)`` pairs, and when they were read."""

    segments: list[tuple[str, str]]
    use_cases: list[tuple[str, str]]
    loaded_at: float


def _key(team_id: str | None) -> str:
    return team_id or "-"  # "-": the one workspace of a single-workspace install


class CatalogCache:
    """Per workspace (see :mod:`suggestbot.installations.scope`): each may be another tenant."""

    def __init__(self, *, ttl_s: float = 300.0) -> None:
        self.ttl_s = ttl_s
        self._by_team: dict[str | None, Catalog] = {}
        self._lock = threading.Lock()

    def load(
        self,
        *,
        content: ContentClient,
        table: Table[StoredCatalog],
        clock: Callable[[], float],
        refresh: bool = False,
    ) -> Catalog:
        """The current workspace's catalogue, from memory while fresh, else from the service.

        Args:
            content: the service client read when the kept copy is stale.
            table: where the last answer is kept (written only when it changed).
            clock: the time a read is kept from.
            refresh: read the service even when the kept copy is fresh.

        Raises:
            ContentApiError: the service could not be read.
        """
        team = current_team()
        with self._lock:
            cached = self._by_team.get(team)
            if cached and not refresh and clock() - cached.loaded_at < self.ttl_s:
                return cached
        segments = [(s.id, s.name) for s in content.list_segments()]
        use_cases = [(u.id, u.name) for u in content.list_use_cases()]
        fresh = Catalog(segments=segments, use_cases=use_cases, loaded_at=clock())
        with self._lock:
            self._by_team[team] = fresh
        kept = table.get(_key(team))
        if kept is None or (kept.segments, kept.use_cases) != (segments, use_cases):
            table.put(
                _key(team),
                StoredCatalog(segments=segments, use_cases=use_cases, loaded_at=fresh.loaded_at),
            )
        return fresh

    def forget(self, team_id: str | None, *, table: Table[StoredCatalog]) -> None:
        """Drop a workspace's kept catalogue, in memory and in the store (its service changed)."""
        with self._lock:
            self._by_team.pop(team_id, None)
        table.delete(_key(team_id))

    def fresh(self, *, now: float) -> Catalog | None:
        """The current workspace's catalogue if read within the TTL, else None (no I/O)."""
        with self._lock:
            cached = self._by_team.get(current_team())
        if cached and now - cached.loaded_at < self.ttl_s:
            return cached
        return None

    def known(self, *, table: Table[StoredCatalog]) -> Catalog | None:
        """The catalogue as last read, however old, from memory or else from the store: no call
        to the service (safe before an ack), and the same answer after a restart. For decisions
        the service checks again anyway (a run naming a removed segment is refused clearly)."""
        with self._lock:
            cached = self._by_team.get(current_team())
        if cached is not None:
            return cached
        stored = table.get(_key(current_team()))
        if stored is None:
            return None
        return Catalog(
            segments=list(stored.segments),
            use_cases=list(stored.use_cases),
            loaded_at=stored.loaded_at,
        )
