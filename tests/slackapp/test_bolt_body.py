"""The parse_body work-around (``slackapp/bolt_body.py``) and the bug it works around.

``test_bolt_still_misreads_a_form_that_mentions_payload`` pins slack_bolt's own behaviour: when
it fails, Bolt reads such bodies correctly and the work-around can go (see the module).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

import pytest
from slack_bolt import App, BoltRequest
from slack_bolt.authorization import AuthorizeResult
from slack_bolt.request.internals import parse_body
from slack_sdk import WebClient

from suggestbot.slackapp.bolt_body import ParsedBodyRequest
from suggestbot.slackapp.inbound import parse_slack_body

FORM = "application/x-www-form-urlencoded"


def command_form(**changes: str) -> str:
    # shape: bolt-python tests/scenario_tests/test_slash_command.py (slash_command_body)
    fields = {
        "token": "verification-token",
        "team_id": "T111",
        "team_domain": "acme",
        "channel_id": "C111",
        "channel_name": "marketing",
        "user_id": "W111",
        "user_name": "alice",
        "command": "/suggest",
        "text": "help",
        "api_app_id": "A111",
        "is_enterprise_install": "false",
        "response_url": "https://hooks.slack.com/commands/T111/111/xxx",
        "trigger_id": "111.111.xxx",
    }
    fields.update(changes)
    return urlencode(fields)


MENTIONS_PAYLOAD = {
    "in its text": {"text": "brief Our new backpack: its payload capacity"},
    "in the channel's name": {"channel_name": "payload-team"},
    "in the user's name": {"user_name": "payload.pete"},
}


@pytest.mark.parametrize("changes", MENTIONS_PAYLOAD.values(), ids=MENTIONS_PAYLOAD.keys())
def test_bolt_still_misreads_a_form_that_mentions_payload(changes: dict[str, str]) -> None:
    # If this fails, slack_bolt was fixed: remove slackapp/bolt_body.py as its docstring says.
    assert parse_body(command_form(**changes), FORM) == {}


@pytest.mark.parametrize("changes", MENTIONS_PAYLOAD.values(), ids=MENTIONS_PAYLOAD.keys())
def test_a_command_that_mentions_payload_is_read_as_the_command(changes: dict[str, str]) -> None:
    body = parse_slack_body(command_form(**changes), content_type=FORM)
    assert body["command"] == "/suggest"
    assert {k: body[k] for k in changes} == changes


def test_interactive_and_event_bodies_are_read_as_json() -> None:
    action = {"type": "block_actions", "user": {"id": "W111"}, "actions": []}
    form = urlencode({"payload": json.dumps(action)})
    assert parse_slack_body(form, content_type=FORM) == action
    event = {"type": "event_callback", "event": {"type": "message", "text": "payload=1"}}
    assert parse_slack_body(json.dumps(event), content_type="application/json") == event


def dispatched_command(request: BoltRequest) -> tuple[int, list[dict[str, Any]]]:
    """Dispatch ``request`` to an app with one ``/suggest`` listener; what the listener saw."""
    app = App(
        client=WebClient(base_url="http://127.0.0.1:9/"),
        signing_secret="secret",
        request_verification_enabled=False,
        # Authorized without a call to Slack: only the listener matching is under test.
        authorize=lambda **_: AuthorizeResult(
            enterprise_id=None, team_id="T111", bot_token="xoxb-test", bot_user_id="UBOT"
        ),
        process_before_response=True,
    )
    seen: list[dict[str, Any]] = []

    @app.command("/suggest")
    def command(ack: Any, command: dict[str, Any]) -> None:
        seen.append(command)
        ack()

    response = app.dispatch(request)
    return response.status, seen


@pytest.mark.parametrize("changes", MENTIONS_PAYLOAD.values(), ids=MENTIONS_PAYLOAD.keys())
def test_bolt_answers_404_to_its_own_request_but_handles_the_parsed_one(
    changes: dict[str, str],
) -> None:
    text = command_form(**changes)
    headers: dict[str, Any] = {"content-type": FORM}
    assert dispatched_command(BoltRequest(body=text, headers=headers)) == (404, [])

    parsed = ParsedBodyRequest(
        raw_body=text, body=parse_slack_body(text, content_type=FORM), headers=headers
    )
    status, seen = dispatched_command(parsed)
    assert status == 200
    assert [{k: c[k] for k in changes} for c in seen] == [changes]
    assert parsed.raw_body == text  # what Bolt's signature check reads
    assert parsed.context.team_id == "T111" and parsed.context.user_id == "W111"


def test_a_copy_for_lazy_listeners_keeps_the_parsed_body() -> None:
    text = command_form(text="brief payload")
    parsed = ParsedBodyRequest(
        raw_body=text,
        body=parse_slack_body(text, content_type=FORM),
        headers={"content-type": FORM},
    )
    copy = parsed.to_copyable()
    assert isinstance(copy, ParsedBodyRequest)
    assert copy.body == parsed.body and copy.body["text"] == "brief payload"
