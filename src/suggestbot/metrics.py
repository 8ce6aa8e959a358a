"""The process's Prometheus metrics, served at ``/metrics``.

One registry per process: each replica is scraped on its own and the monitoring system adds
the replicas up (no multiprocess mode). Every layer may import this module, so it imports
nothing from the project; the figure is recorded where it is produced.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

REGISTRY = CollectorRegistry(auto_describe=True)

# Slack wants an ack within 3 s: the buckets are fine below it and coarse above.
ACK_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0)
# Lateness of a poll or a digest: from well on time to "a sweep or a minute behind".
LATENESS_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 300.0)

ACK_KINDS = ("command", "event", "action", "view", "other")

ACKS = Counter(
    "suggestbot_acks",
    "Requests from Slack answered at /slack/events, by kind and HTTP status.",
    ["kind", "status"],
    registry=REGISTRY,
)
ACK_SECONDS = Histogram(
    "suggestbot_ack_seconds",
    "Time from a Slack request's arrival to its answer, by kind (Slack allows 3 s).",
    ["kind"],
    buckets=ACK_BUCKETS,
    registry=REGISTRY,
)
RUNS_WATCHED = Gauge(
    "suggestbot_runs_watched",
    "Generation runs this process is watching (polling) now.",
    registry=REGISTRY,
)
POLL_LATENESS = Histogram(
    "suggestbot_poll_lateness_seconds",
    "How long after it was due a run's poll was read (the service's answer in hand).",
    buckets=LATENESS_BUCKETS,
    registry=REGISTRY,
)
DIGESTS_SENT = Counter(
    "suggestbot_digests_sent",
    "Digests posted to a channel (with content, or the short 'nothing new' line).",
    registry=REGISTRY,
)
DIGEST_LATENESS = Histogram(
    "suggestbot_digest_lateness_seconds",
    "How long after its local minute a digest was posted.",
    buckets=LATENESS_BUCKETS,
    registry=REGISTRY,
)
SLACK_RATE_LIMITED = Counter(
    "suggestbot_slack_rate_limited",
    "Slack Web API answers with HTTP 429 (each is retried after its Retry-After).",
    registry=REGISTRY,
)
# Time a Slack call waited for its budget: none for most, up to a minute for decoration.
QUEUED_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)
SLACK_CALLS = Counter(
    "suggestbot_slack_calls",
    'Slack Web API calls by method (the methods the app knows, else "other") and outcome: '
    "ok, error (Slack refused), rate_limited (429), dropped (decoration not sent for lack of "
    "budget), failed (no answer).",
    ["method", "outcome"],
    registry=REGISTRY,
)
SLACK_QUEUED_SECONDS = Histogram(
    "suggestbot_slack_queued_seconds",
    "Time a Slack call waited for Slack's budget before it was sent, by priority (urgent: "
    "what a person waits for; decoration: status lines, Home, permalinks).",
    ["priority"],
    buckets=QUEUED_BUCKETS,
    registry=REGISTRY,
)
SLACK_BUDGET_LEFT = Gauge(
    "suggestbot_slack_budget_left",
    "Share (0-1) of a minute's calls still left, for the method of each tier and workspace "
    "with the least left (1: untouched in the last minute).",
    ["tier"],
    registry=REGISTRY,
)
CLAIMS_TAKEN_OVER = Counter(
    "suggestbot_claims_taken_over",
    "Units of deferred work (a run poll, a resend, a recorded interaction, a digest delivery) "
    "whose lease another replica let lapse and this one took over.",
    registry=REGISTRY,
)


def ack_kind(body: dict[str, object]) -> str:
    """The kind of a parsed Slack request, as the ack metrics label it."""
    kind = body.get("type")
    if "command" in body and kind is None:
        return "command"
    if kind == "event_callback":
        return "event"
    if kind in ("block_actions", "block_suggestion", "shortcut", "message_action"):
        return "action"
    if kind in ("view_submission", "view_closed"):
        return "view"
    return "other"


def observe_ack(*, kind: str, status: int, seconds: float) -> None:
    """Count one answer to Slack and its latency (an unknown kind counts as ``other``)."""
    kind = kind if kind in ACK_KINDS else "other"
    ACKS.labels(kind=kind, status=str(status)).inc()
    ACK_SECONDS.labels(kind=kind).observe(seconds)


def observe_poll(*, due_at: float | None, read_at: float | None) -> None:
    """A poll's lateness: from when it was due to when its answer was read (epoch seconds)."""
    if due_at is not None and read_at is not None:
        POLL_LATENESS.observe(max(0.0, read_at - due_at))


def observe_digest(*, outcome: str, fire_at: float, clock: Callable[[], float] = time.time) -> None:
    """A digest's outcome; one that reached its channel counts, with how late it was."""
    if outcome in ("posted", "lines"):
        DIGESTS_SENT.inc()
        DIGEST_LATENESS.observe(max(0.0, clock() - fire_at))


def watch_runs(count: Callable[[], float]) -> None:
    """Read the runs-watched gauge from ``count`` at each scrape."""
    RUNS_WATCHED.set_function(count)


def exposition() -> tuple[bytes, str]:
    """The registry in Prometheus' text format, and its content type."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
