"""The composer's flow with Slack and the service in memory: which choices a brief written in
the Messages tab is sent with, what is kept when it cannot be sent, a pick on its root, and
the suggested prompts."""

from __future__ import annotations

import pytest
from flows_helpers import ALICE, BRUNO, TEAM, World, world

from suggestbot.contentapi.checks import MAX_BRIEF_CHARS
from suggestbot.flows.composer import tab as composer
from suggestbot.store.records import Preferences, StoredCatalog, user_key
from suggestbot.ui.replies import ComposerMessage

DM = "D-alice"
SEGMENTS = [("seg-1", "Hikers"), ("seg-2", "Runners")]
USE_CASES = [("uc-1", "Spring launch"), ("uc-2", "Loyalty")]


@pytest.fixture
def w() -> World:
    w = world()
    catalog = StoredCatalog(segments=SEGMENTS, use_cases=USE_CASES, loaded_at=w.clock())
    w.deps.records.catalogs.put("-", catalog)
    return w


def _write(w: World, text: str, user: str = ALICE) -> None:
    message = ComposerMessage(team_id=TEAM, user_id=user, channel=DM, ts="1.0", text=text)
    composer.on_message(w.deps, message)


def _sent(w: World) -> list[tuple[str, str, int, str]]:
    return [
        (b["segment_id"], b["use_case_id"], b["variant_count"], b["steering_text"])
        for b in w.service.created
    ]


def test_a_brief_that_names_its_choices_goes_there_and_they_are_remembered(w: World) -> None:
    w.link(ALICE)
    _write(w, "Runners · Loyalty: thank them for a great season")
    assert _sent(w) == [("seg-2", "uc-2", 1, "thank them for a great season")]
    prefs = w.deps.records.preferences.get(user_key(TEAM, ALICE))
    assert prefs is not None and (prefs.segment_id, prefs.use_case_id) == ("seg-2", "uc-2")
    [root] = w.slack.roots(DM)
    assert "Runners · Loyalty · 1 variant" in str(root.blocks)
    # The next plain brief uses what was remembered.
    _write(w, "Another one about socks")
    assert _sent(w)[-1] == ("seg-2", "uc-2", 1, "Another one about socks")


def test_a_plain_brief_without_remembered_choices_takes_the_first_of_each(w: World) -> None:
    w.link(ALICE)
    w.deps.records.preferences.put(user_key(TEAM, ALICE), Preferences(variants=3))
    _write(w, "Note: the shop opens at 10 on Saturdays")
    assert _sent(w) == [("seg-1", "uc-1", 3, "Note: the shop opens at 10 on Saturdays")]


def test_an_unlinked_writer_is_asked_to_connect_and_the_text_is_kept(w: World) -> None:
    _write(w, "Keep me for later")
    assert w.service.created == []
    [held] = list(w.deps.records.held.values())
    assert (held.text, held.channel_id, held.thread_ts) == ("Keep me for later", DM, None)
    [asked] = w.slack.roots(DM)
    assert held.id in str(asked.blocks) and "connect" in asked.text


def test_a_brief_the_service_would_refuse_is_handed_back_whole(w: World) -> None:
    w.link(ALICE)
    text = "x" * (MAX_BRIEF_CHARS + 1)
    _write(w, text)
    assert w.service.created == []
    [answer] = w.slack.roots(DM)
    assert (
        "".join(
            b["text"]["text"]
            for b in answer.blocks
            if b["block_id"].startswith("returned-") and b["block_id"] != "returned-intro"
        )
        == text
    )


def test_a_pick_on_the_root_sends_again_with_it_and_only_for_the_author(w: World) -> None:
    w.link(ALICE)
    w.link(BRUNO)
    _write(w, "Hikers · Spring launch: new tents")
    [req] = list(w.deps.records.requests.values())
    assert not composer.pick(
        w.deps, team_id=TEAM, user_id=BRUNO, request_id=req.id, which="segment", value="seg-2"
    )
    assert not composer.pick(
        w.deps, team_id=TEAM, user_id=ALICE, request_id=req.id, which="segment", value="nope"
    )
    assert len(w.service.created) == 1
    assert composer.pick(
        w.deps, team_id=TEAM, user_id=ALICE, request_id=req.id, which="variants", value="2"
    )
    assert _sent(w)[-1] == ("seg-1", "uc-1", 2, "new tents")
    prefs = w.deps.records.preferences.get(user_key(TEAM, ALICE))
    assert prefs is not None and prefs.variants == 2
    [told] = w.slack.ephemerals
    assert told.user == ALICE and "2 variants" in told.text


def test_the_prompts_are_set_for_the_whole_tab_in_the_persons_language(w: World) -> None:
    w.deps.catalog = lambda refresh=False: w.deps.known_catalog()  # type: ignore[assignment,misc]
    w.slack.locales[ALICE] = "de-DE"
    assert composer.offer_prompts(w.deps, user_id=ALICE, channel_id=DM)
    [offered] = w.slack.prompts
    assert offered["channel"] == DM and offered["title"].startswith("Ein Briefing")
    assert [p["title"] for p in offered["prompts"]] == [
        "Spring launch für Hikers",
        "Loyalty für Runners",
    ]
