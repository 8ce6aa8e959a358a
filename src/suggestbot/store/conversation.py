"""State of a conversation in progress with one user: a list being paged, an instruction
waiting for its variant to be chosen. Kept in the store because a button's value is too small
for it and a restart must not lose it."""

from __future__ import annotations

import time
import uuid
from typing import Any

from pydantic import BaseModel, Field


class ListState(BaseModel):
    """One list message's paging state.

    ``page`` names the page the message shows; a More press carries it, so a second press of
    the same button (or a stale copy) cannot skip a page. ``last`` is what the message shows,
    so an empty final page can end the list without hiding it.
    """

    kind: str
    team_id: str
    user_id: str
    cursor: str | None = None
    creator: str | None = None
    pending: list[dict[str, Any]] = Field(default_factory=list)  # ThreadItems (``Cursor``)
    page: int = 1
    ended: bool = False
    claim: str | None = None
    shown_ids: list[str] = Field(default_factory=list)
    shown_count: int = 0
    last: list[dict[str, Any]] = Field(default_factory=list)
    created_at: float = Field(default_factory=time.time)


class LegacyCursor(BaseModel):
    """A More button's cursor, kept under a short reference by versions that did not keep list
    state yet (only read: such buttons may still be pressed)."""

    cursor: str


class PendingInstruction(BaseModel):
    """An instruction typed in a thread whose variant is still to be chosen (or confirmed)."""

    id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    team_id: str
    user_id: str
    channel: str
    thread_ts: str
    text: str
    regenerate_image: bool = False
    created_at: float = Field(default_factory=time.time)
