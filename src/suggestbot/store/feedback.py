"""Feedback on posted variants, and the workspace's usage by day.

A vote (:class:`Vote`) is one person's thumbs-up or thumbs-down on one variant or turn; pressing
again replaces it. The usage panel in App Home needs totals over 7 and 30 days without reading
every vote or request ever made, so each workspace keeps one :class:`UsageDay` per UTC day: the
counts of briefs, refinements and digests, and the day's votes keyed by who voted on what. The
panel reads at most 30 of these records. A vote lives in the day it was last cast: changing it
moves it there, which is two keyed writes that each may be repeated (a replay after a crash
changes nothing twice).
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class Vote(BaseModel):
    """One person's vote on one variant. Keyed ``"{team}:{request id}:{variant no}:{user}"``."""

    team_id: str
    user_id: str
    request_id: str
    variant_no: int
    positive: bool
    segment_id: str = ""
    use_case_id: str = ""
    day: str  # the UTC day (ISO date) whose usage record holds this vote
    at: float
    reason: str | None = None  # why, when a thumbs-down was explained


class DayVote(BaseModel):
    """A vote as counted in its day: for which segment and use case, and which way."""

    segment_id: str
    use_case_id: str
    positive: bool


class UsageDay(BaseModel):
    """A workspace's usage on one UTC day. Keyed ``"{team}:{ISO date}"``."""

    briefs: int = 0
    refinements: int = 0
    digests: int = 0
    votes: dict[str, DayVote] = Field(default_factory=dict)  # by the vote's key
    # Display names of the segments and use cases seen that day, by id.
    names: dict[str, str] = Field(default_factory=dict)


def vote_key(team_id: str, request_id: str, variant_no: int, user_id: str) -> str:
    """The key of one person's vote on one variant of one request."""
    return f"{team_id}:{request_id}:{variant_no}:{user_id}"


def usage_key(team_id: str, day: str) -> str:
    """The key of a workspace's usage record for one UTC day (``YYYY-MM-DD``)."""
    return f"{team_id}:{day}"
