"""All data of one sandbox behind one lock, with optional JSON persistence.

Every read and write of the records happens while holding :attr:`State.lock`; the HTTP handlers
and the worker thread keep their critical sections short. Persistence writes the whole state to
one JSON file atomically (temporary file, then rename); secrets are stored only as digests and
the URL-signing key is never written.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
from bisect import insort
from collections import deque
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from suggestbot.sandbox.paging import SortKey
from suggestbot.sandbox.records import (
    AccessTokenRec,
    CredentialRec,
    ImageRec,
    PrecomputeJobRec,
    RunRec,
    SegmentRec,
    SetRec,
    SuggestionRec,
    TenantRec,
    ThreadRec,
    UseCaseRec,
    UserTokenRec,
)

logger = logging.getLogger(__name__)

STATE_FILE = "sandbox-state.json"
_FORMAT = 1
# ``State.next_move_at`` when no run and no ready-made generation is in progress: later than any
# clock reading, so the worker never walks finished runs just to find nothing to do.
NOTHING_PENDING = datetime.max.replace(tzinfo=UTC)

R = TypeVar("R", bound=BaseModel)

# attribute name -> (record type, key field)
_TABLES: dict[str, tuple[type[BaseModel], str]] = {
    "tenants": (TenantRec, "id"),
    "segments": (SegmentRec, "id"),
    "use_cases": (UseCaseRec, "id"),
    "credentials": (CredentialRec, "client_id"),
    "access_tokens": (AccessTokenRec, "token_hash"),
    "user_tokens": (UserTokenRec, "token_hash"),
    "images": (ImageRec, "id"),
    "suggestions": (SuggestionRec, "id"),
    "sets": (SetRec, "id"),
    "threads": (ThreadRec, "id"),
    "runs": (RunRec, "id"),
}


def catalog_key(tenant_id: str, segment_id: str, use_case_id: str, locale: str) -> str:
    return f"{tenant_id}|{segment_id}|{use_case_id}|{locale}"


class State:
    """The records, keyed by id, plus indexes rebuilt on load."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.tenants: dict[str, TenantRec] = {}
        self.segments: dict[str, SegmentRec] = {}
        self.use_cases: dict[str, UseCaseRec] = {}
        self.credentials: dict[str, CredentialRec] = {}
        self.access_tokens: dict[str, AccessTokenRec] = {}
        self.user_tokens: dict[str, UserTokenRec] = {}
        self.images: dict[str, ImageRec] = {}
        self.suggestions: dict[str, SuggestionRec] = {}
        self.sets: dict[str, SetRec] = {}
        self.threads: dict[str, ThreadRec] = {}
        self.runs: dict[str, RunRec] = {}  # add with add_run, which keeps the orders below
        # (created_at, id) of each tenant's runs, and of each (tenant, creator)'s, oldest
        # first: the run listing pages through these by bisection instead of sorting per page.
        self.run_order: dict[str, list[SortKey]] = {}
        self.run_order_by_creator: dict[tuple[str, str], list[SortKey]] = {}
        # key "tenant|segment|use_case" -> job in progress (POST /v1/inspiration joins it)
        self.precompute_jobs: dict[str, PrecomputeJobRec] = {}
        # catalog_key -> ready-made set ids, oldest version first
        self.catalog: dict[str, list[str]] = {}
        # tenant -> times of accepted run creations (rate limit; not persisted)
        self.run_creations: dict[str, deque[datetime]] = {}
        # The earliest time any run or ready-made generation can next move, as the last walk
        # of the worker found it (lowered by whatever schedules an earlier move since), so the
        # worker skips walking every run while nothing can be due. None: not known, walk.
        self.next_move_at: datetime | None = None
        self._dirty = False

    # --- change tracking ---------------------------------------------------------------

    def touch(self) -> None:
        """Note that something changed, so the next flush writes the file."""
        self._dirty = True

    @property
    def dirty(self) -> bool:
        return self._dirty

    # --- the worker's next move ---------------------------------------------------------

    def expect_move_at(self, when: datetime) -> None:
        """Something will be due at ``when``: a worker that walked before must not sleep past it."""
        if self.next_move_at is not None and when < self.next_move_at:
            self.next_move_at = when

    def forget_next_move(self) -> None:
        """The next move may now be earlier in a way not worth working out: walk next time."""
        self.next_move_at = None

    # --- indexes -------------------------------------------------------------------------

    def add_to_catalog(self, record: SetRec) -> None:
        key = catalog_key(record.tenant_id, record.segment_id, record.use_case_id, record.locale)
        self.catalog.setdefault(key, []).append(record.id)

    def next_version(self, tenant_id: str, segment_id: str, use_case_id: str, locale: str) -> int:
        ids = self.catalog.get(catalog_key(tenant_id, segment_id, use_case_id, locale), [])
        return 1 + max((self.sets[i].version or 0 for i in ids), default=0)

    def add_run(self, run: RunRec) -> None:
        """Store a new run and keep the listing orders (runs are created in time order, so
        this is an append but for ties and a clock that stepped back)."""
        self.runs[run.id] = run
        key = (run.created_at, run.id)
        insort(self.run_order.setdefault(run.tenant_id, []), key)
        insort(self.run_order_by_creator.setdefault((run.tenant_id, run.created_by), []), key)
        if run.status == "queued" and run.due_at is not None:
            self.expect_move_at(run.due_at)
        elif run.status in ("queued", "running"):
            self.forget_next_move()  # a running run's attempt limit is the worker's to work out

    # --- persistence ---------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        with self.lock:
            data: dict[str, Any] = {"format": _FORMAT}
            for name in _TABLES:
                table: dict[str, BaseModel] = getattr(self, name)
                data[name] = [rec.model_dump(mode="json") for rec in table.values()]
            data["precompute_jobs"] = [
                job.model_dump(mode="json") for job in self.precompute_jobs.values()
            ]
            return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> State:
        state = cls()
        for name, (record_type, key) in _TABLES.items():
            table: dict[str, BaseModel] = getattr(state, name)
            for raw in data.get(name, []):
                rec = record_type.model_validate(raw)
                table[getattr(rec, key)] = rec
        for run in list(state.runs.values()):
            state.add_run(run)
        for raw in data.get("precompute_jobs", []):
            job = PrecomputeJobRec.model_validate(raw)
            state.precompute_jobs[f"{job.tenant_id}|{job.segment_id}|{job.use_case_id}"] = job
        for record in sorted(state.sets.values(), key=lambda s: (s.version or 0, s.id)):
            if record.origin == "precompute":
                state.add_to_catalog(record)
        return state

    def save(self, directory: Path) -> None:
        """Write the state atomically; a crash mid-write leaves the previous file intact."""
        with self.lock:
            payload = json.dumps(self.to_json(), ensure_ascii=False, separators=(",", ":"))
            self._dirty = False
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".sandbox-state-", dir=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(payload)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, directory / STATE_FILE)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        logger.debug("sandbox state written to %s", directory / STATE_FILE)

    @classmethod
    def load(cls, directory: Path) -> State | None:
        path = directory / STATE_FILE
        if not path.exists():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls.from_json(data)
