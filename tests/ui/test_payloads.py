"""Pure predicates over Slack payload shapes."""

from __future__ import annotations

from typing import Any

from suggestbot.ui.blocks import ids
from suggestbot.ui.blocks.digests import QUIET
from suggestbot.ui.payloads import (
    ButtonPlace,
    acting_user,
    action_value,
    button_place,
    delivery_key,
    delivery_person,
    digest_form,
    parse_command,
    pressed_action_id,
    submitted_view,
    view_values,
    workspace_of,
)


def test_parse_command_keeps_the_brief_as_typed() -> None:
    assert parse_command("") == ("help", "")
    assert parse_command(None) == ("help", "")
    assert parse_command("  Brief   Spring launch\nfor hikers ") == (
        "brief",
        "Spring launch\nfor hikers",
    )
    assert parse_command("brief\nline one") == ("brief", "line one")
    assert parse_command("STATUS") == ("status", "")


def test_delivery_key_by_event_id_or_trigger_id() -> None:
    assert delivery_key({"type": "event_callback", "event_id": "Ev1"}) == "event:Ev1"
    assert delivery_key({"command": "/suggest", "trigger_id": "t1"}) == "command:t1"
    assert delivery_key({"type": "block_actions", "trigger_id": "t2"}) == "block_actions:t2"
    assert delivery_key({"type": "view_closed"}) is None


def test_view_values_reads_text_and_selects() -> None:
    view = {
        "state": {
            "values": {
                "brief_text": {"brief_text": {"type": "plain_text_input", "value": "hi"}},
                "segment": {
                    "segment": {
                        "type": "static_select",
                        "selected_option": {"value": "s1", "text": {"text": "Hikers"}},
                    }
                },
                "empty": {"x": {"type": "static_select", "selected_option": None}},
            }
        }
    }
    assert view_values(view) == {"brief_text": "hi", "segment": "s1", "empty": None}


# -- button presses ------------------------------------------------------------------------------


def _press(**parts: Any) -> dict[str, Any]:
    """A ``block_actions`` body as Slack sends it for a button in a channel message."""
    body: dict[str, Any] = {
        "type": "block_actions",
        "user": {"id": "U0ALICE", "team_id": "T1"},
        "team": {"id": "T1"},
        "trigger_id": "1.2.abc",
        "container": {"type": "message", "message_ts": "111.1", "channel_id": "C1"},
        "channel": {"id": "C1"},
        "message": {"ts": "111.1", "text": "root"},
        "actions": [{"action_id": "retry", "value": "req-1"}],
    }
    body.update(parts)
    return body


def test_action_value_and_id_of_the_button_pressed() -> None:
    assert action_value(_press()) == "req-1"
    assert pressed_action_id(_press()) == "retry"
    no_value = _press(actions=[{"action_id": "home_refresh"}])
    assert action_value(no_value) == ""
    assert pressed_action_id(no_value) == "home_refresh"
    assert action_value({"type": "block_actions"}) == ""
    assert pressed_action_id({"type": "block_actions"}) == ""


def test_button_place_of_a_root_message_is_its_own_thread() -> None:
    place = button_place(_press())
    assert place == ButtonPlace(channel="C1", thread_ts="111.1", message_ts="111.1")


def test_button_place_of_a_reply_names_the_thread_root() -> None:
    reply = _press(
        container={"type": "message", "message_ts": "222.2", "channel_id": "C1", "thread_ts": "1"},
        message={"ts": "222.2", "thread_ts": "1"},
    )
    assert button_place(reply) == ButtonPlace("C1", "1", "222.2")
    # Without a container (an older shape), the message itself says where it is.
    bare = _press(message={"ts": "333.3", "thread_ts": "2"})
    del bare["container"]
    assert button_place(bare) == ButtonPlace("C1", "2", "333.3")


