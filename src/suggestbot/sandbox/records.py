"""What the sandbox stores: plain records, one per resource, serialisable to JSON.

Secrets appear only as digests (``*_hash``). Wire shapes are built from these in ``views.py``;
the records also keep what the service knows but does not show (owners, thread links).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False)


class TenantRec(_Record):
    id: str
    name: str
    locale: str
    steering_enabled: bool = True
    created_at: datetime


class SegmentRec(_Record):
    id: str
    tenant_id: str
    name: str
    description: str
    set_up: bool = True


class UseCaseRec(_Record):
    id: str
    tenant_id: str
    name: str
    # Ready-made sets hold a per-use-case count of variants, which may exceed the brief maximum.
    precompute_variants: int = 3


class CredentialRec(_Record):
    client_id: str
    tenant_id: str
    secret_hash: str
    expires_at: datetime | None = None
    revoked: bool = False


class AccessTokenRec(_Record):
    token_hash: str
    client_id: str
    tenant_id: str
    expires_at: datetime


class UserTokenRec(_Record):
    token_hash: str
    tenant_id: str
    user_id: str
    revoked: bool = False


class ImageRec(_Record):
    # ``id`` is the handle in image URLs (hex, derived from ``ref``); ``ref`` is what clients see.
    id: str
    tenant_id: str
    alt_text: str
    ref: str | None = None


class SuggestionRec(_Record):
    id: str
    tenant_id: str
    suggestion_set_id: str | None
    kind: str
    variant_no: int
    parent_suggestion_id: str | None
    rationale: str | None
    # Stored payload; an image asset keeps only ``ref`` and ``alt_text`` (URLs are minted on read).
    payload: dict[str, Any]
    created_at: datetime
    # The instruction that produced it from its parent; None for a root.
    instruction: str | None = None
    # Creator of the root (None for ready-made content): decides who may read it.
    owner: str | None
    segment_id: str
    use_case_id: str
    locale: str
    root_origin: str
    thread_id: str | None = None


class SetRec(_Record):
    id: str
    tenant_id: str
    segment_id: str
    use_case_id: str
    locale: str
    version: int | None
    created_at: datetime
    origin: str
    generation_run_id: str | None
    steering_text: str | None
    created_by: str | None
    suggestion_ids: list[str]


class TurnRec(_Record):
    version: int
    suggestion_id: str
    generated_at: datetime
    instruction: str | None


class ThreadRec(_Record):
    id: str
    tenant_id: str
    name: str | None = None
    segment_id: str
    use_case_id: str
    locale: str
    root_origin: str
    created_at: datetime
    updated_at: datetime
    created_by: str | None
    turns: list[TurnRec] = Field(default_factory=list)


class RunRec(_Record):
    id: str
    tenant_id: str
    type: str
    status: str = "queued"
    created_at: datetime
    created_by: str
    attempt_count: int = 0
    request: dict[str, Any]
    suggestion_set_id: str | None = None
    suggestion_id: str | None = None
    error_code: str | None = None
    # Scheduling, not shown on the wire: when the next transition is due, and when the
    # current attempt started (for the attempt time limit).
    due_at: datetime | None = None
    attempt_started_at: datetime | None = None
    stall_pending: bool = False


class PrecomputeJobRec(_Record):
    tenant_id: str
    segment_id: str
    use_case_id: str
    due_at: datetime
