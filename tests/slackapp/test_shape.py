"""Deliveries whose fields are missing or of the wrong type are answered before Bolt: 200 for
one of Slack's kinds (a command with plain words), 400 for a body that is not Slack's, one
WARNING line each, never a traceback — in unit form here, and over loopback HTTP with the
whole app (the four shapes of the report: a command without ``user_id``, an empty
``actions``, ``state.values`` of the wrong type, ``event: null``)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest

from suggestbot.demo.stage import ALICE, Stage
from suggestbot.slackapp.shape import misshapen
from suggestbot.slackemu import payloads
from suggestbot.ui.messages import t

COMMAND = {
    "command": "/suggest",
    "text": "help",
    "team_id": "T1",
    "user_id": "U1",
    "channel_id": "C1",
    "trigger_id": "1.2",
    "response_url": "https://hooks.slack.com/commands/x",
}
PRESS = {
    "type": "block_actions",
    "user": {"id": "U1", "team_id": "T1"},
    "team": {"id": "T1"},
    "container": {"type": "message", "channel_id": "C1", "message_ts": "1.1"},
    "channel": {"id": "C1"},
    "actions": [{"action_id": "a", "block_id": "b", "type": "button", "value": "v"}],
    "trigger_id": "1.3",
}
SUBMISSION = {
    "type": "view_submission",
    "user": {"id": "U1", "team_id": "T1"},
    "trigger_id": "1.4",
    "view": {
        "id": "V1",
        "type": "modal",
        "callback_id": "brief",
        "private_metadata": "",
        "state": {"values": {"b": {"a": {"type": "plain_text_input", "value": "x"}}}},
    },
}
EVENT = {
    "type": "event_callback",
    "team_id": "T1",
    "event_id": "Ev1",
    "event": {"type": "message", "user": "U1", "channel": "C1", "text": "hi", "ts": "1.1"},
}


def changed(body: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    copy = json.loads(json.dumps(body))
    *parents, last = path.split(".")
    target = copy
    for key in parents:
        target = target[int(key)] if isinstance(target, list) else target[key]
    if value is KeyError:
        del target[last]
    else:
        target[last] = value
    return copy


@pytest.mark.parametrize("body", [COMMAND, PRESS, SUBMISSION, EVENT])
def test_slacks_own_shapes_pass(body: dict[str, Any]) -> None:
    assert misshapen(body) is None


@pytest.mark.parametrize(
    ("body", "path", "value", "field"),
    [
        (COMMAND, "user_id", KeyError, "user_id"),
        (COMMAND, "channel_id", "", "channel_id"),
        (COMMAND, "team_id", KeyError, "team_id"),
        (COMMAND, "trigger_id", KeyError, "trigger_id"),
        (PRESS, "trigger_id", KeyError, "trigger_id"),
        (PRESS, "actions", [], "actions"),
        (PRESS, "actions", {"a": 1}, "actions"),
        (PRESS, "actions.0.action_id", 5, "actions.action_id"),
        (PRESS, "actions.0.selected_option", "v", "actions.selected_option"),
        (PRESS, "user", None, "user.id"),
        (PRESS, "channel", ["C1"], "channel"),
        (PRESS, "channel", "C1", "channel"),
        (PRESS, "trigger_id", "\ud800", "trigger_id"),
        (PRESS, "state", {"values": []}, "state.values"),
        (SUBMISSION, "view.state.values", [], "view.state.values"),
        (SUBMISSION, "view.state.values.b", "x", "view.state.values"),
        (SUBMISSION, "view.state.values.b.a.selected_option", "x", "view.state.values"),
        (SUBMISSION, "view", None, "view"),
        (SUBMISSION, "view.private_metadata", {"a": 1}, "view.private_metadata"),
        (SUBMISSION, "view.type", KeyError, "view"),
        (PRESS, "enterprise", 7, "enterprise"),
        (PRESS, "view", None, "view"),
        (SUBMISSION, "response_urls", None, "response_urls"),
        (SUBMISSION, "response_urls", "x", "response_urls"),
        (EVENT, "authorizations", ["x"], "authorizations"),
        (EVENT, "event.message", "x", "event.message"),
        (EVENT, "event", None, "event"),
        (EVENT, "event.type", None, "event.type"),
        (EVENT, "event.user", ["U1"], "event.user"),
        (EVENT, "event.blocks", "x", "event.blocks"),
    ],
)
def test_a_field_missing_or_of_the_wrong_type_is_answered_200(
    body: dict[str, Any], path: str, value: Any, field: str
) -> None:
    found = misshapen(changed(body, path, value))
    assert found is not None and (found.status, found.field) == (200, field)


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"type": 5},
        {"type": []},
        {"type": "nonsense"},
        {"type": "url_verification"},
        {"text": "hi"},
    ],
)
def test_a_body_that_is_not_slacks_is_400(body: dict[str, Any]) -> None:
    found = misshapen(body)
    assert found is not None and found.status == 400


FORM = "application/x-www-form-urlencoded"


@pytest.fixture(scope="module")
def stage(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stage]:
    with Stage(data_dir=tmp_path_factory.mktemp("shape") / "data") as running:
        yield running


@pytest.mark.loopback
def test_the_reported_shapes_get_200_and_a_warning_over_http(
    stage: Stage, caplog: pytest.LogCaptureFixture
) -> None:
    team = stage.emu.team_id
    command = {**COMMAND, "team_id": team, "channel_id": stage.channel}
    del command["user_id"]
    press = {**PRESS, "user": {"id": ALICE, "team_id": team}, "actions": []}
    submission = changed(SUBMISSION, "view.state.values", ["not", "a", "mapping"])
    submission["user"] = {"id": ALICE, "team_id": team}
    event = {**EVENT, "team_id": team, "event": None}
    with caplog.at_level(logging.WARNING):
        answers = {
            "command": stage.slack.send(urlencode(command).encode(), content_type=FORM),
            "press": stage.slack.send(payloads.interactive_form(press), content_type=FORM),
            "submission": stage.slack.send(
                payloads.interactive_form(submission), content_type=FORM
            ),
            "event": stage.slack.send(json.dumps(event).encode(), content_type="application/json"),
            "not slack's": stage.slack.send(b'{"hello": "world"}', content_type="application/json"),
        }
    statuses = {name: answer.status for name, answer in answers.items()}
    assert statuses == {
        "command": 200,
        "press": 200,
        "submission": 200,
        "event": 200,
        "not slack's": 400,
    }
    assert json.loads(answers["command"].body) == {
        "response_type": "ephemeral",
        "text": t("error.unreadable_command", "en"),
    }
    assert all(answer.elapsed_s < 3 for answer in answers.values())
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert not [r for r in caplog.records if r.exc_info]
    warned = [r.getMessage() for r in caplog.records if r.name == "suggestbot.slackapp.shape"]
    assert len(warned) == 5
    assert stage.slack.slash_command(ALICE, stage.channel, "help").status == 200


def test_a_body_nested_deeper_than_slacks_is_400() -> None:
    from suggestbot.slackapp.shape import misshapen_answer

    body: dict[str, Any] = {"type": "block_actions", "user": {"id": "U1"}}
    inner = body
    for _ in range(5000):
        inner["message"] = {}
        inner = inner["message"]
    answer = misshapen_answer(body)
    assert answer is not None and answer.status == 400


def test_a_lone_surrogate_outside_a_modals_inputs_is_not_text() -> None:
    reply = changed(EVENT, "event.text", "\ud800")
    assert misshapen(reply) is None  # the reply's: told its text is broken
    event = changed(EVENT, "event.channel", "C\ud800")
    assert misshapen(event) == (200, "event_callback", "event.channel")
    typed = changed(SUBMISSION, "view.state.values.b.a.value", "\ud800")
    assert misshapen(typed) is None  # the text guard's: the modal stays open with an error
