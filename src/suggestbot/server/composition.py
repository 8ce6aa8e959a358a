"""Everything one running app needs, built from :class:`~suggestbot.config.Settings` once.

``serve`` and ``demo`` build a :class:`Runtime` and start it; the tests build one against the
sandbox and the Slack emulator. ``start`` rebuilds the timers from the store (nothing is lost
across restarts); ``stop`` lets work in flight finish and closes what was opened.
"""

from __future__ import annotations

import functools
import logging
import ssl
import threading
from collections.abc import Callable
from typing import Any

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.http_retry import RetryHandler
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    ServerErrorRetryHandler,
)

from suggestbot import metrics
from suggestbot.config import Settings
from suggestbot.contentapi import ClientCredentialsAuth, ContentClient
from suggestbot.flows.common.deps import Deps
from suggestbot.jobs import digest_wave, inspiration_watch, maintenance, status_renewal
from suggestbot.jobs.interaction_claims import InteractionClaims
from suggestbot.jobs.lease_engine import SchedulerTimers
from suggestbot.jobs.leases import lease_period
from suggestbot.jobs.recovery import resume_all
from suggestbot.jobs.scheduler import Scheduler
from suggestbot.logs import register_secret
from suggestbot.secret_keys import KeyHealth, check_at_start
from suggestbot.server.builtin_sandbox import EmbeddedSandbox
from suggestbot.server.health import Health, ServiceProbe, probe_client
from suggestbot.server.readiness import Readiness
from suggestbot.server.slack_retries import CountedRateLimitRetryHandler
from suggestbot.slack import Outbound, SlackGate
from suggestbot.slack.client import behind_gate
from suggestbot.slack.coalesce import Coalescer
from suggestbot.slack.gate import SharedPauses
from suggestbot.slack.outbound import ROOT_SETTLE_S
from suggestbot.slack.shared_minutes import SharedMinutes
from suggestbot.slack.shared_posts import SharedPosts
from suggestbot.slackapp.app import build_app, inputs_of
from suggestbot.slackapp.edge.record import carry_out_claimed, replay_unfinished
from suggestbot.slackapp.priority import PriorityGate, YieldingExecutor, yield_before_calls
from suggestbot.slackapp.tenancy import Tenancy
from suggestbot.store import DeliveryLog, TokenVault, open_app_store
from suggestbot.store.backends import database_password
from suggestbot.store.records import Records

log = logging.getLogger(__name__)

BACKGROUND_THREADS = 16


def slack_retry_handlers() -> list[RetryHandler]:
    """Ride out Slack's 429s (honouring Retry-After), 5xx and connection resets."""
    return [
        ConnectionErrorRetryHandler(max_retry_count=2),
        CountedRateLimitRetryHandler(max_retry_count=5),
        ServerErrorRetryHandler(max_retry_count=3),
    ]


@functools.cache
def slack_ssl_context() -> ssl.SSLContext:
    """One TLS context for every call to Slack: without it urllib builds one (loading the CA
    bundle) for every HTTPS connection the ``WebClient`` opens. Made once per process: building
    one costs about a tenth of a second of CPU, and contexts are safe to share."""
    return ssl.create_default_context()


def slack_client(settings: Settings, *, ssl_context: ssl.SSLContext | None = None) -> WebClient:
    """The single-workspace ``WebClient``, with the bot token and the retry policy."""
    token = settings.slack_bot_token.get_secret_value() if settings.slack_bot_token else None
    return WebClient(
        token=token,
        base_url=settings.slack_api_url,
        retry_handlers=slack_retry_handlers(),
        ssl=ssl_context or slack_ssl_context(),
    )


def content_client(
    settings: Settings, *, base_url: str, client_id: str, secret: str
) -> ContentClient:
    auth = ClientCredentialsAuth(
        token_url=base_url.rstrip("/") + "/auth/token", client_id=client_id, client_secret=secret
    )
    return ContentClient(base_url, auth=auth)


def _dead(point: str) -> None:
    raise SystemExit(f"abandoned at {point}")


def freeze_at(name: str) -> Callable[[str], None]:
    """A crash point that blocks for good at ``name`` (``SUGGESTBOT_FREEZE_AT``): the work
    goes no further, so a test's SIGKILL lands exactly there however long it takes to send."""
    never = threading.Event()

    def crash_point(point: str) -> None:
        if point == name:
            log.warning("work frozen at %s (SUGGESTBOT_FREEZE_AT)", point)
            never.wait()

    return crash_point


