"""Modals and App Home: the views.* methods, and the driver filling and submitting a modal the
way a person does, with the app's response_action applied like Slack applies it."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs

import pytest
from slack_sdk.errors import SlackApiError
from slackemu_helpers import (
    EmuSetup,
    Received,
    RecordingApp,
    button,
    modal,
    options,
    section,
    text_input,
)

from suggestbot.slackemu import ClientRejected, DriverError, SlackDriver


def _payload(received: Received) -> dict[str, Any]:
    decoded: dict[str, Any] = json.loads(parse_qs(received.body.decode())["payload"][0])
    return decoded


def _answer(body: dict[str, Any] | None) -> tuple[int, str, str]:
    return 200, json.dumps(body) if body is not None else "", "application/json"


def brief_modal(**extra: Any) -> dict[str, Any]:
    return modal(
        [
            section("Describe the campaign."),
            text_input("Brief", "brief", multiline=True, max_length=3000, min_length=5),
            {
                "type": "input",
                "block_id": "segment",
                "label": {"type": "plain_text", "text": "Segment"},
                "element": {
                    "type": "static_select",
                    "action_id": "value",
                    "options": options("New customers", "Loyal customers"),
                },
            },
            {
                "type": "input",
                "block_id": "channel",
                "label": {"type": "plain_text", "text": "Channel"},
                "element": {
                    "type": "radio_buttons",
                    "action_id": "value",
                    "options": options("Email", "Social"),
                    "initial_option": options("Email")[0],
                },
            },
            {
                "type": "input",
                "block_id": "extras",
                "optional": True,
                "label": {"type": "plain_text", "text": "Extras"},
                "element": {
                    "type": "checkboxes",
                    "action_id": "value",
                    "options": options("Image", "Emoji"),
                },
            },
            {
                "type": "input",
                "block_id": "variants",
                "label": {"type": "plain_text", "text": "Variants"},
                "element": {
                    "type": "number_input",
                    "action_id": "value",
                    "is_decimal_allowed": False,
                    "min_value": "1",
                    "max_value": "3",
                    "initial_value": "1",
                },
            },
        ],
        **extra,
    )


def _open(ws: EmuSetup, view: dict[str, Any] | None = None) -> dict[str, Any]:
    opened = ws.client.views_open(
        trigger_id=ws.emu.issue_trigger(ws.alice), view=view or brief_modal()
    )
    result: dict[str, Any] = opened["view"]
    return result


# -- views.* methods -------------------------------------------------------------------------
def test_views_open_returns_the_stored_view_and_the_user_sees_it(ws: EmuSetup) -> None:
    view = _open(ws)
    assert view["id"].startswith("V") and view["root_view_id"] == view["id"]
    assert view["state"] == {"values": {}} and view["hash"]
    assert view["callback_id"] == "brief" and view["previous_view_id"] is None
    assert ws.emu.current_view(ws.alice) == view
    assert ws.emu.current_view(ws.bob) is None


def test_views_push_stacks_up_to_three_modals(ws: EmuSetup) -> None:
    root = _open(ws)
    pushed = [
        ws.client.views_push(
            trigger_id=ws.emu.issue_trigger(ws.alice), view=modal([section(str(i))])
        )
        for i in range(2)
    ]
    assert pushed[0]["view"]["previous_view_id"] == root["id"]
    assert pushed[1]["view"]["root_view_id"] == root["id"]
    with pytest.raises(SlackApiError) as full:
        ws.client.views_push(trigger_id=ws.emu.issue_trigger(ws.alice), view=modal([section("4")]))
    assert full.value.response["error"] == "push_limit_reached"
    assert len(ws.emu.modal_stack(ws.alice)) == 3


def test_views_update_checks_the_hash_and_keeps_the_id(ws: EmuSetup) -> None:
    view = _open(ws, brief_modal(external_id="brief-U0ALICE"))
    with pytest.raises(SlackApiError) as stale:
        ws.client.views_update(view_id=view["id"], hash="1.stale", view=modal([section("x")]))
    assert stale.value.response["error"] == "hash_conflict"

    updated = ws.client.views_update(
        external_id="brief-U0ALICE", hash=view["hash"], view=modal([section("Sending…")])
    )["view"]
    assert updated["id"] == view["id"] and updated["hash"] != view["hash"]
    assert ws.emu.view_transcript(ws.alice) == "[New brief]\n    Sending…\n    [Cancel] [Send]"
    with pytest.raises(SlackApiError) as gone:
        ws.client.views_update(view_id="V0NOPE", view=modal([section("x")]))
    assert gone.value.response["error"] == "not_found"


def test_views_publish_sets_the_users_home_tab(ws: EmuSetup) -> None:
    first = ws.client.views_publish(user_id=ws.bob, view={"type": "home", "blocks": [section("1")]})
    again = ws.client.views_publish(
        user_id=ws.bob, view={"type": "home", "blocks": [section("2")]}, hash=first["view"]["hash"]
    )
    assert again["view"]["id"] == first["view"]["id"]
    home = ws.emu.home_view(ws.bob)
    assert home is not None and home["blocks"][0]["text"]["text"] == "2"
    with pytest.raises(SlackApiError) as as_modal:
        ws.client.views_publish(user_id=ws.bob, view=modal([section("x")]))
    assert as_modal.value.response["error"] == "invalid_arguments"


# -- filling and submitting ------------------------------------------------------------------
def test_submit_fills_inputs_by_label_in_slacks_state_shape(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    _open(ws)
    result = driver.submit_view(
        ws.alice,
        {
            "Brief": "Spring sale for runners",
            "Segment": "Loyal customers",
            "Extras": ["Image"],
            "Variants": 3,
        },
    )

    payload = _payload(recording_app.received[-1])
    assert payload["type"] == "view_submission" and payload["trigger_id"]
    values = payload["view"]["state"]["values"]
    assert values["brief"]["value"] == {
        "type": "plain_text_input",
        "value": "Spring sale for runners",
    }
    assert values["segment"]["value"]["selected_option"]["value"] == "loyal-customers"
    assert values["channel"]["value"]["selected_option"]["text"]["text"] == "Email"  # initial
    assert [o["value"] for o in values["extras"]["value"]["selected_options"]] == ["image"]
    assert values["variants"]["value"] == {"type": "number_input", "value": "3"}
    assert result.response_action is None and result.view is None  # plain ack closes it


def test_the_client_refuses_what_slack_would_not_send(ws: EmuSetup, driver: SlackDriver) -> None:
    _open(ws)
    with pytest.raises(ClientRejected) as refused:
        driver.submit_view(ws.alice, {"Brief": "tiny", "Variants": 4})
    assert refused.value.problems == {
        "Brief": "Must be at least 5 characters.",
        "Segment": "Please complete this required field.",
        "Variants": "Must be 3 or less.",
    }
    with pytest.raises(ClientRejected, match="Brief: Must be 3000 characters or fewer"):
        driver.submit_view(ws.alice, {"Brief": "x" * 3001, "Segment": "New customers"})
    with pytest.raises(DriverError, match="no option 'Old customers'"):
        driver.submit_view(ws.alice, {"Brief": "hello", "Segment": "Old customers"})
    with pytest.raises(DriverError, match="no input labelled"):
        driver.submit_view(ws.alice, {"Budget": "100"})


def test_response_action_errors_are_reported_by_label_and_keep_the_modal_open(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    view = _open(ws)
    recording_app.reply = lambda r: _answer(
        {"response_action": "errors", "errors": {"brief": "Brief has control characters"}}
    )
    result = driver.submit_view(ws.alice, {"Brief": "hello\x07", "Segment": "New customers"})

    assert result.response_action == "errors"
    assert result.errors == {"Brief": "Brief has control characters"}
    assert result.errors_by_block_id == {"brief": "Brief has control characters"}
    assert result.view is not None and result.view["id"] == view["id"]
    assert result.view["state"]["values"]["brief"]["value"]["value"] == "hello\x07"


def test_errors_naming_non_input_blocks_are_a_problem_not_field_errors(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    _open(ws)
    recording_app.reply = lambda r: _answer(
        {"response_action": "errors", "errors": {"no-such-block": "x"}}
    )
    result = driver.submit_view(ws.alice, {"Brief": "hello", "Segment": "New customers"})
    assert result.errors == {}
    assert result.problem is not None and "no-such-block" in result.problem


def test_update_push_and_clear_change_the_stack_as_slack_does(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    view = _open(ws)
    filled = {"Brief": "hello", "Segment": "New customers"}

    recording_app.reply = lambda r: _answer(
        {"response_action": "update", "view": modal([section("Sent!")], submit=None)}
    )
    updated = driver.submit_view(ws.alice, filled)
    assert updated.view is not None and updated.view["id"] == view["id"]
    assert ws.emu.view_transcript(ws.alice) == "[New brief]\n    Sent!\n    [Cancel]"

    recording_app.reply = lambda r: _answer(
        {"response_action": "push", "view": modal([text_input("Why", "why")])}
    )
    second = _open(ws)  # views.open starts a new stack
    pushed = driver.submit_view(ws.alice, filled)
    assert len(ws.emu.modal_stack(ws.alice)) == 2
    assert pushed.view is not None and pushed.view["previous_view_id"] == second["id"]

    recording_app.reply = lambda r: _answer({"response_action": "clear"})
    driver.submit_view(ws.alice, {"Why": "because"})
    assert ws.emu.current_view(ws.alice) is None


def test_an_invalid_update_view_is_a_problem_and_the_modal_stays(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    view = _open(ws)
    too_long_title = modal([section("x")], title={"type": "plain_text", "text": "t" * 25})
    recording_app.reply = lambda r: _answer({"response_action": "update", "view": too_long_title})
    result = driver.submit_view(ws.alice, {"Brief": "hello", "Segment": "New customers"})
    assert result.problem is not None and "/view/title/text" in result.problem
    still_open = ws.emu.current_view(ws.alice)
    assert still_open is not None and still_open["id"] == view["id"]
    assert any("view_submission" in w for w in ws.emu.warnings)


def test_a_late_submission_answer_leaves_the_modal_open(
    ws: EmuSetup, recording_app: RecordingApp
) -> None:
    _open(ws)
    ticks = iter([0.0, 3.2])
    with SlackDriver(
        ws.emu,
        app_url=recording_app.url,
        signing_secret="emu-test-signing-secret",
        timer=lambda: next(ticks),
    ) as slow:
        result = slow.submit_view(ws.alice, {"Brief": "hello", "Segment": "New customers"})
    assert result.problem is not None and result.problem.startswith("timeout")
    assert ws.emu.current_view(ws.alice) is not None


def test_external_select_options_come_from_the_app(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    _open(
        ws,
        modal(
            [
                {
                    "type": "input",
                    "block_id": "use_case",
                    "label": {"type": "plain_text", "text": "Use case"},
                    "element": {"type": "external_select", "action_id": "pick"},
                }
            ]
        ),
    )

    def reply(received: Received) -> tuple[int, str, str]:
        if _payload(received)["type"] == "block_suggestion":
            return _answer({"options": options("Welcome mail", "Win-back")})
        return _answer(None)

    recording_app.reply = reply
    driver.submit_view(ws.alice, {"Use case": "Win-back"})

    suggestion, submission = (_payload(r) for r in recording_app.received)
    assert (suggestion["action_id"], suggestion["value"]) == ("pick", "Win-back")
    chosen = submission["view"]["state"]["values"]["use_case"]["pick"]["selected_option"]
    assert chosen["value"] == "win-back"


# -- closing and buttons inside views ----------------------------------------------------------
def test_closing_sends_view_closed_only_when_asked(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    _open(ws)
    assert driver.close_view(ws.alice) is None
    assert recording_app.received == []

    _open(ws, brief_modal(notify_on_close=True))
    driver.close_view(ws.alice, clear=True)
    payload = _payload(recording_app.received[0])
    assert payload["type"] == "view_closed" and payload["is_cleared"] is True
    assert payload["view"]["callback_id"] == "brief"
    assert ws.emu.current_view(ws.alice) is None


def test_buttons_in_modals_and_home_send_the_view_as_container(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    actions = {"type": "actions", "elements": [button("Rename thread", "rename")]}
    view = _open(ws, modal([section("Thread"), actions]))
    driver.press_button(view, "Rename thread", user_id=ws.alice)
    home = ws.client.views_publish(user_id=ws.alice, view={"type": "home", "blocks": [actions]})
    driver.press_button(home["view"], "Rename thread", user_id=ws.alice)

    in_modal, in_home = (_payload(r) for r in recording_app.received)
    assert in_modal["container"] == {"type": "view", "view_id": view["id"]}
    assert in_modal["view"]["id"] == view["id"] and "response_url" not in in_modal
    assert in_home["view"]["type"] == "home"
    with pytest.raises(DriverError):
        driver.press_button(view, "Rename thread", user_id=ws.bob)
