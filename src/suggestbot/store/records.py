"""The app's durable records and the tables that hold them.

Each record is a pydantic model stored as JSON in one table of the :class:`~suggestbot.store.Store`.
:class:`Records` is the one way into those tables: it names every table of the app (no code
outside ``store`` passes a table name) and gives each a typed :class:`Table`. Nothing here holds
a token in clear (user tokens are stored encrypted) or a signed image URL (only the opaque asset
``ref`` is kept; URLs are minted again when needed).

Small records of one feature live beside this module: :mod:`~suggestbot.store.marks` (posted
once), :mod:`~suggestbot.store.offers` (ready-made content shown to one person) and
:mod:`~suggestbot.store.conversation` (a list being paged, an instruction waiting).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Collection, Iterator, Mapping
from datetime import timedelta
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, Field

from suggestbot.store import Store
from suggestbot.store.base import Updater
from suggestbot.store.conversation import LegacyCursor, ListState, PendingInstruction
from suggestbot.store.feedback import UsageDay, Vote
from suggestbot.store.marks import (
    DigestDelivery,
    HomeSeen,
    MinuteCalls,
    PostMark,
    PostSlot,
    ShareMark,
    SlackPause,
)
from suggestbot.store.offers import Offer, Watch
from suggestbot.store.thread_bindings import ThreadBinding
from suggestbot.store.work_queue import WorkQueue
from suggestbot.store.workspaces import (
    OAuthState,
    ServiceCredentials,
    StoredBot,
    StoredInstallation,
)

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
    # Why it expired: the service rejected the token, or no configured key decrypts it.
    expired_reason: Literal["rejected", "unreadable"] | None = None
    # The account's user id in the service (``created_by``), once known; kept with the link so
    # that it goes with it.
    service_user_id: str | None = None


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


class ComposerChoices(BaseModel):
    """A brief written in the app's Messages tab: the workspace's segments and use cases as
    ``(id, name)`` pairs when it was sent, so its root can offer them to pick again in one
    click at every stage (the root is rebuilt from the request alone)."""

    segments: list[tuple[str, str]]
    use_cases: list[tuple[str, str]]


class Request(BaseModel):
    """One brief (or refinement) from a user, from the moment it is typed until its result."""

    id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    kind: Literal["brief", "refinement"] = "brief"
    team_id: str
    user_id: str
    lang: str = "en"  # the author's language: what only they see
    # The language of what others see of it (its root, status line, variants, gallery): the
    # workspace's when posted in a channel, else None (the author's). Settled with the root.
    channel_lang: str | None = None
    channel_id: str  # where the user asked
    post_channel_id: str | None = None  # where the root lives (a DM when not in the channel)
    root_ts: str | None = None
    # A refinement: the Slack thread it belongs to (its root message is a reply in there).
    thread_ts: str | None = None
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
    # Written in the Messages tab: the choices its root offers (None anywhere else).
    composer: ComposerChoices | None = None
    created_at: float = Field(default_factory=time.time)
    # Sent by a Workflow Builder step: the step's execution and its token, sealed. Slack sends
    # the step once and its token lives until the step completes, so the step is completed
    # from the request's end in whichever process reaches it (flows.workflow.completion).
    step_execution_id: str | None = None
    step_token_enc: str | None = Field(default=None, repr=False)

    @property
    def steering_text(self) -> str:
        """The text it was made with: a brief's steering text or a refinement's instruction."""
        return str(self.body.get("steering_text") or self.body.get("instruction") or "")

    @property
    def posts_lang(self) -> str:
        """The language of what others see of it (``channel_lang``, else the author's)."""
        return self.channel_lang or self.lang


# How long text that could not be sent is kept for its one-click resend (jobs/retention.py).
KEEP_HELD = timedelta(days=30)


class HeldInput(BaseModel):
    """What a user typed that could not be sent yet (not linked): kept for a one-click resend."""

    id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    team_id: str
    user_id: str
    channel_id: str
    text: str
    # Typed as a reply in this Slack thread: resent as a refinement there, not as a brief.
    thread_ts: str | None = None
    created_at: float = Field(default_factory=time.time)


class Preferences(BaseModel):
    """A user's last choices, so ``/suggest brief text`` can skip the modal."""

    segment_id: str | None = None
    use_case_id: str | None = None
    variants: int = 1


class StoredCatalog(BaseModel):
    """The workspace's segments and use cases as last loaded from the service, kept so that
    what depends on them (the quick ``/suggest brief <text>``) does not change with a restart."""

    segments: list[tuple[str, str]]
    use_cases: list[tuple[str, str]]
    loaded_at: float


# --- inspiration and digests ---------------------------------------------------------------------


def _epoch_now() -> float:
    # ``Digest`` has a field named ``time``, which hides the module inside its class body.
    return time.time()


# How a digest's ``weekdays`` name the days: 0 = Monday … 6 = Sunday, as ``date.weekday()``.
WEEKDAYS: tuple[int, ...] = tuple(range(7))


class Digest(BaseModel):
    """A channel's subscription to the newest ready-made content, posted on a wall-clock schedule.

    ``time`` is local ``HH:MM`` in the IANA zone ``tz``; ``weekdays`` are 0 (Monday) … 6.
    ``last_posted_local_date`` (ISO date in ``tz``) is the last local day already handled.
    """

    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:8])
    team_id: str
    channel_id: str
    created_by: str  # Slack user; told by DM when the digest pauses itself
    segment_id: str
    use_case_id: str
    segment_name: str
    use_case_name: str
    time: str
    tz: str
    weekdays: list[int]
    paused: bool = False
    paused_reason: str | None = None  # a Slack error when paused because the channel is gone
    quiet_when_unchanged: bool = False  # nothing new: post nothing instead of a short line
    # Its creator's language; each delivery is written in the workspace's language instead
    # (flows.digests.wave), which the channel reads.
    lang: str = "en"
    last_version: int | None = None
    last_posted_local_date: str | None = None
    last_delivery_at: float | None = None
    last_error: str | None = None
    last_error_at: float | None = None
    created_at: float = Field(default_factory=_epoch_now)
    # Firings before this instant do not count (set on create and resume).
    active_since: float = Field(default_factory=_epoch_now)