def test_button_place_of_an_ephemeral_message_comes_from_the_container() -> None:
    ephemeral = _press(
        container={
            "type": "message",
            "message_ts": "444.4",
            "channel_id": "C2",
            "is_ephemeral": True,
        }
    )
    del ephemeral["channel"], ephemeral["message"]
    assert button_place(ephemeral) == ButtonPlace("C2", "444.4", "444.4")


def test_button_place_on_app_home_has_no_channel() -> None:
    home = _press(container={"type": "view", "view_id": "V1"})
    del home["channel"], home["message"]
    assert button_place(home) == ButtonPlace(None, None, None)


def test_acting_user_prefers_the_persons_team_and_falls_back_to_the_payloads() -> None:
    assert acting_user(_press()) == ("T1", "U0ALICE")
    grid = _press(user={"id": "U0BOB"}, team={"id": "T9"})
    assert acting_user(grid) == ("T9", "U0BOB")
    assert acting_user(_press(user={"id": "U0BOB"}, team=None)) == ("", "U0BOB")


def test_workspace_of_prefers_the_payloads_team() -> None:
    assert workspace_of(_press(user={"id": "U1", "team_id": "T_HOME"}, team={"id": "T_APP"})) == (
        "T_APP"
    )
    assert workspace_of(_press(team=None)) == "T1"
    assert workspace_of({}) == ""


def test_delivery_person_of_an_interaction_and_of_an_event() -> None:
    assert delivery_person(_press()) == ("U0ALICE", "C1")
    event = {"type": "event_callback", "event": {"type": "message", "user": "U2", "channel": "C3"}}
    assert delivery_person(event) == ("U2", "C3")
    assert delivery_person({"type": "view_submission", "user": {"id": "U3"}}) == ("U3", None)


def test_submitted_view_only_for_a_view_submission() -> None:
    view = {"callback_id": "brief", "state": {"values": {}}}
    assert submitted_view({"type": "view_submission", "view": view}) == view
    assert submitted_view({"type": "view_closed", "view": view}) is None
    assert submitted_view({"type": "view_submission", "view": "nonsense"}) is None
    assert submitted_view({"type": "block_actions"}) is None


# -- the "add digest" modal ------------------------------------------------------------------------


def _select(value: str | None) -> dict[str, Any]:
    option = {"value": value, "text": {"type": "plain_text", "text": value}} if value else None
    return {"type": "static_select", "selected_option": option}


def _digest_view(**values: dict[str, Any]) -> dict[str, Any]:
    return {"state": {"values": {block: {block: action} for block, action in values.items()}}}


def test_digest_form_reads_every_field() -> None:
    view = _digest_view(
        **{
            ids.INPUT_DIGEST_SEGMENT: _select("seg-1"),
            ids.INPUT_DIGEST_USE_CASE: _select("uc-1"),
            ids.INPUT_DIGEST_TIME: {"type": "timepicker", "selected_time": "09:30"},
            ids.INPUT_DIGEST_TZ: {"type": "plain_text_input", "value": "  Europe/Berlin "},
            ids.INPUT_DIGEST_WEEKDAYS: {
                "type": "checkboxes",
                "selected_options": [{"value": "4"}, {"value": "0"}, {"value": "4"}],
            },
            ids.INPUT_DIGEST_QUIET: {"type": "radio_buttons", "selected_option": {"value": QUIET}},
        }
    )
    assert digest_form(view) == {
        "segment_id": "seg-1",
        "use_case_id": "uc-1",
        "time": "09:30",
        "tz": "Europe/Berlin",
        "weekdays": [0, 4],
        "quiet": True,
    }


def test_digest_form_left_empty_reads_as_nothing_chosen() -> None:
    view = _digest_view(
        **{
            ids.INPUT_DIGEST_SEGMENT: _select(None),
            ids.INPUT_DIGEST_WEEKDAYS: {
                "type": "checkboxes",
                "selected_options": [{"value": "monday"}],
            },
        }
    )
    assert digest_form(view) == {
        "segment_id": None,
        "use_case_id": None,
        "time": "",
        "tz": "",
        "weekdays": [],
        "quiet": False,
    }
