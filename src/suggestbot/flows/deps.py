"""What the flows need, gathered in one object the entry point builds once."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Collection, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Protocol

from slack_sdk import WebClient

from suggestbot.contentapi import ContentClient
from suggestbot.installations.scope import current_team
from suggestbot.store import DeliveryLog, TokenVault
from suggestbot.store.records import Records, Request, StoredCatalog, Table
from suggestbot.ui.messages import language_of

log = logging.getLogger(__name__)


class Timers(Protocol):
    """Deferred work the flows ask for; ``suggestbot.jobs`` provides it."""

    def watch_run(self, request_id: str, *, delay_s: float) -> None: ...

    def watch_runs(self, delays: Mapping[str, float]) -> None:
        """:meth:`watch_run` of many requests at once (``{request_id: delay_s}``), the polls of
        one page of the run listing, written together."""

    def resume_watch(self, request_id: str) -> None:
        """At start: watch at once, unless its poll is already scheduled (by another replica)."""

    def send_later(self, request_id: str, *, at: float) -> None: ...

    def resume_send(self, request_id: str, *, at: float) -> None:
        """At start: send at ``at``, unless a send is already scheduled (by another replica)."""

    def resume_many(self, *, watches: Collection[str], sends: Mapping[str, float]) -> None:
        """At start, for every unfinished request at once: :meth:`resume_watch` of each of
        ``watches`` and :meth:`resume_send` of each of ``sends`` (``{request_id: at}``)."""

    def hold_send(self, request_id: str) -> None:
        """This process sends the request now (recorded, not yet handed to the service): if
        it dies before :meth:`end_send`, another replica sends it once the hold runs out."""

    def record_held_send(self, requests: Table[Request], req: Request) -> bool:
        """Write the new request ``req`` into ``requests`` (unless its id is taken: False) and
        :meth:`hold_send` it, as one write: before an ack, the brief's record and its held send
        cost one commit (on PostgreSQL one statement), not one each."""

    def end_send(self, request_id: str) -> None:
        """The send begun with :meth:`hold_send` is over (its next step, if any, scheduled)."""

    def cancel(self, request_id: str) -> None: ...


def _no_crash(point: str) -> None:
    """Named points where a test may simulate the process dying (see tests of recovery)."""


@dataclass
class Catalog:
    """Segments and use cases of the tenant, cached briefly (they rarely change)."""

    segments: list[tuple[str, str]]
    use_cases: list[tuple[str, str]]
    loaded_at: float


def _catalog_key(team_id: str | None) -> str:
    return team_id or "-"  # "-": the one workspace of a single-workspace install


@dataclass
class Deps:
    records: Records
    vault: TokenVault
    content: ContentClient
    slack: WebClient
    timers: Timers
    embedded: bool = False
    # The workspace's content locale (``Settings.content_locale``); ready-made content is read
    # in exactly this locale.
    content_locale: str = "en"
    clock: Callable[[], float] = time.time
    crash_point: Callable[[str], None] = _no_crash
    # Who this process is when it claims work in the store (digest deliveries): unique per
    # process and per start, so a claim is never mistaken for another replica's.
    owner: str = field(default_factory=lambda: uuid.uuid4().hex)
    catalog_ttl_s: float = 300.0
    # Multiplies every poll delay; tests and the demo shrink it along with the sandbox's clock.
    poll_scale: float = 1.0
    background: Executor | None = None
    deliveries: DeliveryLog | None = None
    # Embedded sandbox only: mints a personal token for a Slack user (team_id, user_id).
    auto_link: Callable[[str, str], str] | None = None
    # Extra App Home blocks for (team_id, user_id, lang): workspace settings for the admins of
    # a multi-workspace install.
    home_extras: Callable[[str, str, str], list[dict[str, Any]]] | None = None
    # Per workspace (see suggestbot.installations.scope): each may be a different tenant.
    _catalogs: dict[str | None, Catalog] = field(default_factory=dict, repr=False)
    _catalog_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _langs: dict[str, tuple[str, float]] = field(default_factory=dict, repr=False)

    def shared_now(self) -> float:
        """What time it is for what replicas share (which minute's digests are due and for
        which local date, how long ago a brief was sent): the database's clock when replicas
        share the store, so a replica whose clock is off neither posts early, nor repeats
        another's minute, nor misjudges a run's age; else :attr:`clock`. Times handed to the
        timers stay on :attr:`clock` (the store moves them itself)."""
        store = self.records.store
        return store.shared_now() if store.shares_leases else self.clock()

    def catalog(self, *, refresh: bool = False) -> Catalog:
        """Segments and use cases as ``(id, name)`` pairs, from the cache when fresh."""
        team = current_team()
        with self._catalog_lock:
            now = self.clock()
            cached = self._catalogs.get(team)
            if cached and not refresh and now - cached.loaded_at < self.catalog_ttl_s:
                return cached
        segments = [(s.id, s.name) for s in self.content.list_segments()]
        use_cases = [(u.id, u.name) for u in self.content.list_use_cases()]
        fresh = Catalog(segments=segments, use_cases=use_cases, loaded_at=self.clock())
        with self._catalog_lock:
            self._catalogs[team] = fresh
        kept = self.records.catalogs.get(_catalog_key(team))
        if kept is None or (kept.segments, kept.use_cases) != (segments, use_cases):
            self.records.catalogs.put(
                _catalog_key(team),
                StoredCatalog(segments=segments, use_cases=use_cases, loaded_at=fresh.loaded_at),
            )
        return fresh

    def forget_catalog(self, team_id: str | None) -> None:
        """Drop a workspace's cached catalogue (its service changed)."""
        with self._catalog_lock:
            self._catalogs.pop(team_id, None)
        self.records.catalogs.delete(_catalog_key(team_id))

    def cached_catalog(self) -> Catalog | None:
        with self._catalog_lock:
            cached = self._catalogs.get(current_team())
        if cached and self.clock() - cached.loaded_at < self.catalog_ttl_s:
            return cached
        return None

    def known_catalog(self) -> Catalog | None:
        """The catalogue as last loaded, however old, from memory or else from the store: no
        call to the service (safe before an ack), and the same answer after a restart. For
        decisions that the service checks again anyway (a run naming a removed segment is
        refused with a clear failure)."""
        with self._catalog_lock:
            cached = self._catalogs.get(current_team())
        if cached is not None:
            return cached
        stored = self.records.catalogs.get(_catalog_key(current_team()))
        if stored is None:
            return None
        return Catalog(
            segments=list(stored.segments),
            use_cases=list(stored.use_cases),
            loaded_at=stored.loaded_at,
        )

    def known_lang(self, user_id: str) -> str | None:
        """The user's language if already looked up (no call to Slack: safe before an ack)."""
        cached = self._langs.get(user_id)
        if cached and self.clock() - cached[1] < 3600:
            return cached[0]
        return None

    def lang_of(self, user_id: str) -> str:
        """The user's language from their Slack locale (``users.info``), cached for an hour."""
        known = self.known_lang(user_id)
        if known is not None:
            return known
        lang = "en"
        try:
            info: Any = self.slack.users_info(user=user_id, include_locale=True)
            lang = language_of(info["user"].get("locale"))
        except Exception:  # a failed look-up only costs the user their language
            log.warning("users.info failed for %s; using English", user_id)
        self._langs[user_id] = (lang, self.clock())
        return lang