class SharedPost(BaseModel):
    """A root message posted from ready-made content (a shared variant, a digest), kept so its
    Slack thread can be bound to the service's thread when someone refines it.

    Keyed ``"{channel_id}:{ts}"``. ``suggestion_ids`` follow ``variant_nos``.
    """

    team_id: str
    channel_id: str
    ts: str
    source: Literal["inspiration", "digest"]
    posted_by: str | None = None  # Slack user who shared it; a digest's creator
    suggestion_ids: list[str]
    variant_nos: list[int]
    kinds: list[str] = Field(default_factory=list)
    suggestion_set_id: str | None = None
    segment_id: str
    use_case_id: str
    locale: str
    version: int | None = None
    digest_id: str | None = None
    created_at: float = Field(default_factory=time.time)


def shared_post_key(channel_id: str, ts: str) -> str:
    """The key of a :class:`SharedPost`: its channel and ``ts``."""
    return f"{channel_id}:{ts}"


class LocaleState(BaseModel):
    """The content locale the service was last seen to hold (table ``workspace``, one key)."""

    learned: str | None = None
    learned_at: float | None = None
    reported: str | None = None  # the learned value last reported as a mismatch


CONTENT_LOCALE_KEY = "content_locale"


class WorkspaceLanguage(BaseModel):
    """The language of what a workspace's channels see from the app (table
    ``workspace_languages``, keyed by team id): set by an admin on Home, else the installer's."""

    lang: str
    set_by: str | None = None  # None: taken from the installer's Slack locale
    set_at: float = Field(default_factory=_epoch_now)


class HealthProbe(BaseModel):
    """What ``/healthz`` writes and reads back to know that the store still takes writes."""

    at: float


class ThreadLineage(BaseModel):
    """What readers outside the thread flow need of a thread binding: the service thread it
    follows, once known. The binding itself (written by :mod:`suggestbot.flows.common.threads`) has
    more fields, which this view leaves alone."""

    service_thread_id: str | None = None


