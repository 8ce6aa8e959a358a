"""A brief's life as its author sees it: the root message moves from "Sending" to the result,
or to a failure that says what to do next — with the service and Slack in memory."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
from flows_helpers import (
    ALICE,
    BRUNO,
    CHANNEL,
    SEGMENT,
    TEAM,
    USE_CASE,
    World,
    buttons,
    email,
    refused,
    slack_error,
    world,
)

from suggestbot.flows.brief import sending as brief
from suggestbot.flows.common import requests
from suggestbot.installations.scope import team_scope
from suggestbot.jobs import recovery, run_watcher
from suggestbot.store.records import Failure, Request, WorkspaceLanguage, user_key
from suggestbot.ui.blocks import ids
from suggestbot.ui.messages import t, tn

RETRY = ("Retry", ids.ACTION_RETRY)


@pytest.fixture
def w() -> World:
    return world()


def _send(w: World, text: str = "Spring boots for hikers", variants: int = 2) -> Request:
    return brief.start(
        w.deps,
        team_id=TEAM,
        user_id=ALICE,
        channel_id=CHANNEL,
        run_request=brief.steered_request(
            segment_id=SEGMENT, use_case_id=USE_CASE, text=text, variants=variants
        ),
        labels={"segment": "Hikers", "use_case": "Spring launch"},
    )


def _root_text(w: World) -> str:
    [root] = w.slack.roots()
    return root.text


def test_a_brief_is_sent_as_typed_and_its_root_says_it_is_queued(w: World) -> None:
    w.link(ALICE)
    req = _send(w)
    assert w.service.created == [
        {
            "type": "steered_generation",
            "segment_id": SEGMENT,
            "use_case_id": USE_CASE,
            "steering_text": "Spring boots for hikers",
            "variant_count": 2,
        }
    ]
    [root] = w.slack.roots()
    assert root.text == t("root.queued", "en", user=ALICE)
    shown = str(root.blocks)
    assert "> Spring boots for hikers" in shown and "Hikers · Spring launch · 2 variants" in shown
    assert root.metadata == {
        "event_type": "suggestbot_post",
        "event_payload": {"request_id": req.id, "role": "root"},
    }
    assert [r for r, _ in w.timers.watched] == [req.id]


def test_a_succeeded_run_posts_its_variants_in_order_and_the_root_says_ready(w: World) -> None:
    w.link(ALICE)
    req = _send(w)
    run_id = w.service.run_of()["id"]
    w.service.running(run_id, attempt=2)
    run_watcher.poll(w.deps, req.id)
    assert "Generating for" in _root_text(w) and "attempt 2: the service" in _root_text(w)
    w.service.succeed(run_id, [email("s2", 2, "Second"), email("s1", 1, "First")])
    run_watcher.poll(w.deps, req.id)
    [root] = w.slack.roots()
    gallery, *posted = w.slack.thread(root)
    # side by side first, each card with Refine… and Copy text; the text holds both in full
    assert gallery.blocks[0]["type"] == "carousel"
    assert gallery.text.startswith("2 variants are ready")
    assert "First" in gallery.text and "Second" in gallery.text
    assert [p.text for p in posted] == [
        "Variant 1 of 2 · Email: First",
        "Variant 2 of 2 · Email: Second",
    ]
    assert all(("Refine…", ids.ACTION_REFINE_OPEN) in buttons(p.blocks) for p in posted)
    assert root.text == tn("root.ready", "en", user=ALICE, count=2)
    assert "2 suggestions" in root.text
    stored = w.deps.records.requests.get(req.id)
    assert stored is not None and stored.state == "done"


def test_a_root_posted_just_before_a_crash_is_found_again_not_posted_twice(w: World) -> None:
    """Killed between posting the root and writing down its ts: whoever takes the brief over
    finds the root in the channel by its metadata."""
    w.link(ALICE)
    req = _send(w)
    [posted] = w.slack.roots()
    # As the store was left: where it was about to be posted, not what was posted.
    w.deps.records.requests.update(req.id, lambda r: r.model_copy(update={"root_ts": None}))

    requests.post_root(w.deps, req.id)

    assert [root.ts for root in w.slack.roots()] == [posted.ts]
    assert w.deps.records.requests.get(req.id).root_ts == posted.ts


def test_a_busy_service_sends_the_brief_again_later_by_itself(w: World) -> None:
    w.link(ALICE)
    w.service.create_answers.append(refused(429, "rate_limited", retry_after="30"))
    req = _send(w)
    assert "The service is busy" in _root_text(w)
    assert w.timers.sends == [(req.id, w.clock() + 30)]
    assert buttons(w.slack.roots()[0].blocks) == []  # nothing to press: it goes by itself
    requests.submit(w.deps, req.id)  # the send timer, when it is due
    assert "is queued" in _root_text(w) and len(w.service.created) == 1


def test_a_rejected_token_keeps_the_brief_and_asks_only_its_author_to_reconnect(w: World) -> None:
    w.link(ALICE)
    w.service.tokens.clear()  # the service no longer accepts Alice's token
    req = _send(w)
    assert f"The brief from <@{ALICE}> is waiting until they connect" in _root_text(w)
    [told] = w.slack.ephemerals
    assert told.user == ALICE and "no longer accepts your token" in told.text
    assert buttons(told.blocks) == [
        ("Connect account", ids.ACTION_CONNECT),
        ("Resend", ids.ACTION_RETRY),
    ]
    assert buttons(w.slack.roots()[0].blocks) == []  # never on the public root
    user = w.deps.records.users.get(user_key(TEAM, ALICE))
    assert user is not None and (user.state, user.expired_reason) == ("expired", "rejected")
    stored = w.deps.records.requests.get(req.id)
    assert stored is not None and stored.state == "waiting_user" and stored.steering_text


def test_an_unlinked_author_is_asked_to_connect_and_nothing_is_sent(w: World) -> None:
    _send(w)
    assert "waiting until they connect" in _root_text(w)
    assert w.slack.seen_by(ALICE) == [t("connect.needed", "en")]
    assert w.service.created == []


@pytest.mark.parametrize(
    ("answer", "reason", "offered"),
    [
        (
            refused(422, "input_too_long"),
            "the brief is longer than the 4,000 characters",
            [("Edit and resend", ids.ACTION_EDIT_RESEND)],
        ),
        (
            refused(503, "service_unavailable"),
            "the service could not be reached",
            [RETRY],
        ),
        (refused(403, "steering_disabled"), "retrying will not help", []),
    ],
)
def test_a_refused_brief_says_why_and_offers_only_what_can_help(
    w: World, answer: httpx.Response, reason: str, offered: list[tuple[str, str]]
) -> None:
    w.link(ALICE)
    w.service.create_answers.append(answer)
    req = _send(w)
    text = _root_text(w)
    assert text.startswith(f":x: The brief from <@{ALICE}> failed: ") and reason in text
    assert buttons(w.slack.roots()[0].blocks) == offered
    stored = w.deps.records.requests.get(req.id)
    assert stored is not None and stored.state == "failed"


def test_only_the_author_can_retry_and_a_retry_sends_again_in_place(w: World) -> None:
    w.link(ALICE)
    w.link(BRUNO)
    w.service.create_answers.append(refused(503, "service_unavailable"))
    req = _send(w)
    assert requests.retry(w.deps, req.id, acting_user=BRUNO) is False
    assert w.service.created == []
    assert requests.retry(w.deps, req.id, acting_user=ALICE) is True
    assert "is queued" in _root_text(w)  # the same root, updated in place
    assert len(w.service.created) == 1 and w.timers.cancelled == [req.id]
    assert requests.retry(w.deps, req.id, acting_user=ALICE) is True  # a double click
    assert len(w.service.created) == 1


def test_a_lost_answer_adopts_the_run_the_service_made_instead_of_sending_twice(
    w: World,
) -> None:
    w.link(ALICE)

    def made_then_lost(request: httpx.Request) -> httpx.Response:
        w.service.create_run(request, created_by="svc-" + ALICE)
        raise httpx.ReadTimeout("answer lost", request=request)

    w.service.create_answers.append(made_then_lost)
    req = _send(w)
    assert len(w.service.runs) == 1
    stored = w.deps.records.requests.get(req.id)
    assert stored is not None and stored.run_id == w.service.run_of()["id"]
    assert "is queued" in _root_text(w)


def test_a_failed_run_offers_retry_and_a_failure_code_the_app_cannot_explain_is_kept(
    w: World,
) -> None:
    w.link(ALICE)
    req = _send(w)
    w.service.fail(w.service.run_of()["id"], "quota_blown")
    run_watcher.poll(w.deps, req.id)
    [root] = w.slack.roots()
    assert root.text.startswith(f":x: The brief from <@{ALICE}> failed:")
    assert buttons(root.blocks) == [RETRY]
    assert "quota_blown" in str(root.blocks[-1])  # the code, in small print for support


def test_a_channel_the_bot_is_not_in_gets_the_root_as_a_direct_message(w: World) -> None:
    w.link(ALICE)
    w.slack.closed_channels.add(CHANNEL)
    _send(w)
    intro, root, why = w.slack.roots(f"D-{ALICE}")
    assert intro.text == t("slack.dm_fallback", "en", channel=CHANNEL)
    assert root.text == t("root.queued", "en", user=ALICE)
    assert why.text == t("slack.not_in_channel", "en", channel=CHANNEL)
    assert w.slack.roots(CHANNEL) == []


def test_a_root_in_a_channel_is_in_the_workspaces_language_not_its_authors(w: World) -> None:
    w.slack.locales[ALICE] = "de-DE"
    w.link(ALICE)
    with team_scope(TEAM):
        _send(w)  # no language chosen, no installer on record: English
        w.deps.records.workspace_languages.put(TEAM, WorkspaceLanguage(lang="de"))
        _send(w)
    first, second = w.slack.roots()
    assert first.text == t("root.queued", "en", user=ALICE)
    assert second.text == t("root.queued", "de", user=ALICE)
    assert "Warteschlange" in second.text


def test_a_root_in_a_direct_message_is_in_its_authors_language(w: World) -> None:
    w.slack.locales[ALICE] = "de-DE"
    w.link(ALICE)
    w.slack.closed_channels.add(CHANNEL)
    with team_scope(TEAM):
        _send(w)
    intro, root, _ = w.slack.roots(f"D-{ALICE}")
    assert intro.text == t("slack.dm_fallback", "de", channel=CHANNEL)
    assert root.text == t("root.queued", "de", user=ALICE)


def test_a_recorded_brief_survives_slack_being_down_and_is_sent_by_its_timer(w: World) -> None:
    w.link(ALICE)
    w.slack.refuse["chat.postMessage"] = [slack_error("chat.postMessage", "fatal", status=503)]
    req = _send(w)
    assert w.slack.roots() == [] and w.service.created == []
    [(request_id, _)] = w.timers.sends
    assert request_id == req.id
    recovery.resume_one(w.deps, req.id)  # the send timer
    assert "is queued" in _root_text(w) and len(w.service.created) == 1


def test_a_retry_pressed_while_the_failure_is_being_recorded_waits_for_it(w: World) -> None:
    # The failure shows (with its Retry button) before its state is recorded; a press that
    # arrives in between must not be lost.
    w.link(ALICE)
    req = _send(w)
    failure = Failure(code="service_unavailable")
    w.deps.records.requests.update(req.id, lambda r: r.model_copy(update={"failure": failure}))
    created_before = len(w.service.created)

    def record_the_state() -> None:
        time.sleep(0.3)
        w.deps.records.requests.update(req.id, lambda r: r.model_copy(update={"state": "failed"}))

    recorder = threading.Thread(target=record_the_state)
    recorder.start()
    try:
        assert requests.retry(w.deps, req.id, acting_user=ALICE) is True
    finally:
        recorder.join()
    assert len(w.service.created) == created_before + 1  # sent again, not dropped
