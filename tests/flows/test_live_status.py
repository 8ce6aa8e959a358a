"""The status line under a request's thread: set while its run is queued, running or retried,
renewed while it lasts, gone when the result is posted or the request fails — and never in
the way of the brief when Slack refuses it."""

from __future__ import annotations

import logging

import pytest
from flows_helpers import (
    ALICE,
    CHANNEL,
    SEGMENT,
    TEAM,
    USE_CASE,
    World,
    email,
    slack_error,
    world,
)

from suggestbot.flows.brief import sending as brief
from suggestbot.flows.common import requests
from suggestbot.installations.scope import team_scope
from suggestbot.jobs import run_watcher
from suggestbot.store.records import Request, WorkspaceLanguage
from suggestbot.ui.messages import t


@pytest.fixture
def w() -> World:
    return world()


def _send(w: World, text: str = "Spring boots for hikers") -> Request:
    return brief.start(
        w.deps,
        team_id=TEAM,
        user_id=ALICE,
        channel_id=CHANNEL,
        run_request=brief.steered_request(
            segment_id=SEGMENT, use_case_id=USE_CASE, text=text, variants=2
        ),
        labels={"segment": "Hikers", "use_case": "Spring launch"},
    )


def _lines(w: World) -> list[str]:
    [root] = w.slack.roots()
    return [s for c, ts, s, _ in w.slack.statuses if (c, ts) == (CHANNEL, root.ts)]


def test_the_line_follows_the_run_and_the_posted_variants_end_it(w: World) -> None:
    w.link(ALICE)
    req = _send(w)
    assert _lines(w) == [t("status.sending", "en"), t("status.queued", "en")]
    *_, (_, _, _, loading) = w.slack.statuses
    assert loading and "Drafting the variants…" in loading and len(loading) <= 10
    run_id = w.service.run_of()["id"]
    w.service.running(run_id, attempt=2)
    run_watcher.poll(w.deps, req.id)
    assert _lines(w)[-1] == t("status.running", "en", attempt=2) == "is writing (attempt 2)…"
    w.service.succeed(run_id, [email("s1", 1, "First"), email("s2", 2, "Second")])
    before = len(w.slack.statuses)
    run_watcher.poll(w.deps, req.id)
    # The variants posted in the thread clear the line in Slack: no call is needed, and no
    # working line is set after them.
    assert len(w.slack.statuses) == before
    [root] = w.slack.roots()
    # The gallery of both variants, then each variant in full.
    roles = [(m.metadata or {}).get("event_payload", {}).get("role") for m in w.slack.thread(root)]
    assert roles == ["gallery", "variant", "variant"]


def test_a_failed_run_clears_the_line_it_posts_nothing_in_the_thread(w: World) -> None:
    w.link(ALICE)
    req = _send(w)
    w.service.fail(w.service.run_of()["id"], "output_policy_violation")
    run_watcher.poll(w.deps, req.id)
    assert _lines(w)[-1] == ""
    [root] = w.slack.roots()
    assert w.slack.thread(root) == []


def test_a_request_waiting_for_its_author_shows_no_working_line(w: World) -> None:
    _send(w)  # Alice is not linked: it waits for her
    assert _lines(w)[-1] == ""


def test_a_refused_status_line_never_stops_the_brief(
    w: World, caplog: pytest.LogCaptureFixture
) -> None:
    w.link(ALICE)
    refusal = slack_error("assistant.threads.setStatus", "missing_scope")
    w.slack.refuse["assistant.threads.setStatus"] = [refusal, refusal]
    caplog.set_level(logging.WARNING)
    req = _send(w)
    stored = w.deps.records.requests.get(req.id)
    assert stored is not None and stored.state == "submitted"
    [root] = w.slack.roots()
    assert root.text == t("root.queued", "en", user=ALICE)
    assert "missing_scope" in caplog.text and "user-token" not in caplog.text


def test_renewal_sets_the_line_again_only_for_requests_still_working(w: World) -> None:
    w.link(ALICE)
    working = _send(w, "one")
    ended = _send(w, "two")
    w.service.fail(w.service.run_of()["id"], "output_policy_violation")
    run_watcher.poll(w.deps, ended.id)
    before = len(w.slack.statuses)
    assert requests.renew_statuses(w.deps).lines == 1
    [(channel, ts, status, loading)] = w.slack.statuses[before:]
    stored = w.deps.records.requests.get(working.id)
    assert stored is not None and (channel, ts) == (CHANNEL, stored.root_ts)
    assert status == t("status.queued", "en") and loading


def test_the_line_is_in_the_workspaces_language(w: World) -> None:
    w.link(ALICE)  # reads English; the channel's workspace reads German
    w.deps.records.workspace_languages.put(TEAM, WorkspaceLanguage(lang="de"))
    with team_scope(TEAM):
        _send(w)
    assert _lines(w)[-1] == "steht beim Dienst in der Warteschlange…"
    *_, (_, _, _, loading) = w.slack.statuses
    assert loading is not None and "Entwerfe die Varianten…" in loading
