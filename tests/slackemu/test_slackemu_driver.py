"""The driver talks to an app as Slack does: signed requests, Slack's payloads, retries,
response_url semantics, and the ack shown to the user."""

from __future__ import annotations

import json
import threading
from itertools import count
from typing import Any
from urllib.parse import parse_qs

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.signature import SignatureVerifier
from slack_sdk.webhook import WebhookClient
from slackemu_helpers import (
    SIGNING_SECRET,
    EmuSetup,
    Received,
    RecordingApp,
    button,
    options,
    section,
)

from suggestbot.slackemu import DriverError, SlackDriver
from suggestbot.slackemu.model import BOT_USER_ID


def _form(received: Received) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(received.body.decode()).items()}


def _interaction(received: Received) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads(_form(received)["payload"])
    return payload


def _json(received: Received) -> dict[str, Any]:
    decoded: dict[str, Any] = json.loads(received.body)
    return decoded


# -- signing ---------------------------------------------------------------------------------
def test_every_request_is_signed_so_signature_verifier_accepts_it(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    driver.slash_command(ws.alice, ws.general, "brief spring sale")
    driver.post_user_message(ws.alice, ws.general, "hello")
    driver.app_home_opened(ws.bob)

    assert len(recording_app.received) == 3
    right, wrong = SignatureVerifier(SIGNING_SECRET), SignatureVerifier("another-secret")
    for received in recording_app.received:
        timestamp = received.headers["x-slack-request-timestamp"]
        signature = received.headers["x-slack-signature"]
        body = received.body.decode()
        assert right.is_valid(body=body, timestamp=timestamp, signature=signature)
        assert not wrong.is_valid(body=body, timestamp=timestamp, signature=signature)
        assert not right.is_valid(body=body + " ", timestamp=timestamp, signature=signature)


# -- slash commands ------------------------------------------------------------------------
def test_slash_command_is_form_encoded_with_a_live_response_url_and_trigger(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    answer = driver.slash_command(ws.alice, ws.general, "brief spring sale")
    assert answer.status == 200 and answer.acked_in_time

    received = recording_app.received[0]
    assert received.headers["content-type"] == "application/x-www-form-urlencoded"
    form = _form(received)
    assert form["command"] == "/suggest"
    assert form["text"] == "brief spring sale"
    assert (form["user_id"], form["user_name"]) == (ws.alice, "alice")
    assert (form["channel_id"], form["channel_name"]) == (ws.general, "general")
    assert form["team_id"] == ws.emu.team_id
    assert form["response_url"].startswith(f"{ws.emu.url}/hooks/commands/")

    assert WebhookClient(form["response_url"]).send(text="on it").body == "ok"
    assert ws.emu.ephemeral_transcript(ws.alice) == (
        "Only visible to alice\nsuggestbot (app) in #general: on it"
    )


def test_a_trigger_id_opens_one_modal_within_three_seconds(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    view = {
        "type": "modal",
        "title": {"type": "plain_text", "text": "Brief"},
        "blocks": [section("hi")],
    }
    driver.slash_command(ws.alice, ws.general, "brief")
    trigger = _form(recording_app.received[-1])["trigger_id"]
    assert ws.client.views_open(trigger_id=trigger, view=view)["ok"]
    with pytest.raises(SlackApiError) as reused:
        ws.client.views_open(trigger_id=trigger, view=view)
    assert reused.value.response["error"] == "exchanged_trigger_id"

    driver.slash_command(ws.alice, ws.general, "brief")
    late = _form(recording_app.received[-1])["trigger_id"]
    ws.clock.advance(3.001)
    with pytest.raises(SlackApiError) as expired:
        ws.client.views_open(trigger_id=late, view=view)
    assert expired.value.response["error"] == "expired_trigger_id"
    with pytest.raises(SlackApiError) as unknown:
        ws.client.views_open(trigger_id="1.2.made-up", view=view)
    assert unknown.value.response["error"] == "invalid_arguments"


def test_ack_text_of_a_slash_command_is_shown_to_the_user_only(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    recording_app.reply = lambda r: (200, json.dumps({"text": "Working on it"}), "application/json")
    driver.slash_command(ws.alice, ws.general, "brief")
    recording_app.reply = lambda r: (
        200,
        json.dumps({"response_type": "in_channel", "text": "Shared with everyone"}),
        "application/json",
    )
    driver.slash_command(ws.alice, ws.general, "share")

    assert [e["text"] for e in ws.emu.ephemerals(ws.alice)] == ["Working on it"]
    assert ws.emu.transcript(ws.general) == "#general\nsuggestbot (app): Shared with everyone"


@pytest.mark.parametrize(
    ("status", "elapsed", "error"),
    [(500, 0.1, "dispatch_failed"), (200, 3.5, "operation_timeout")],
)
def test_a_failed_or_late_command_shows_slacks_error(
    ws: EmuSetup,
    recording_app: RecordingApp,
    status: int,
    elapsed: float,
    error: str,
) -> None:
    recording_app.reply = lambda r: (status, "", "text/plain")
    ticks = count()
    fake_timer = lambda: next(ticks) * elapsed  # noqa: E731 - start 0, end `elapsed`
    with SlackDriver(
        ws.emu, app_url=recording_app.url, signing_secret=SIGNING_SECRET, timer=fake_timer
    ) as slow:
        answer = slow.slash_command(ws.alice, ws.general, "brief")

    assert answer.elapsed_s == elapsed
    assert answer.acked_in_time is False
    assert ws.emu.ephemeral_transcript(ws.alice) == (
        f'Only visible to alice\nSlackbot in #general: /suggest failed with the error "{error}"'
    )


def test_a_command_from_outside_the_channel_is_impossible(
    ws: EmuSetup, driver: SlackDriver
) -> None:
    with pytest.raises(DriverError):
        driver.slash_command(ws.bob, ws.random, "brief")
    ws.emu.join(ws.random, ws.bob)
    assert driver.slash_command(ws.bob, ws.random, "brief").status == 200


# -- response_url -----------------------------------------------------------------------------
def test_response_url_posts_follow_slacks_rules(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    driver.slash_command(ws.alice, ws.random, "brief")  # the bot is not in #random
    hook = WebhookClient(_form(recording_app.received[0])["response_url"])

    assert hook.send(text="just you").status_code == 200
    assert hook.send(text="everyone", response_type="in_channel").status_code == 200
    refused = hook.send(text="t", blocks=[section("a" * 3001)])
    assert (refused.status_code, refused.body) == (400, "invalid_blocks")

    assert [e["text"] for e in ws.emu.ephemerals(ws.alice, ws.random)] == ["just you"]
    assert ws.emu.transcript(ws.random) == "#random\nsuggestbot (app): everyone"
    assert hook.send(text="4").status_code == 200
    assert hook.send(text="5").status_code == 200
    used_up = hook.send(text="6")
    assert (used_up.status_code, used_up.body) == (404, "used_url")


def test_response_url_expires_after_30_minutes(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    driver.slash_command(ws.alice, ws.general, "brief")
    hook = WebhookClient(_form(recording_app.received[0])["response_url"])
    ws.clock.advance(30 * 60 + 1)
    expired = hook.send(text="too late")
    assert (expired.status_code, expired.body) == (404, "expired_url")


# -- buttons -----------------------------------------------------------------------------------
def _post_with_buttons(ws: EmuSetup, **kwargs: Any) -> str:
    blocks = [
        section("Variant 1"),
        {
            "type": "actions",
            "block_id": "variant-actions",
            "elements": [
                button("Refine…", "refine", value="v1"),
                button("Retry", "retry", style="danger"),
            ],
        },
    ]
    posted = ws.client.chat_postMessage(channel=ws.general, text="v1", blocks=blocks, **kwargs)
    return str(posted["ts"])


def test_pressing_a_button_sends_block_actions_with_container_message_and_response_url(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    root = ws.client.chat_postMessage(channel=ws.general, text="root")["ts"]
    ts = _post_with_buttons(ws, thread_ts=root)
    message = ws.emu.messages(ws.general, thread_ts=root)[1]

    driver.press_button(message, "Retry", user_id=ws.bob)

    payload = _interaction(recording_app.received[-1])
    assert payload["type"] == "block_actions"
    assert payload["user"]["id"] == ws.bob
    assert payload["container"] == {
        "type": "message",
        "message_ts": ts,
        "channel_id": ws.general,
        "is_ephemeral": False,
        "thread_ts": root,
    }
    assert payload["channel"] == {"id": ws.general, "name": "general"}
    assert payload["message"]["ts"] == ts and payload["message"]["blocks"][1]["elements"]
    (action,) = payload["actions"]
    assert (action["action_id"], action["block_id"], action["style"]) == (
        "retry",
        "variant-actions",
        "danger",
    )
    assert action["text"]["text"] == "Retry"
    assert payload["trigger_id"] and payload["response_url"].startswith(f"{ws.emu.url}/hooks/")


def _post_with_selects(ws: EmuSetup) -> str:
    def select(placeholder: str, action_id: str, *labels: str) -> dict[str, Any]:
        return {
            "type": "static_select",
            "action_id": action_id,
            "placeholder": {"type": "plain_text", "text": placeholder},
            "options": options(*labels),
        }

    blocks = [
        {
            "type": "actions",
            "block_id": "choices",
            "elements": [
                select("Segment", "segment", "Hikers", "Runners"),
                select("Also", "also", "Hikers"),
            ],
        }
    ]
    return str(ws.client.chat_postMessage(channel=ws.general, text="pick", blocks=blocks)["ts"])


def test_picking_an_option_in_a_message_sends_the_selected_option(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    ts = _post_with_selects(ws)
    [message] = [m for m in ws.emu.messages(ws.general) if m["ts"] == ts]
    driver.pick_option(message, "Runners", user_id=ws.bob)
    payload = _interaction(recording_app.received[-1])
    assert payload["type"] == "block_actions"
    (action,) = payload["actions"]
    assert (action["type"], action["action_id"], action["block_id"]) == (
        "static_select",
        "segment",
        "choices",
    )
    assert action["selected_option"] == {
        "text": {"type": "plain_text", "text": "Runners"},
        "value": "runners",
    }
    # Two selects offer it: the person must say which; nothing offers it: they cannot pick it.
    with pytest.raises(DriverError, match="2 selects offer 'Hikers'"):
        driver.pick_option(message, "Hikers", user_id=ws.bob)
    driver.pick_option(message, "Hikers", user_id=ws.bob, placeholder="Also")
    assert _interaction(recording_app.received[-1])["actions"][0]["action_id"] == "also"
    with pytest.raises(DriverError, match="no select offers 'Climbers'"):
        driver.pick_option(message, "Climbers", user_id=ws.bob)


def test_response_url_of_a_button_can_replace_or_delete_the_message(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    _post_with_buttons(ws)
    driver.press_button(ws.emu.messages(ws.general)[0], "Refine…", user_id=ws.alice)
    hook = WebhookClient(_interaction(recording_app.received[-1])["response_url"])

    hook.send(text="Refining", blocks=[section("Refining variant 1")], replace_original=True)
    assert (
        ws.emu.transcript(ws.general) == "#general\nsuggestbot (app) (edited): Refining variant 1"
    )
    hook.send(delete_original=True)
    assert ws.emu.messages(ws.general) == []


def test_buttons_in_ephemeral_messages_come_without_the_message(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    blocks = [{"type": "actions", "elements": [button("Connect", "connect")]}]
    ws.client.chat_postEphemeral(channel=ws.general, user=ws.alice, text="link", blocks=blocks)
    (ephemeral,) = ws.emu.ephemerals(ws.alice)

    with pytest.raises(DriverError):
        driver.press_button(ephemeral, "Connect", user_id=ws.bob)
    driver.press_button(ephemeral, "Connect", user_id=ws.alice)

    payload = _interaction(recording_app.received[-1])
    assert payload["container"]["is_ephemeral"] is True
    assert "message" not in payload
    WebhookClient(payload["response_url"]).send(text="Connected", replace_original=True)
    assert [e["text"] for e in ws.emu.ephemerals(ws.alice)] == ["Connected"]


def test_a_button_that_is_not_there_cannot_be_pressed(ws: EmuSetup, driver: SlackDriver) -> None:
    _post_with_buttons(ws)
    with pytest.raises(DriverError, match=r"buttons here: \['Refine…', 'Retry'\]"):
        driver.press_button(ws.emu.messages(ws.general)[0], "Approve", user_id=ws.alice)


# -- Events API ------------------------------------------------------------------------------
def test_events_come_in_an_event_callback_envelope_and_retries_carry_headers(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    event = {"type": "app_mention", "user": ws.alice, "text": "hi", "channel": ws.general}
    driver.event(event, event_id="Ev0TEST")
    driver.event(event, event_id="Ev0TEST", retry_num=2, retry_reason="http_error")

    first, retry = recording_app.received
    assert first.headers["content-type"] == "application/json"
    assert "x-slack-retry-num" not in first.headers
    assert (retry.headers["x-slack-retry-num"], retry.headers["x-slack-retry-reason"]) == (
        "2",
        "http_error",
    )
    envelope = _json(first)
    assert envelope["type"] == "event_callback"
    assert envelope["event_id"] == "Ev0TEST" == _json(retry)["event_id"]
    assert envelope["event"] == event
    assert envelope["team_id"] == ws.emu.team_id
    assert envelope["authorizations"][0]["user_id"] == ws.emu.bot_user_id


def test_a_retry_can_arrive_while_the_first_delivery_is_still_running(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    retry_arrived = threading.Event()

    def reply(received: Received) -> tuple[int, str, str]:
        if "x-slack-retry-num" in received.headers:
            retry_arrived.set()
        else:
            assert retry_arrived.wait(5), "the retry never came while this one ran"
        return 200, "", "text/plain"

    recording_app.reply = reply
    result = driver.deliver_with_retry_while_running(
        {"type": "message", "user": ws.alice, "text": "refine: shorter", "channel": ws.general}
    )

    assert result.overlapped is True
    assert (result.first.status, result.retry.status) == (200, 200)
    first, retry = sorted(recording_app.received, key=lambda r: "x-slack-retry-num" in r.headers)
    assert first.body == retry.body  # the same event, same event_id
    assert retry.headers["x-slack-retry-num"] == "1"
    assert retry.headers["x-slack-retry-reason"] == "http_timeout"
    assert _json(retry)["event_id"] == result.event_id


def test_a_person_typing_in_a_channel_reaches_the_app_as_a_message_event(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    root = driver.post_user_message(ws.alice, ws.general, "brief: spring sale")
    reply = driver.post_user_message(ws.bob, ws.general, "make it shorter", thread_ts=root.ts)

    root_event, reply_event = (_json(r)["event"] for r in recording_app.received)
    assert root_event["type"] == "message"
    assert (root_event["user"], root_event["text"], root_event["ts"]) == (
        ws.alice,
        "brief: spring sale",
        root.ts,
    )
    assert root_event["channel_type"] == "channel" and "thread_ts" not in root_event
    assert (reply_event["thread_ts"], reply_event["parent_user_id"]) == (root.ts, ws.alice)
    assert ws.emu.messages(ws.general)[0]["reply_count"] == 1
    assert ws.emu.transcript(ws.general, thread_ts=root.ts) == (
        "Thread in #general\nalice: brief: spring sale\nbob: make it shorter"
    )
    assert reply.delivery is not None and reply.delivery.status == 200


def test_messages_where_the_bot_is_absent_are_not_delivered(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    posted = driver.post_user_message(ws.alice, ws.random, "nobody hears this")
    assert posted.delivery is None
    assert recording_app.received == []
    assert ws.emu.transcript(ws.random) == "#random\nalice: nobody hears this"

    dm = ws.emu.dm_channel(ws.alice)
    driver.post_user_message(ws.alice, dm, "hi bot")
    assert _json(recording_app.received[0])["event"]["channel_type"] == "im"


def test_app_home_opened_includes_the_published_home_view(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    driver.app_home_opened(ws.alice)
    ws.client.views_publish(user_id=ws.alice, view={"type": "home", "blocks": [section("Hi")]})
    driver.app_home_opened(ws.alice)

    before, after = (_json(r)["event"] for r in recording_app.received)
    assert before["type"] == "app_home_opened" and before["tab"] == "home"
    assert before["user"] == ws.alice and before["channel"].startswith("D")
    assert "view" not in before
    assert after["view"]["type"] == "home"
    assert after["view"]["blocks"][0]["text"]["text"] == "Hi"


# -- shapes that once went wrong -------------------------------------------------------------
def test_a_slash_command_carries_payload_in_its_fields_as_typed(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    pete = ws.emu.add_user("U0PAYLOAD", "payload.pete")
    team = ws.emu.add_channel("payload-team", members=[pete])
    driver.slash_command(pete, team, "brief its payload capacity")
    form = _form(recording_app.received[0])
    assert (form["user_name"], form["channel_name"]) == ("payload.pete", "payload-team")
    assert form["text"] == "brief its payload capacity" and "payload" not in form


def test_a_reply_with_files_is_a_file_share_message_event(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    root = driver.post_user_message(ws.alice, ws.general, "brief: spring sale")
    shared = driver.reply_with_files(
        ws.bob, ws.general, "like this", thread_ts=root.ts, filenames=("a.png", "b.pdf")
    )
    bare = driver.reply_with_files(ws.bob, ws.general, "", thread_ts=root.ts)
    with_text, without_text = (_json(r)["event"] for r in recording_app.received[1:])
    assert with_text["subtype"] == "file_share" and with_text["text"] == "like this"
    assert (with_text["upload"], with_text["display_as_bot"]) == (False, False)
    assert (with_text["thread_ts"], with_text["parent_user_id"]) == (root.ts, ws.alice)
    assert [f["name"] for f in with_text["files"]] == ["a.png", "b.pdf"]
    assert [f["mimetype"] for f in with_text["files"]] == ["image/png", "application/pdf"]
    assert with_text["files"][0]["user"] == ws.bob
    assert with_text["files"][0]["shares"]["public"][ws.general][0]["ts"] == shared.ts
    assert with_text["blocks"][0]["type"] == "rich_text"
    assert without_text["text"] == "" and "blocks" not in without_text
    assert bare.delivery is not None and bare.delivery.status == 200
    replies = ws.emu.messages(ws.general, thread_ts=root.ts)
    assert [len(m.get("files", [])) for m in replies[1:]] == [2, 1]


def test_revoking_tokens_tells_the_app_and_the_bot_token_stops_working(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    driver.revoke_tokens(user_ids=(ws.alice,))
    assert ws.client.auth_test()["ok"]
    driver.revoke_tokens(bot=True)
    people, bot = (_json(r)["event"] for r in recording_app.received)
    assert people["type"] == "tokens_revoked"
    assert people["tokens"] == {"oauth": [ws.alice], "bot": []}
    assert bot["tokens"] == {"oauth": [], "bot": [BOT_USER_ID]}
    with pytest.raises(SlackApiError) as refused:
        ws.client.auth_test()
    assert refused.value.response["error"] == "token_revoked"