class Runtime:
    """The app's parts, wired. Use as a context manager or call ``start``/``stop``."""

    def __init__(
        self,
        settings: Settings,
        *,
        content: ContentClient | None = None,
        poll_scale: float = 1.0,
        crash_point: Callable[[str], None] | None = None,
    ) -> None:
        self.settings = settings
        for secret in (
            settings.slack_bot_token,
            settings.slack_signing_secret,
            settings.slack_app_token,
            settings.slack_client_secret,
            settings.slack_state_secret,
            settings.content_client_secret,
        ):
            if secret is not None:
                register_secret(secret.get_secret_value())
        if settings.database_url:
            password = database_password(settings.database_url)
            if password:
                register_secret(password)
            register_secret(settings.database_url)
        keys = settings.suggestbot_secret_keys
        self.vault = TokenVault.from_setting(keys.get_secret_value() if keys else None)
        self.store = open_app_store(
            data_dir=settings.suggestbot_data_dir, database_url=settings.database_url
        )
        self.sandbox: EmbeddedSandbox | None = None
        self._probe_client: ContentClient | None = None
        injected = content
        if content is None and settings.embedded_sandbox:
            self.sandbox = EmbeddedSandbox(data_dir=settings.suggestbot_data_dir / "sandbox")
            content = self.sandbox.client()
        self.content = content or self._service_client()
        # Installed by OAuth in any number of workspaces (else: one, with SLACK_BOT_TOKEN).
        self.tenancy: Tenancy | None = None
        tls = slack_ssl_context()
        if settings.oauth_install:
            self.tenancy = Tenancy(
                settings,
                store=self.store,
                vault=self.vault,
                default_content=self.content,
                retry_handlers=slack_retry_handlers(),
                ssl_context=tls,
            )
        self.slack = self.tenancy.slack if self.tenancy else slack_client(settings, ssl_context=tls)
        # Acks first: the HTTP edge counts Slack's requests in flight (``build_http_app(gate=)``)
        # and everything after an ack — the background pool's tasks, every call to the service
        # and to Slack from the pools and timers — waits for them, a bounded while at most.
        self.gate = PriorityGate()
        yield_before_calls(self.slack, gate=self.gate)
        # Slack's budget: every Web API call of the app's client passes one gate.
        # With replicas (a database) they share its 429 pauses, each channel's post slots and
        # every method's minute (one budget per workspace, whichever replica does the work).
        records = Records(self.store)
        replicated = bool(settings.database_url)
        self.slack_gate = SlackGate(
            workspace=self.tenancy.budget_key if self.tenancy else lambda: None,
            shares=lambda: self.timers.live_replicas,
            shared=SharedPauses(records.slack_pauses) if replicated else None,
            posts=SharedPosts(records.slack_post_slots) if replicated else None,
            minutes=SharedMinutes(records.slack_minutes) if replicated else None,
        )
        self.outbound: Outbound | None = None
        if settings.suggestbot_slack_gate:
            behind_gate(self.slack, self.slack_gate)
            # Tests and the demo speed the service's clock up (poll_scale): a root's state
            # must last as long in the service's time to be shown.
            scale = min(1.0, poll_scale * settings.suggestbot_poll_scale)
            self.outbound = Outbound(
                gate=self.slack_gate,
                roots=Coalescer(name="root-updates", settle_s=ROOT_SETTLE_S * scale),
            )
        self.content.before_each_send(self.gate.yield_to_requests)
        self.scheduler = Scheduler()
        self.timers = SchedulerTimers(self.scheduler)
        # Copies the context into each task, so background work keeps its workspace.
        self.background = YieldingExecutor(
            gate=self.gate, max_workers=BACKGROUND_THREADS, thread_name_prefix="suggestbot-work"
        )
        # Recorded interactions are held under the same owner as this replica's other work.
        self.deliveries = DeliveryLog(self.store, owner=self.timers.owner)
        self.deps = Deps(
            records=Records(self.store),
            vault=self.vault,
            content=self.tenancy.content if self.tenancy else self.content,
            slack=self.slack,
            timers=self.timers,
            embedded=settings.embedded_sandbox,
            content_locale=settings.content_locale,
            poll_scale=poll_scale * settings.suggestbot_poll_scale,
            lease_s=settings.suggestbot_lease_seconds,
            background=self.background,
            deliveries=self.deliveries,
            outbound=self.outbound,
            listing_of=self.tenancy.contents.listing_of if self.tenancy else lambda team: None,
            # One name for all of this replica's claims, as its leases carry (host, process).
            owner=self.timers.owner,
        )
        if self.sandbox is not None:
            link = self.sandbox.user_token_for
            self.deps.auto_link = self.tenancy.auto_link(link) if self.tenancy else link
        if self.tenancy is not None:
            self.deps.home_extras = self.tenancy.home_extras(self.deps)
        if crash_point is None and settings.suggestbot_freeze_at:
            crash_point = freeze_at(settings.suggestbot_freeze_at)
        if crash_point is not None:
            self.deps.crash_point = crash_point
        self.timers.deps = self.deps
        self.deliveries.lease_s = lease_period(self.deps)
        # Lapsed holds of recorded inputs are carried out here, by the Slack edge, from the
        # same table of inputs the app takes them with.
        self.inputs = inputs_of(self.tenancy)
        self.interaction_claims = InteractionClaims(
            self.deliveries, carry_out=functools.partial(carry_out_claimed, self.deps, self.inputs)
        )
        signing = settings.slack_signing_secret
        self.app: App = build_app(
            deps=self.deps,
            client=self.slack,
            signing_secret=signing.get_secret_value() if signing else None,
            tenancy=self.tenancy,
            inputs=self.inputs,
        )
        self.keys = KeyHealth(store=self.store, vault=self.vault)
        self._health = Health(
            store=self.store,
            scheduler_running=lambda: self.scheduler.running and self.timers.running,
            service=ServiceProbe(self._probe_read(injected)),
            secrets=self.keys.status,
        )
        self.readiness = Readiness(store=self.store)
        metrics.watch_runs(lambda: len(self.timers.watching))

    def _service_client(self) -> ContentClient:
        s = self.settings
        if not (s.content_api_url and s.content_client_id and s.content_client_secret):
            raise ValueError(
                "CONTENT_API_URL, CONTENT_CLIENT_ID and CONTENT_CLIENT_SECRET are needed "
                "to reach the content service"
            )
        return content_client(
            s,
            base_url=s.content_api_url,
            client_id=s.content_client_id,
            secret=s.content_client_secret.get_secret_value(),
        )

    def _probe_read(self, injected: ContentClient | None) -> Callable[[], object]:
        """The health check's cheap read: a client of its own with a short timeout."""
        s = self.settings
        if injected is not None:
            return injected.list_use_cases
        if self.sandbox is not None:
            demo = self.sandbox.demo
            address = (self.sandbox.server.url, demo.client_id, demo.client_secret)
        else:
            assert s.content_api_url and s.content_client_id and s.content_client_secret
            address = (
                s.content_api_url,
                s.content_client_id,
                s.content_client_secret.get_secret_value(),
            )
        self._probe_client = probe_client(*address)
        return self._probe_client.list_use_cases

    def start(self) -> Runtime:
        # Before resuming work: a user whose token no key decrypts must wait for a reconnect,
        # not have their requests retried with a token that cannot be read.
        self.keys.record(check_at_start(store=self.store, vault=self.vault))
        self.scheduler.start()
        self.timers.start()
        maintenance.schedule(
            self.scheduler,
            self.deps.records.maintenance,
            maintenance.passes(self.deps, prune_deliveries=self.deliveries.prune),
            owner=self.timers.owner,
        )
        resume_all(self.deps)
        # After the requests: a replayed interaction finds the requests it already created.
        replay_unfinished(self.deps, self.inputs)
        self.interaction_claims.schedule(self.scheduler)
        digest_wave.schedule(self.scheduler, self.deps)
        status_renewal.schedule(self.scheduler, self.deps)
        inspiration_watch.schedule(self.scheduler, self.deps)
        return self

    def stop(self) -> None:
        """Let work in flight finish (what Slack's budget lets go now), then close the store
        and clients.

        Call it once no new Slack requests arrive (the HTTP server or socket is closed). In
        order: no more recorded interactions are claimed from other replicas (the holds of
        those in flight are renewed until the scheduler stops), listeners still running finish
        (they only hand work over), then the work they handed over (which may still set
        timers), then the running timer jobs; timers not yet due stay in the store and are
        resumed by the next start.
        """
        self.interaction_claims.stop_claiming()
        # Nothing waits for Slack's budget any more: a call that would (a backlog of posts
        # into one channel goes at one a second) fails as if Slack were out of reach, and its
        # work, recorded, is taken up by the next start or another replica.
        self.slack_gate.close()
        self.app.listener_runner.listener_executor.shutdown(wait=True)
        self.background.shutdown(wait=True)
        if self.outbound is not None:
            self.outbound.stop()
        self.timers.stop(wait=True)
        self.scheduler.shutdown(wait=True)
        self.store.close()
        self.content.close()
        if self.tenancy is not None:
            self.tenancy.close()
        if self._probe_client is not None:
            self._probe_client.close()
        if self.sandbox is not None:
            self.sandbox.stop()

    def abandon(self) -> None:
        """Drop everything at once, as a killed process would: no timer runs again, queued work
        is discarded, nothing more is written (tests of crash recovery use this)."""
        self.deps.crash_point = _dead
        self.slack_gate.close()
        self.timers.stop(wait=False)
        self.scheduler.shutdown(wait=False)
        self.background.shutdown(wait=False, cancel_futures=True)
        if self.outbound is not None:
            self.outbound.stop()
        self.store.close()
        self.content.close()

    def health(self) -> dict[str, Any]:
        """The ``/healthz`` report (see :mod:`suggestbot.server.health`)."""
        return self._health.report()

    def ready(self) -> dict[str, Any]:
        """The ``/readyz`` report (see :mod:`suggestbot.server.readiness`)."""
        return self.readiness.report()

    def __enter__(self) -> Runtime:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
