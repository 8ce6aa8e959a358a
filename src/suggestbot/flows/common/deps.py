"""What the flows need, gathered in one object the entry point builds once: ports only.

Every field is a port the composition root fills: the store's tables and the token vault, the
service and Slack clients, the timers, the clock, settings, and two read-throughs that keep
what they read (:mod:`.catalog`, :mod:`.languages`). Three are hooks with no-op defaults, kept
as ports on purpose rather than hidden: ``crash_point`` (named points where the reliability
tests, and ``SUGGESTBOT_FREEZE_AT``, stop the process), ``auto_link`` (the embedded sandbox
mints a token) and ``home_extras`` (the multi-workspace edge adds admin blocks to Home). Each
is set by the composition root (or a test), never by a flow.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Collection, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Protocol

from slack_sdk import WebClient

from suggestbot.contentapi import ContentClient
from suggestbot.flows.common.catalog import Catalog, CatalogCache
from suggestbot.flows.common.languages import LanguageCache
from suggestbot.slack import Outbound
from suggestbot.store import DeliveryLog, TokenVault
from suggestbot.store.records import Records, Request, Table


class Timers(Protocol):
    """Deferred work the flows ask for; ``suggestbot.jobs`` provides it."""

    def watch_run(self, request_id: str, *, delay_s: float) -> None:
        """Poll the request's run in ``delay_s`` seconds (replaces a pending send)."""

    def watch_runs(
        self, delays: Mapping[str, float], *, groups: Mapping[str, str] | None = None
    ) -> None:
        """:meth:`watch_run` of many requests at once (``{request_id: delay_s}``), the polls of
        one page of the run listing, written together; ``groups``: what each is filed under
        from now on (the page it was met on), when known."""

    def resume_watch(self, request_id: str) -> None:
        """At start: watch at once, unless its poll is already scheduled (by another replica)."""

    def send_later(self, request_id: str, *, at: float) -> None:
        """Send the request at ``at`` (epoch seconds; replaces a pending poll)."""

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

    def cancel(self, request_id: str) -> None:
        """Forget the request's pending poll and send, wherever they are scheduled."""


def _no_crash(point: str) -> None:
    """Named points where a test may simulate the process dying (see tests of recovery)."""


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
    # Multiplies every poll delay; tests and the demo shrink it along with the sandbox's clock.
    poll_scale: float = 1.0
    # How long a claim on shared work lasts without renewal (None: one poll interval).
    lease_s: float | None = None
    background: Executor | None = None
    # Which run listing a workspace's runs are read from: None for the app's own service client
    # (every workspace without credentials of its own: one tenant, one listing), else the
    # workspace's id. The run watcher sweeps a listing, not a workspace.
    listing_of: Callable[[str | None], str | None] = lambda team_id: None
    deliveries: DeliveryLog | None = None
    # Embedded sandbox only: mints a personal token for a Slack user (team_id, user_id).
    auto_link: Callable[[str, str], str] | None = None
    # Extra App Home blocks for (team_id, user_id, lang): workspace settings for the admins of
    # a multi-workspace install.
    home_extras: Callable[[str, str, str], list[dict[str, Any]]] | None = None
    # The outbound gate's helpers (coalesced roots and Homes, cached permalinks); None where a
    # test builds its own Deps: everything is then sent at once.
    outbound: Outbound | None = None
    catalogs: CatalogCache = field(default_factory=CatalogCache, repr=False)
    languages: LanguageCache = field(default_factory=LanguageCache, repr=False)

    # The callers' names for the two read-throughs above (the state lives there).

    def shared_now(self) -> float:
        """What time it is for what replicas share (which minute's digests are due and for
        which local date, how long ago a brief was sent): the database's clock when replicas
        share the store, so a replica whose clock is off neither posts early, nor repeats
        another's minute, nor misjudges a run's age; else :attr:`clock`. Times handed to the
        timers stay on :attr:`clock` (the store moves them itself)."""
        store = self.records.store
        return store.shared_now() if store.shares_leases else self.clock()

    def catalog(self, *, refresh: bool = False) -> Catalog:
        """Segments and use cases as ``(id, name)`` pairs, from the cache when fresh.

        Raises:
            ContentApiError: the service could not be read.
        """
        return self.catalogs.load(
            content=self.content, table=self.records.catalogs, clock=self.clock, refresh=refresh
        )

    def forget_catalog(self, team_id: str | None) -> None:
        """Drop a workspace's cached catalogue (its service changed)."""
        self.catalogs.forget(team_id, table=self.records.catalogs)

    def cached_catalog(self) -> Catalog | None:
        """The catalogue if read within its TTL, else None (no I/O)."""
        return self.catalogs.fresh(now=self.clock())

    def known_catalog(self) -> Catalog | None:
        """The catalogue as last read, however old (no call to the service: safe before an
        ack); see :meth:`CatalogCache.known`."""
        return self.catalogs.known(table=self.records.catalogs)

    def known_lang(self, user_id: str) -> str | None:
        """The user's language if already looked up (no call to Slack: safe before an ack)."""
        return self.languages.known(user_id, now=self.clock())

    def lang_of(self, user_id: str) -> str:
        """The user's language from their Slack locale (``users.info``), cached for an hour."""
        return self.languages.of(user_id, slack=self.slack, clock=self.clock)
