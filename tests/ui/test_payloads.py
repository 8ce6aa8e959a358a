"""Pure predicates over Slack payload shapes."""

from __future__ import annotations

from suggestbot.ui.payloads import delivery_key, parse_command, view_values


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
