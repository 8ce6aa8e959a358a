"""Telling one person something: response_url first, then an ephemeral (in the thread when
there is one), then a direct message; a refusal a DM cannot get round is raised."""

from __future__ import annotations

import json

import httpx
import pytest
from flows_helpers import ALICE, CHANNEL, World, slack_error, world
from slack_sdk.errors import SlackApiError

from suggestbot.flows.common import telling
from suggestbot.ui.blocks.results import Message

NOTE = Message("Only you can see this", [])


@pytest.fixture
def w() -> World:
    return world()


@pytest.fixture
def response_urls(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, object]]:
    """What reaches the response_url; it answers 200, or 404 for a URL ending in /gone."""
    sent: list[dict[str, object]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/gone"):
            return httpx.Response(404)
        sent.append(json.loads(request.read()))
        return httpx.Response(200)

    client = httpx.Client(transport=httpx.MockTransport(answer))
    monkeypatch.setattr(telling, "_RESPONSE_URLS", client)
    return sent


def test_a_response_url_is_tried_first(w: World, response_urls: list[dict[str, object]]) -> None:
    told = telling.tell(
        w.deps,
        user_id=ALICE,
        channel_id=CHANNEL,
        message=NOTE,
        response_url="https://hooks.slack.test/actions/1",
    )
    assert told == "response_url"
    assert [r["replace_original"] for r in response_urls] == [False]
    assert response_urls[0]["response_type"] == "ephemeral"
    assert w.slack.ephemerals == []


def test_a_failed_response_url_falls_back_to_an_ephemeral_in_the_thread(
    w: World, response_urls: list[dict[str, object]]
) -> None:
    told = telling.tell(
        w.deps,
        user_id=ALICE,
        channel_id=CHANNEL,
        message=NOTE,
        thread_ts="1700000001.000100",
        response_url="https://hooks.slack.test/actions/gone",
    )
    assert told == "ephemeral"
    [ephemeral] = w.slack.ephemerals
    assert (ephemeral.user, ephemeral.channel, ephemeral.thread_ts) == (
        ALICE,
        CHANNEL,
        "1700000001.000100",
    )


def test_a_channel_the_bot_is_not_in_gets_a_direct_message(w: World) -> None:
    w.slack.closed_channels.add(CHANNEL)
    assert telling.tell(w.deps, user_id=ALICE, channel_id=CHANNEL, message=NOTE) == "dm"
    [dm] = w.slack.roots(f"D-{ALICE}")
    assert dm.text == NOTE.text


def test_a_refusal_a_direct_message_cannot_mend_is_raised(w: World) -> None:
    w.slack.refuse["chat.postEphemeral"] = [slack_error("chat.postEphemeral", "invalid_blocks")]
    with pytest.raises(SlackApiError):
        telling.tell(w.deps, user_id=ALICE, channel_id=CHANNEL, message=NOTE)
    assert w.slack.roots(f"D-{ALICE}") == []


def test_replacing_the_pressed_message_needs_a_response_url(
    response_urls: list[dict[str, object]],
) -> None:
    assert telling.replace_pressed(None, NOTE) is False
    assert telling.replace_pressed("https://hooks.slack.test/actions/2", NOTE) is True
    assert [r["replace_original"] for r in response_urls] == [True]
