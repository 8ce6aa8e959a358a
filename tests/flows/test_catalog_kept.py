"""The catalogue as last loaded is kept in the store: what depends on it survives a restart."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from suggestbot.flows.common.deps import Deps
from suggestbot.store import MemoryStore
from suggestbot.store.records import Records


class Service:
    """Answers the two catalogue reads, counting them."""

    def __init__(self, segments: list[tuple[str, str]]) -> None:
        self.segments = segments
        self.reads = 0

    def list_segments(self) -> list[Any]:
        self.reads += 1
        return [SimpleNamespace(id=i, name=n) for i, n in self.segments]

    def list_use_cases(self) -> list[Any]:
        return [SimpleNamespace(id="uc1", name="Newsletter")]


def deps_over(store: MemoryStore, service: Service, now: list[float]) -> Deps:
    parts: dict[str, Any] = {"vault": None, "slack": None, "timers": None}
    return Deps(records=Records(store), content=service, clock=lambda: now[0], **parts)  # type: ignore[arg-type]


def test_a_restarted_app_knows_the_catalogue_without_asking_the_service() -> None:
    store, now = MemoryStore(), [1000.0]
    before = deps_over(store, Service([("s1", "Hikers")]), now)
    assert before.known_catalog() is None  # never loaded: nothing to go on
    before.catalog()
    now[0] += 3600  # long past the in-memory cache's freshness
    service = Service([])
    after = deps_over(store, service, now)  # a new process on the same store
    known = after.known_catalog()
    assert known is not None and known.segments == [("s1", "Hikers")]
    assert known.use_cases == [("uc1", "Newsletter")]
    assert service.reads == 0


def test_a_changed_catalogue_replaces_the_kept_one_and_forgetting_drops_it() -> None:
    store, now = MemoryStore(), [1000.0]
    service = Service([("s1", "Hikers")])
    deps = deps_over(store, service, now)
    deps.catalog()
    service.segments = [("s2", "Cyclists")]
    deps.catalog(refresh=True)
    known = deps_over(store, service, now).known_catalog()
    assert known is not None and known.segments == [("s2", "Cyclists")]
    deps.forget_catalog(None)
    assert deps_over(store, service, now).known_catalog() is None