class View(Generic[T]):
    """Read-only typed access to one table (for a reader that knows only part of a record)."""

    def __init__(self, store: Store, name: str, model: type[T]) -> None:
        self._store = store
        self._name = name
        self._model = model

    def get(self, key: str) -> T | None:
        """The record under ``key``, or None.

        Raises:
            StoreError: the backend could not be read.
        """
        raw = self._store.get(self._name, key)
        return None if raw is None else self._model.model_validate(raw)

    def get_many(self, keys: Collection[str]) -> dict[str, T]:
        """The records of ``keys`` that exist, read together (one round trip on PostgreSQL)."""
        raws = self._store.get_many(self._name, keys)
        return {key: self._model.model_validate(raw) for key, raw in raws.items()}

    def items(self) -> Iterator[tuple[str, T]]:
        """``(key, record)`` pairs in key order (a snapshot taken when iteration starts)."""
        for key, raw in self._store.items(self._name):
            yield key, self._model.model_validate(raw)

    def values(self) -> Iterator[T]:
        """Every record, in key order."""
        for _, record in self.items():
            yield record

    def where(self, field: str, values: Collection[str]) -> Iterator[T]:
        """The records whose ``field`` is one of ``values`` (read by index where there is one)."""
        for _, raw in self._store.items_where(self._name, field, values):
            yield self._model.model_validate(raw)

    def matching(
        self,
        *,
        at_most: Mapping[str, float] | None = None,
        newest_by: str | None = None,
        limit: int | None = None,
        **fields: str | bool | Collection[str],
    ) -> list[T]:
        """The records whose every named field has the value given (or one of the values)
        and whose numeric fields in ``at_most`` are at most their bounds, e.g.
        ``matching(team_id=t, user_id=u, state=FINISHED, newest_by="created_at", limit=5)``.

        Read by index where there is one (PostgreSQL), never by reading the whole table there;
        key order, or ``newest_by`` (a numeric field) largest first, at most ``limit``.
        """
        found = self.items_matching(at_most=at_most, newest_by=newest_by, limit=limit, **fields)
        return [record for _, record in found]

    def items_matching(
        self,
        *,
        at_most: Mapping[str, float] | None = None,
        newest_by: str | None = None,
        limit: int | None = None,
        **fields: str | bool | Collection[str],
    ) -> list[tuple[str, T]]:
        """:meth:`matching` with each record's key."""
        known = self._model.model_fields
        named = [*fields, *(at_most or {}), *([newest_by] if newest_by else [])]
        for name in named:
            if name not in known:
                raise ValueError(f"{self._model.__name__} has no field {name!r}")
        where = {
            name: (value,) if isinstance(value, str | bool) else tuple(value)
            for name, value in fields.items()
        }
        pairs = self._store.items_matching(
            self._name, where=where, at_most=at_most, newest_by=newest_by, limit=limit
        )
        return [(key, self._model.model_validate(raw)) for key, raw in pairs]

    def matching_any(self, *wheres: Mapping[str, str | bool | Collection[str]]) -> list[T]:
        """The records matching at least one of ``wheres`` (each as the fields of
        :meth:`matching`), in key order: several indexed lookups in one read."""
        known = self._model.model_fields
        for where in wheres:
            for name in where:
                if name not in known:
                    raise ValueError(f"{self._model.__name__} has no field {name!r}")
        asked = [
            {
                name: (value,) if isinstance(value, str | bool) else tuple(value)
                for name, value in where.items()
            }
            for where in wheres
        ]
        pairs = self._store.items_matching_any(self._name, asked)
        return [self._model.model_validate(raw) for _, raw in pairs]


