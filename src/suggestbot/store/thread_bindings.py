"""The Slack threads the app started, and the service lineage each follows.

A thread is found again by its channel and root ``ts`` (:func:`binding_key`), whichever
process posted it; the record says which suggestions it offers and which one a reply refines.
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, Field


class BoundSuggestion(BaseModel):
    """One suggestion a Slack thread offers (a variant), with the message that shows it."""

    suggestion_id: str
    variant_no: int = 1
    kind: str
    has_image: bool = False
    ts: str | None = None


class ThreadBinding(BaseModel):
    """A Slack thread the app started, and the lineage it follows."""

    team_id: str
    channel: str
    thread_ts: str
    origin: str  # "brief", "draft", "inspiration", ...
    owner_user_id: str | None = None  # the Slack user who started it
    lang: str = "en"
    request_id: str | None = None  # the brief whose root this is
    segment_id: str | None = None
    use_case_id: str | None = None
    labels: dict[str, str] = Field(default_factory=dict)
    suggestions: list[BoundSuggestion]
    chosen_variant: int | None = None
    head_suggestion_id: str | None = None
    head_kind: str | None = None
    head_has_image: bool = False
    turn_count: int = 1
    last_turn_by: str | None = None
    service_thread_id: str | None = None
    thread_name: str | None = None
    # The root as posted (text and blocks, image blocks left out: their URLs are credentials),
    # so it can be shown again with the thread's state under it.
    root: dict[str, Any] | None = None
    created_at: float = Field(default_factory=time.time)

    @property
    def key(self) -> str:
        """The binding's key: its channel and thread ``ts``."""
        return binding_key(self.channel, self.thread_ts)

    def variant(self, number: int) -> BoundSuggestion | None:
        """The bound suggestion shown as variant ``number``, if any."""
        return next((s for s in self.suggestions if s.variant_no == number), None)

    def suggestion(self, suggestion_id: str) -> BoundSuggestion | None:
        """The bound suggestion with id ``suggestion_id``, if any."""
        return next((s for s in self.suggestions if s.suggestion_id == suggestion_id), None)


def binding_key(channel: str, thread_ts: str) -> str:
    """The key of a Slack thread's binding (also a Rename button's value)."""
    return f"{channel}:{thread_ts}"
