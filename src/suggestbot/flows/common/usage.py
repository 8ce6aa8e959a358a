"""The workspace's usage: counted as it happens, one record per UTC day.

App Home shows briefs, refinements, digests sent and the thumbs-up rate per segment and use
case over 7 and 30 days. Counting as it happens keeps that cheap: the panel reads at most 30
day records of the workspace by key, never the requests, digests or votes tables.

A count is written right after the record it counts was created (a brief, a refinement, a
digest's delivery mark); a process killed between the two leaves that one uncounted.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from suggestbot.flows.common.deps import Deps
from suggestbot.store.feedback import UsageDay, usage_key
from suggestbot.ui.blocks.usage import RateLine, UsagePanel

PERIODS = (7, 30)


def today(deps: Deps) -> str:
    """The UTC date of ``deps.clock()`` as ``YYYY-MM-DD``: the key of today's usage record."""
    return datetime.fromtimestamp(deps.clock(), UTC).date().isoformat()


def count(
    deps: Deps, *, team_id: str, briefs: int = 0, refinements: int = 0, digests: int = 0
) -> None:
    """Add to today's counts of the workspace (one atomic write)."""

    def add(day: UsageDay | None) -> UsageDay:
        day = day or UsageDay()
        return day.model_copy(
            update={
                "briefs": day.briefs + briefs,
                "refinements": day.refinements + refinements,
                "digests": day.digests + digests,
            }
        )

    deps.records.usage.upsert(usage_key(team_id, today(deps)), add)


def _days(deps: Deps, team_id: str, span: int) -> Iterable[tuple[int, UsageDay]]:
    """``(age in days, record)`` of the workspace's last ``span`` days that have one."""
    now = datetime.fromtimestamp(deps.clock(), UTC).date()
    for age in range(span):
        day = deps.records.usage.get(usage_key(team_id, (now - timedelta(days=age)).isoformat()))
        if day is not None:
            yield age, day


def panel(deps: Deps, *, team_id: str) -> UsagePanel:
    """What the usage panel shows, from at most 30 keyed reads."""
    longest = max(PERIODS)
    totals = {p: [0, 0, 0] for p in PERIODS}
    # (segment id, use case id) -> period -> [up, all]
    votes: dict[tuple[str, str], dict[int, list[int]]] = {}
    names: dict[str, str] = {}
    for age, day in _days(deps, team_id, longest):
        for key, value in day.names.items():
            names.setdefault(key, value)
        for period in PERIODS:
            if age >= period:
                continue
            total = totals[period]
            total[0] += day.briefs
            total[1] += day.refinements
            total[2] += day.digests
            for vote in day.votes.values():
                tally = votes.setdefault((vote.segment_id, vote.use_case_id), {})
                up_all = tally.setdefault(period, [0, 0])
                up_all[0] += int(vote.positive)
                up_all[1] += 1
    lines = [
        RateLine(
            segment=names.get(segment) or segment or "?",
            use_case=names.get(use_case) or use_case or "?",
            up_7=tally.get(7, [0, 0])[0],
            votes_7=tally.get(7, [0, 0])[1],
            up_30=tally.get(30, [0, 0])[0],
            votes_30=tally.get(30, [0, 0])[1],
        )
        for (segment, use_case), tally in votes.items()
    ]
    lines.sort(key=lambda line: (-line.votes_30, line.segment, line.use_case))
    return UsagePanel(
        briefs_7=totals[7][0],
        refinements_7=totals[7][1],
        digests_7=totals[7][2],
        briefs_30=totals[30][0],
        refinements_30=totals[30][1],
        digests_30=totals[30][2],
        rates=lines,
    )
