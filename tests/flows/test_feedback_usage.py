"""Votes on variants and the usage panel's figures, counted as they happen."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest
from flows_helpers import ALICE, BRUNO, TEAM, World, record_brief, world

from suggestbot.flows.common import usage
from suggestbot.flows.feedback import votes as feedback
from suggestbot.store.feedback import usage_key, vote_key
from suggestbot.store.records import Request

DAY = 86_400


@pytest.fixture
def w() -> World:
    return world()


def _vote(w: World, req: Request, user: str, positive: bool, variant: int = 1) -> None:
    value = feedback.feedback_value(req.id, variant)
    assert feedback.vote(w.deps, team_id=TEAM, user_id=user, value=value, positive=positive)


def test_a_second_press_replaces_the_vote_and_a_turned_vote_moves_to_its_day(w: World) -> None:
    req = record_brief(w)
    _vote(w, req, ALICE, True)
    _vote(w, req, ALICE, True)
    [line] = usage.panel(w.deps, team_id=TEAM).rates
    assert (line.segment, line.use_case, line.up_7, line.votes_7) == ("Hikers", "Spring", 1, 1)

    w.clock.advance(2 * DAY)
    _vote(w, req, ALICE, False)  # changed her mind two days later
    first_day = w.deps.records.usage.get(usage_key(TEAM, "2026-03-01"))
    assert first_day is not None and first_day.votes == {}  # moved, not doubled
    [line] = usage.panel(w.deps, team_id=TEAM).rates
    assert (line.up_7, line.votes_7, line.up_30, line.votes_30) == (0, 1, 0, 1)
    vote = w.deps.records.votes.get(vote_key(TEAM, req.id, 1, ALICE))
    assert vote is not None and vote.day == "2026-03-03" and not vote.positive


def test_a_thumbs_down_asks_once_and_keeps_its_reason_until_the_vote_turns(w: World) -> None:
    req = record_brief(w)
    value = feedback.feedback_value(req.id, 2)
    first = feedback.vote(w.deps, team_id=TEAM, user_id=BRUNO, value=value, positive=False)
    again = feedback.vote(w.deps, team_id=TEAM, user_id=BRUNO, value=value, positive=False)
    assert first is not None and first[1] and again is not None and not again[1]
    assert feedback.explain(w.deps, team_id=TEAM, user_id=BRUNO, value=value, reason=" Too long ")
    kept = w.deps.records.votes.get(vote_key(TEAM, req.id, 2, BRUNO))
    assert kept is not None and kept.reason == "Too long"
    feedback.vote(w.deps, team_id=TEAM, user_id=BRUNO, value=value, positive=True)
    turned = w.deps.records.votes.get(vote_key(TEAM, req.id, 2, BRUNO))
    assert turned is not None and turned.reason is None


def test_feedback_on_something_unknown_is_ignored(w: World) -> None:
    assert feedback.vote(w.deps, team_id=TEAM, user_id=ALICE, value="nope", positive=True) is None
    gone = feedback.feedback_value("gone", 1)
    assert feedback.vote(w.deps, team_id=TEAM, user_id=ALICE, value=gone, positive=True) is None
    assert list(w.deps.records.usage.items()) == []


def test_the_panel_counts_7_and_30_days_per_segment_and_reads_only_30_days(w: World) -> None:
    old = record_brief(w, segment="seg-2", names=("Runners", "Spring"))
    _vote(w, old, ALICE, True)
    w.clock.advance(20 * DAY)
    recent = record_brief(w)
    _vote(w, recent, ALICE, True)
    _vote(w, recent, BRUNO, False)
    usage.count(w.deps, team_id=TEAM, digests=3)
    usage.count(w.deps, team_id="T-other", briefs=5)  # another workspace: not shown here

    panel = usage.panel(w.deps, team_id=TEAM)
    assert (panel.briefs_7, panel.briefs_30, panel.digests_7, panel.refinements_30) == (1, 2, 3, 0)
    rates = {line.segment: line for line in panel.rates}
    assert (rates["Hikers"].up_7, rates["Hikers"].votes_7) == (1, 2)
    assert (rates["Runners"].votes_7, rates["Runners"].up_30, rates["Runners"].votes_30) == (
        0,
        1,
        1,
    )

    w.clock.advance(15 * DAY)  # the first day is now 35 days back: out of the panel
    reads: list[str] = []
    get = w.deps.records.usage.get
    w.deps.records.usage.get = lambda key: reads.append(key) or get(key)  # type: ignore[method-assign]
    panel = usage.panel(w.deps, team_id=TEAM)
    assert [line.segment for line in panel.rates] == ["Hikers"]
    assert len(reads) == 30 and all(key.startswith(f"{TEAM}:") for key in reads)


class _HeldPool:
    """A background pool whose tasks run only when the test says so."""

    def __init__(self) -> None:
        self.tasks: list[Callable[[], object]] = []

    def submit(self, fn: Callable[[], object]) -> None:
        self.tasks.append(fn)

    def run_all(self) -> None:
        while self.tasks:
            self.tasks.pop(0)()


def test_a_brief_is_counted_after_it_is_recorded_on_the_background_pool(w: World) -> None:
    # Recording happens before the ack; the count is not worth a write the ack waits for.
    pool = _HeldPool()
    w.deps = dataclasses.replace(w.deps, background=pool)  # type: ignore[arg-type]
    req = record_brief(w)
    today = usage_key(TEAM, "2026-03-01")
    assert w.deps.records.requests.get(req.id) is not None
    assert w.deps.records.usage.get(today) is None
    pool.run_all()
    day = w.deps.records.usage.get(today)
    assert day is not None and day.briefs == 1
