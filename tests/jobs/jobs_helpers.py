"""Deps for tests of the jobs: a store in memory, and only the other parts a test gives."""

from __future__ import annotations

from typing import Any

from suggestbot.flows.common.deps import Deps
from suggestbot.store import MemoryStore
from suggestbot.store.records import Records


def store_only_deps(**given: Any) -> Deps:
    """``Deps`` over a fresh in-memory store; parts not ``given`` are absent (None), so a test
    that reaches one fails loudly instead of calling something real."""
    parts: dict[str, Any] = {"vault": None, "content": None, "slack": None, "timers": None}
    parts.update(given)
    return Deps(records=Records(MemoryStore()), **parts)
