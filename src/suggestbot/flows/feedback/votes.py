"""Thumbs-up and thumbs-down on a posted variant or turn, one vote per person and variant.

The vote is kept twice: as the person's :class:`~suggestbot.store.feedback.Vote` (what they
last pressed, and why) and inside the usage record of the day it was cast (what the panel
counts). Each write is keyed by the vote, so pressing again replaces the vote instead of adding
one, and a press carried out again after a crash writes the same records again.
"""

from __future__ import annotations

import logging

from suggestbot.flows.common import threads, usage
from suggestbot.flows.common.deps import Deps
from suggestbot.store.feedback import DayVote, UsageDay, Vote, usage_key, vote_key
from suggestbot.store.records import Request

log = logging.getLogger(__name__)

REASON_MAX = 500


def feedback_value(request_id: str, variant_no: int) -> str:
    """What a feedback button carries: the request and the variant (1 for a turn)."""
    return f"{request_id}:{variant_no}"


def parse_value(value: str) -> tuple[str, int] | None:
    """A feedback button's value as ``(request_id, variant_no)``; None when malformed."""
    request_id, _, number = value.rpartition(":")
    if not request_id or not number.isdigit():
        return None
    return request_id, int(number)


def _segment_of(deps: Deps, req: Request) -> tuple[str, str, dict[str, str]]:
    """The segment and use case a request was for, and their display names by id."""
    if req.kind == "brief":
        segment = str(req.body.get("segment_id") or "")
        use_case = str(req.body.get("use_case_id") or "")
        labels = req.labels
    else:
        channel, _, thread_ts = req.labels.get("thread", "").partition(":")
        binding = threads.get(deps, channel=channel, thread_ts=thread_ts) if thread_ts else None
        if binding is None:
            return "", "", {}
        segment, use_case = binding.segment_id or "", binding.use_case_id or ""
        labels = binding.labels
    names = {
        key: name
        for key, name in ((segment, labels.get("segment")), (use_case, labels.get("use_case")))
        if key and name
    }
    return segment, use_case, names


def vote(
    deps: Deps, *, team_id: str, user_id: str, value: str, positive: bool
) -> tuple[Vote, bool] | None:
    """Record a press of 👍 or 👎; returns the vote and whether it is new or turned (False for
    the same press again), or None for a variant no longer known."""
    parsed = parse_value(value)
    req = deps.records.requests.get(parsed[0]) if parsed else None
    if parsed is None or req is None:
        log.info("feedback on an unknown variant ignored")
        return None
    request_id, variant_no = parsed
    key = vote_key(team_id, request_id, variant_no, user_id)
    earlier = deps.records.votes.get(key)
    segment, use_case, names = _segment_of(deps, req)
    day = usage.today(deps)
    counted = DayVote(segment_id=segment, use_case_id=use_case, positive=positive)

    def count_today(record: UsageDay | None) -> UsageDay:
        record = record or UsageDay()
        return record.model_copy(
            update={
                "votes": {**record.votes, key: counted},
                "names": {**record.names, **names},
            }
        )

    deps.records.usage.upsert(usage_key(team_id, day), count_today)
    if earlier is not None and earlier.day != day:

        def forget(record: UsageDay) -> UsageDay:
            return record.model_copy(
                update={"votes": {k: v for k, v in record.votes.items() if k != key}}
            )

        deps.records.usage.update(usage_key(team_id, earlier.day), forget)
    changed_way = earlier is not None and earlier.positive != positive
    fresh = Vote(
        team_id=team_id,
        user_id=user_id,
        request_id=request_id,
        variant_no=variant_no,
        positive=positive,
        segment_id=segment,
        use_case_id=use_case,
        day=day,
        at=deps.clock(),
        # A reason explains a thumbs-down; it no longer holds once the vote turned.
        reason=None if changed_way or earlier is None else earlier.reason,
    )
    deps.records.votes.put(key, fresh)
    return fresh, earlier is None or changed_way


def explain(deps: Deps, *, team_id: str, user_id: str, value: str, reason: str) -> bool:
    """Keep why a person gave a thumbs-down (from the optional modal)."""
    parsed = parse_value(value)
    reason = reason.strip()[:REASON_MAX]
    if parsed is None or not reason:
        return False
    key = vote_key(team_id, parsed[0], parsed[1], user_id)
    kept = deps.records.votes.update(key, lambda v: v.model_copy(update={"reason": reason}))
    return kept is not None
