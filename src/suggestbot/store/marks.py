"""Marks that make a post happen once: recorded before the post, completed after it.

A mark is written with ``put_if_absent`` before posting (an intent, or a claim), and replaced by
what was posted once Slack answered. A mark found without its completion means a process died
in between; the flow then looks for the message in Slack before posting again. The records
keep the compact shape they had when they were plain dicts: only the fields that were set are
written (see :class:`~suggestbot.store.records.Table`'s ``sparse``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

PostState = Literal["intent", "posted"]
DeliveryState = Literal["claimed", "posted", "quiet", "failed"]


class PostMark(BaseModel):
    """A variant of a run, or one extra message of a refinement's turn, posted once.

    Keyed ``"{request id}:{variant no}"`` (``state`` then ``ts``) or
    ``"{request id}:turn:{n}"`` (only ``ts``, left None: the claim alone is the mark).
    """

    state: PostState | None = None
    ts: str | None = None


class ShareMark(BaseModel):
    """A variant of ready-made content shared into its channel once.

    Keyed ``"{offer id}:{variant no}"``; ``at`` is when the intent was recorded, so the
    channel's history is searched from then on.
    """

    state: PostState
    at: float | None = None
    ts: str | None = None


class DigestDelivery(BaseModel):
    """One digest's post for one local date: claimed before posting, then how it went.

    Keyed ``"{digest id}:{local date}"``. ``at`` is when the delivery was claimed;
    ``delivered_at`` when it was posted; ``problem`` why the content was empty, when known;
    ``error`` the Slack error of a failed post. A claim also names its ``owner`` (the process),
    the ``wave`` (its minute) and ``until`` when its lease runs out on the wave's clock:
    another replica running the same wave leaves a live claim alone.
    """

    state: DeliveryState
    at: float | None = None
    owner: str | None = None
    wave: str | None = None
    until: float | None = None
    ts: str | None = None
    version: int | None = None
    delivered_at: float | None = None
    problem: str | None = None
    error: str | None = None

    @property
    def handled(self) -> bool:
        """Whether the delivery is done (posted, or quietly skipped)."""
        return self.state in ("posted", "quiet")


def delivery_key(digest_id: str, local_date: str) -> str:
    """The key of a digest's delivery for the ISO ``local_date``."""
    return f"{digest_id}:{local_date}"


def delivery_date(key: str) -> str:
    """The ISO local date a delivery key names."""
    return key.rpartition(":")[2]


class SlackPause(BaseModel):
    """Slack answered ``429`` for a method in a workspace: no replica calls it before
    ``until`` (epoch seconds). Keyed ``"{workspace}|{method}"``."""

    until: float


class MinuteCalls(BaseModel):
    """One Slack method's calls in one workspace over the last minute, shared by the replicas:
    ``[bucket, count]`` pairs, a bucket being a few seconds (its number: epoch seconds over the
    bucket's length). Keyed ``"{workspace}|{method}"``; forgotten once ``until`` (when its
    newest bucket leaves the minute, epoch seconds) is past."""

    buckets: list[tuple[int, int]] = Field(default_factory=list)
    until: float = 0.0


class HomeSeen(BaseModel):
    """When a person last opened the app's Home (epoch seconds): a Home nobody has open is
    not published again on every change. Keyed ``"{team}:{user}"``."""

    at: float


class PostSlot(BaseModel):
    """A channel's one post a second, shared by the replicas: when the channel's next post
    would be due if posts went one a second back to back (epoch seconds; a burst may go
    ahead of it). Keyed ``"{workspace}|{channel}"``; forgotten once it is in the past."""

    next: float
