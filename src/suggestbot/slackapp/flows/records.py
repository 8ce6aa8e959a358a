"""The app's durable records and the tables that hold them.

Each record is a pydantic model stored as JSON in one table of the :class:`~suggestbot.store.Store`.
Nothing here holds a token in clear (user tokens are stored encrypted) or a signed image URL
(only the opaque asset ``ref`` is kept; URLs are minted again when needed).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, Field

from suggestbot.store import Store

T = TypeVar("T", bound=BaseModel)

RequestState = Literal[
    "new",  # recorded, root not posted or run not created yet
    "sending",  # run creation under way (on recovery: look for the run before sending again)
    "delayed",  # rate limited: sent automatically at ``send_after``
    "waiting_user",  # the user must act (reconnect) before it can be sent
    "submitted",  # the run exists and is watched
    "posting",  # the run succeeded; results being posted (exactly once)
    "done",
    "failed",
]
ACTIVE_STATES: frozenset[str] = frozenset({"new", "sending", "delayed", "submitted", "posting"})


class LinkedUser(BaseModel):
    """A Slack user's link to their own account of the service."""

    team_id: str
    user_id: str
    token_enc: str = Field(repr=False)
    state: Literal["linked", "expired"] = "linked"
    linked_at: float
    expired_at: float | None = None


class PostedVariant(BaseModel):
    """What is needed to show a variant again (no signed URL: the ref is re-minted)."""

    suggestion_id: str
    variant_no: int
    kind: str
    ts: str | None = None
    asset_ref: str | None = None


class Failure(BaseModel):
    code: str
    detail: str | None = None


class Request(BaseModel):
    """One brief (or refinement) from a user, from the moment it is typed until its result."""

    id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    kind: Literal["brief", "refinement"] = "brief"
    team_id: str
    user_id: str
    lang: str = "en"
    channel_id: str  # where the user asked
    post_channel_id: str | None = None  # where the root lives (a DM when not in the channel)
    root_ts: str | None = None
    response_url: str | None = Field(default=None, repr=False)
    body: dict[str, Any]  # the GenerationRunRequest as sent on the wire
    labels: dict[str, str] = Field(default_factory=dict)  # segment / use case names for display
    state: RequestState = "new"
    run_id: str | None = None
    run_status: str | None = None
    attempt: int = 0
    sent_at: float | None = None
    send_after: float | None = None
    failure: Failure | None = None
    variants: list[PostedVariant] = Field(default_factory=list)
    skipped: int = 0
    created_at: float = Field(default_factory=time.time)

    @property
    def steering_text(self) -> str:
        return str(self.body.get("steering_text") or self.body.get("instruction") or "")


class HeldInput(BaseModel):
    """What a user typed that could not be sent yet (not linked): kept for a one-click resend."""

    id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    team_id: str
    user_id: str
    channel_id: str
    text: str
    created_at: float = Field(default_factory=time.time)


class Preferences(BaseModel):
    """A user's last choices, so ``/suggest brief text`` can skip the modal."""

    segment_id: str | None = None
    use_case_id: str | None = None
    variants: int = 1


class Table(Generic[T]):
    """Typed access to one table of the store."""

    def __init__(self, store: Store, name: str, model: type[T]) -> None:
        self._store = store
        self._name = name
        self._model = model

    def get(self, key: str) -> T | None:
        raw = self._store.get(self._name, key)
        return None if raw is None else self._model.model_validate(raw)

    def put(self, key: str, record: T) -> None:
        self._store.put(self._name, key, record.model_dump(mode="json"))

    def put_if_absent(self, key: str, record: T) -> bool:
        return self._store.put_if_absent(self._name, key, record.model_dump(mode="json"))

    def delete(self, key: str) -> bool:
        return self._store.delete(self._name, key)

    def update(self, key: str, change: Callable[[T], T | None]) -> T | None:
        """Atomically read, change and write one record (``None`` from ``change`` deletes it)."""
        result: list[T | None] = [None]

        def apply(raw: dict[str, Any] | None) -> dict[str, Any] | None:
            if raw is None:
                return None
            changed = change(self._model.model_validate(raw))
            result[0] = changed
            return None if changed is None else changed.model_dump(mode="json")

        self._store.update(self._name, key, apply)
        return result[0]

    def values(self) -> Iterator[T]:
        for _, raw in self._store.items(self._name):
            yield self._model.model_validate(raw)


def user_key(team_id: str, user_id: str) -> str:
    return f"{team_id}:{user_id}"


class Records:
    """All tables of the app, by name."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.users: Table[LinkedUser] = Table(store, "users", LinkedUser)
        self.requests: Table[Request] = Table(store, "requests", Request)
        self.held: Table[HeldInput] = Table(store, "held_inputs", HeldInput)
        self.preferences: Table[Preferences] = Table(store, "preferences", Preferences)
