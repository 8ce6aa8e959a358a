"""Knobs that make the sandbox misbehave on purpose, the way the real service may.

One :class:`Faults` object per sandbox, settable from Python (``sandbox.faults.short_pages = 2``,
validated on assignment) and over HTTP (``PATCH /sandbox/faults``). Knobs that count down
("the next N runs stall") are consumed under a lock so concurrent requests never double-spend.
"""

from __future__ import annotations

import fnmatch
import random
import threading
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

RUN_FAILURE_CODES = (
    "generation_failed",
    "generation_timeout",
    "steering_disabled",
    "invalid_parent",
    "image_not_applicable",
    "output_rejected",
)

Probability = Annotated[float, Field(ge=0.0, le=1.0)]


class RunTiming(BaseModel):
    """Nominal seconds, multiplied by the sandbox's ``time_factor``."""

    model_config = ConfigDict(extra="forbid")
    queued_s: Annotated[float, Field(ge=0)] = 1.0
    running_s: Annotated[float, Field(ge=0)] = 3.0
    precompute_s: Annotated[float, Field(ge=0)] = 2.0


class InjectedError(BaseModel):
    """Answer the next ``count`` requests whose path matches ``path`` with this error."""

    model_config = ConfigDict(extra="forbid")
    status: Annotated[int, Field(ge=400, le=599)]
    code: Annotated[str, Field(min_length=1)]
    count: Annotated[int, Field(ge=1)] = 1
    path: str = "/v1/*"


class RateLimit(BaseModel):
    """At most ``max_runs`` accepted run creations per tenant in any ``window_s`` seconds."""

    model_config = ConfigDict(extra="forbid")
    max_runs: Annotated[int, Field(ge=0)]
    window_s: Annotated[float, Field(gt=0)] = 60.0


class Faults(BaseModel):
    """All fault knobs; the defaults describe a well-behaved service."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    # Extra seconds per request; keys are glob patterns on the path, optionally prefixed with
    # the method ("GET /v1/inspiration", "/v1/generation-runs/*").
    latency_s: dict[str, Annotated[float, Field(ge=0)]] = Field(default_factory=dict)
    error_rate_5xx: Probability = 0.0
    next_5xx: Annotated[int, Field(ge=0)] = 0
    unknown_kind_rate: Probability = 0.0
    unknown_error_codes: list[InjectedError] = Field(default_factory=list)
    multi_error_entries: bool = False
    # 0 = off; otherwise pages hold at most this many items and every non-empty page carries a
    # cursor, so only a null cursor tells the end.
    short_pages: Annotated[int, Field(ge=0)] = 0
    # 0 = off; otherwise each next page starts this many items before where the last one ended,
    # repeating them (the contract's cursor is a position, not a snapshot: accumulate by id).
    overlap_pages: Annotated[int, Field(ge=0)] = 0
    run_timing: RunTiming = Field(default_factory=RunTiming)
    stall_next_runs: Annotated[int, Field(ge=0)] = 0
    fail_next_runs: list[str] = Field(default_factory=list)
    run_create_rate_limit: RateLimit | None = None
    thread_on_first_refinement: bool = False
    refuse_words: list[str] = Field(default_factory=lambda: ["forbidden"])
    unsafe_output_words: list[str] = Field(default_factory=lambda: ["unsafe-output"])

    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _rng: random.Random = PrivateAttr(default_factory=lambda: random.Random(20240501))

    def update(self, changes: dict[str, Any]) -> None:
        """Apply a partial update, all or nothing."""
        merged = self.model_dump() | changes
        checked = Faults.model_validate(merged)
        with self._lock:
            for name in changes:
                setattr(self, name, getattr(checked, name))

    def reset(self) -> None:
        fresh = Faults()
        with self._lock:
            for name in type(self).model_fields:
                setattr(self, name, getattr(fresh, name))

    def snapshot(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def latency_for(self, method: str, path: str) -> float:
        total = 0.0
        for pattern, seconds in list(self.latency_s.items()):
            target = f"{method} {path}" if " " in pattern else path
            if fnmatch.fnmatchcase(target, pattern):
                total = max(total, seconds)
        return total

    def take_5xx(self) -> bool:
        with self._lock:
            if self.next_5xx > 0:
                self.next_5xx -= 1
                return True
            return self.error_rate_5xx > 0 and self._rng.random() < self.error_rate_5xx

    def take_injected_error(self, method: str, path: str) -> InjectedError | None:
        with self._lock:
            for entry in self.unknown_error_codes:
                target = f"{method} {path}" if " " in entry.path else path
                if fnmatch.fnmatchcase(target, entry.path):
                    entry.count -= 1
                    if entry.count <= 0:
                        self.unknown_error_codes.remove(entry)
                    return entry
        return None

    def roll_unknown_kind(self) -> bool:
        with self._lock:
            return self.unknown_kind_rate > 0 and self._rng.random() < self.unknown_kind_rate

    def take_stall(self) -> bool:
        with self._lock:
            if self.stall_next_runs > 0:
                self.stall_next_runs -= 1
                return True
            return False

    def take_run_failure(self) -> str | None:
        with self._lock:
            if self.fail_next_runs:
                return self.fail_next_runs.pop(0)
            return None

    def refuses(self, text: str) -> bool:
        lowered = text.casefold()
        return any(word.casefold() in lowered for word in self.refuse_words if word)

    def rejects_output(self, text: str) -> bool:
        lowered = text.casefold()
        return any(word.casefold() in lowered for word in self.unsafe_output_words if word)