class Table(View[T]):
    """Typed access to one table of the store.

    ``sparse`` tables write only the fields that were set (not the defaults), so records keep
    the compact shape they had when they were written as plain dicts.
    """

    def __init__(self, store: Store, name: str, model: type[T], *, sparse: bool = False) -> None:
        super().__init__(store, name, model)
        self._sparse = sparse

    def _dump(self, record: T) -> dict[str, Any]:
        return record.model_dump(mode="json", exclude_unset=self._sparse)

    def put(self, key: str, record: T) -> None:
        """Write ``record`` under ``key``, replacing any.

        Raises:
            StoreError: the backend could not be written.
        """
        self._store.put(self._name, key, self._dump(record))

    def put_if_absent(self, key: str, record: T) -> bool:
        """Write ``record`` unless ``key`` is taken; returns whether it was written.

        Raises:
            StoreError: the backend could not be written.
        """
        return self._store.put_if_absent(self._name, key, self._dump(record))

    def put_if_absent_held(
        self, key: str, record: T, *, queue: str, owner: str, now: float, lease_s: float
    ) -> bool:
        """:meth:`put_if_absent`, and only when it stored, ``queue``'s unit ``key`` held by
        ``owner`` for ``lease_s``: one write (``Store.put_if_absent_held``)."""
        return self._store.put_if_absent_held(
            self._name, key, self._dump(record), queue=queue, owner=owner, now=now, lease_s=lease_s
        )

    def delete(self, key: str) -> bool:
        """Delete the record under ``key``; returns whether there was one.

        Raises:
            StoreError: the backend could not be written.
        """
        return self._store.delete(self._name, key)

    def put_many(self, records: Mapping[str, T]) -> None:
        """Write many records in one commit."""
        self._store.put_many(self._name, {k: self._dump(r) for k, r in records.items()})

    def put_many_if_absent(self, records: Mapping[str, T]) -> list[str]:
        """Write the records whose keys are free, in one commit; returns those keys."""
        return self._store.put_many_if_absent(
            self._name, {k: self._dump(r) for k, r in records.items()}
        )

    def update(self, key: str, change: Callable[[T], T | None]) -> T | None:
        """Atomically read, change and write one record (``None`` from ``change`` deletes it)."""
        return self.update_many({key: change})[key]

    def upsert(self, key: str, change: Callable[[T | None], T | None]) -> T | None:
        """:meth:`update` that also sees an absent record (as None) and may create it."""
        result: list[T | None] = [None]

        def apply(raw: dict[str, Any] | None) -> dict[str, Any] | None:
            changed = change(None if raw is None else self._model.model_validate(raw))
            result[0] = changed
            return None if changed is None else self._dump(changed)

        self._store.update(self._name, key, apply)
        return result[0]

    def update_many(self, changes: Mapping[str, Callable[[T], T | None]]) -> dict[str, T | None]:
        """:meth:`update` for many records in one commit (absent keys are left absent)."""
        results: dict[str, T | None] = dict.fromkeys(changes)

        def applying(key: str, change: Callable[[T], T | None]) -> Updater:
            def apply(raw: dict[str, Any] | None) -> dict[str, Any] | None:
                if raw is None:
                    return None
                changed = change(self._model.model_validate(raw))
                results[key] = changed
                return None if changed is None else self._dump(changed)

            return apply

        self._store.update_many(
            self._name, {key: applying(key, change) for key, change in changes.items()}
        )
        return results


# The tables that hold ciphertext (key rotation re-encrypts them; a census counts their keys).
USERS = "users"
SLACK_BOTS = "slack_bots"
SLACK_INSTALLATIONS = "slack_installations"
SERVICE_CREDENTIALS = "service_credentials"
SECRET_TABLES = (USERS, SLACK_BOTS, SLACK_INSTALLATIONS, SERVICE_CREDENTIALS)


def user_key(team_id: str, user_id: str) -> str:
    """The key of a person's records: workspace and user id."""
    return f"{team_id}:{user_id}"


