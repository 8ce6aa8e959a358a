"""*Copy text* on a gallery card: the variant's plain text, also when pressed in the moment
between the gallery being posted and the variants being recorded."""

from __future__ import annotations

import pytest
from flows_helpers import ALICE, CHANNEL, SEGMENT, TEAM, USE_CASE, World, email, world

from suggestbot.flows.brief import results
from suggestbot.flows.brief import sending as brief
from suggestbot.jobs import run_watcher
from suggestbot.store.records import Request


@pytest.fixture
def w() -> World:
    return world()


def _send(w: World) -> Request:
    return brief.start(
        w.deps,
        team_id=TEAM,
        user_id=ALICE,
        channel_id=CHANNEL,
        run_request=brief.steered_request(
            segment_id=SEGMENT, use_case_id=USE_CASE, text="Spring boots for hikers", variants=2
        ),
        labels={"segment": "Hikers", "use_case": "Spring launch"},
    )


def _copied(w: World, req: Request, number: int) -> str:
    messages = results.copy_text(w.deps, request_id=req.id, variant_no=number, lang="en")
    assert messages is not None
    return "\n".join(str(m) for m in messages)


def test_a_press_before_the_variants_are_recorded_gets_the_text_from_the_run(w: World) -> None:
    w.link(ALICE)
    req = _send(w)
    run_id = w.service.run_of()["id"]
    w.service.succeed(run_id, [email("s1", 1, "First"), email("s2", 2, "Second")])
    # The run has finished but nothing is posted or recorded yet (the gallery goes first).
    assert w.deps.records.requests.get(req.id).variants == []
    assert "Second" in _copied(w, req, 2)


def test_after_the_results_are_posted_the_recorded_variant_is_copied(w: World) -> None:
    w.link(ALICE)
    req = _send(w)
    run_id = w.service.run_of()["id"]
    w.service.succeed(run_id, [email("s1", 1, "First"), email("s2", 2, "Second")])
    run_watcher.poll(w.deps, req.id)
    assert len(w.deps.records.requests.get(req.id).variants) == 2
    assert "First" in _copied(w, req, 1)
    assert results.copy_text(w.deps, request_id=req.id, variant_no=3, lang="en") is None
