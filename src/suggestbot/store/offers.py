"""Ready-made content shown to one person: what an answer offered, and the watches that post a
newly generated set when it appears.

No image URL is kept (they are credentials): only ids and the opaque asset references, minted
again when the content is shown.
"""

from __future__ import annotations

import time
import uuid

from pydantic import BaseModel, Field


class OfferedVariant(BaseModel):
    suggestion_id: str
    variant_no: int
    kind: str
    asset_ref: str | None = None


class Offer(BaseModel):
    """What one ephemeral answer showed (no URLs), so its buttons act on exactly that."""

    id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    team_id: str
    user_id: str
    channel_id: str
    segment_id: str
    use_case_id: str
    segment_name: str
    use_case_name: str
    locale: str
    version: int | None = None
    suggestion_set_id: str
    variants: list[OfferedVariant]
    created_at: float = Field(default_factory=time.time)


class Watch(BaseModel):
    """After "Generate now": poll until the set appears or a newer version does, then post."""

    id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    team_id: str
    user_id: str
    channel_id: str
    segment_id: str
    use_case_id: str
    segment_name: str
    use_case_name: str
    locale: str
    known_version: int | None = None
    started_at: float
    next_poll_at: float


def share_key(offer_id: str, variant_no: int) -> str:
    """The key of an offered variant's share mark (its offer's id comes first)."""
    return f"{offer_id}:{variant_no}"


def offer_of_share(key: str) -> str:
    """The offer id a share mark's key starts with."""
    return key.partition(":")[0]