class Records:
    """All tables of the app, by name: the only place a table of the app is named."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.users: Table[LinkedUser] = Table(store, USERS, LinkedUser)
        self.requests: Table[Request] = Table(store, "requests", Request)
        self.held: Table[HeldInput] = Table(store, "held_inputs", HeldInput)
        self.preferences: Table[Preferences] = Table(store, "preferences", Preferences)
        self.digests: Table[Digest] = Table(store, "digests", Digest)
        self.shared_posts: Table[SharedPost] = Table(store, "shared_posts", SharedPost)
        self.catalogs: Table[StoredCatalog] = Table(store, "catalogs", StoredCatalog)
        # Posted once: "{request id}:{variant no}" and "{request id}:turn:{n}".
        self.posts: Table[PostMark] = Table(store, "posts", PostMark, sparse=True)
        # Delivery claims and marks of digests, "{digest id}:{local date}".
        self.digest_deliveries: Table[DigestDelivery] = Table(
            store, "digest_deliveries", DigestDelivery, sparse=True
        )
        self.offers: Table[Offer] = Table(store, "inspiration_offers", Offer)
        self.shares: Table[ShareMark] = Table(store, "inspiration_shares", ShareMark, sparse=True)
        self.watches: Table[Watch] = Table(store, "inspiration_watches", Watch)
        self.lists: Table[ListState] = Table(store, "list_pages", ListState)
        self.legacy_cursors: View[LegacyCursor] = View(store, "list_cursors", LegacyCursor)
        self.pending: Table[PendingInstruction] = Table(
            store, "pending_instructions", PendingInstruction
        )
        # One record per workspace fact; today only the content locale (CONTENT_LOCALE_KEY).
        self.workspace: Table[LocaleState] = Table(store, "workspace", LocaleState)
        # The language channels see, per workspace (team id, "-" for a single-workspace app).
        self.workspace_languages: Table[WorkspaceLanguage] = Table(
            store, "workspace_languages", WorkspaceLanguage
        )
        # Written by flows.common.threads (which owns the full ThreadBinding record).
        self.thread_bindings: Table[ThreadBinding] = Table(store, "thread_bindings", ThreadBinding)
        # The same table read as the lineage only, for lists that need no more of it.
        self.thread_lineages: View[ThreadLineage] = View(store, "thread_bindings", ThreadLineage)
        self.health: Table[HealthProbe] = Table(store, "health", HealthProbe)
        # Feedback on variants, "{team}:{request id}:{variant no}:{user}" (store/feedback.py),
        # and each workspace's usage per UTC day, "{team}:{ISO date}".
        self.votes: Table[Vote] = Table(store, "feedback_votes", Vote)
        self.usage: Table[UsageDay] = Table(store, "usage_days", UsageDay)
        # Per Slack workspace (suggestbot.installations): tokens and secrets as ciphertext.
        self.slack_bots: Table[StoredBot] = Table(store, SLACK_BOTS, StoredBot)
        self.slack_installations: Table[StoredInstallation] = Table(
            store, SLACK_INSTALLATIONS, StoredInstallation
        )
        self.service_credentials: Table[ServiceCredentials] = Table(
            store, SERVICE_CREDENTIALS, ServiceCredentials
        )
        self.oauth_states: Table[OAuthState] = Table(store, "oauth_states", OAuthState)
        # Units of deferred work, leased to one process at a time: the next poll of each
        # watched run, keyed by request id.
        self.run_polls = WorkQueue(store, "run_polls")
        # A brief waiting to be sent (or sent again after Retry-After), keyed by request id.
        self.run_sends = WorkQueue(store, "run_sends")
        # Periodic passes that one replica at a time runs (forgetting old state), keyed by name.
        self.maintenance = WorkQueue(store, "maintenance")
        # The renewal of every status line, one unit due each minute: one replica renews them.
        self.status_renewal = WorkQueue(store, "status_renewal")
        # The workspaces of a digest wave, keyed "{wave}|{team_id}": which replica posts them.
        self.digest_workspaces = WorkQueue(store, "digest_workspaces")
        # One unit per live process that claims work, keyed by its owner id and leased to it:
        # how many share the work (a fair share each), and a dead one's unit is swept away.
        self.replicas = WorkQueue(store, "replicas")
        # Slack's 429s, "{workspace}|{method}": every replica waits them out (suggestbot.slack).
        self.slack_pauses: Table[SlackPause] = Table(store, "slack_pauses", SlackPause)
        # Each channel's next post slot, "{workspace}|{channel}": the replicas share Slack's
        # one post a second per channel (suggestbot.slack.shared_posts).
        self.slack_post_slots: Table[PostSlot] = Table(store, "slack_post_slots", PostSlot)
        # Each method's calls of the last minute, "{workspace}|{method}": the replicas draw
        # from one budget per workspace (suggestbot.slack.shared_minutes).
        self.slack_minutes: Table[MinuteCalls] = Table(store, "slack_minutes", MinuteCalls)
        # When each person last opened the Home, "{team}:{user}" (flows.home.tab).
        self.home_seen: Table[HomeSeen] = Table(store, "home_seen", HomeSeen)
