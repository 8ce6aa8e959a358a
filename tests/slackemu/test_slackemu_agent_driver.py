"""The driver on Slack's AI-app surfaces: it opens the Messages tab, writes there, picks a
suggested prompt, presses feedback and card buttons, uses a message shortcut and runs a workflow
step — signed like every request, and only as the app's manifest allows."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.signature import SignatureVerifier
from slack_sdk.webhook import WebhookClient
from slackemu_helpers import (
    SIGNING_SECRET,
    EmuSetup,
    FakeClock,
    Received,
    RecordingApp,
    agent_manifest,
    agent_workspace,
    button,
    modal,
    section,
)

from suggestbot.slackemu import DriverError, SlackCloud, SlackDriver, SlackEmulator


@pytest.fixture
def ws(clock: FakeClock) -> Iterator[EmuSetup]:
    """A workspace whose app declares the agent view (overrides the conftest workspace)."""
    with agent_workspace(clock) as setup:
        yield setup


def _json(received: Received) -> dict[str, Any]:
    decoded: dict[str, Any] = json.loads(received.body)
    return decoded


def _interaction(received: Received) -> dict[str, Any]:
    form = parse_qs(received.body.decode())
    payload: dict[str, Any] = json.loads(form["payload"][0])
    return payload


def _signed(received: Received) -> bool:
    return SignatureVerifier(SIGNING_SECRET).is_valid(
        body=received.body.decode(),
        timestamp=received.headers["x-slack-request-timestamp"],
        signature=received.headers["x-slack-signature"],
    )


def _error(call: Any) -> dict[str, Any]:
    with pytest.raises(SlackApiError) as refused:
        call()
    response: dict[str, Any] = refused.value.response.data
    return response


# -- the Messages tab ------------------------------------------------------------------------
def test_opening_the_messages_tab_sends_app_home_opened_for_the_messages_tab(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    answer = driver.open_messages_tab(ws.alice)
    assert answer is not None and answer.acked_in_time
    received = recording_app.received[-1]
    assert _signed(received)
    event = _json(received)["event"]
    assert event["type"] == "app_home_opened"
    assert (event["tab"], event["user"]) == ("messages", ws.alice)
    assert event["channel"] == ws.emu.dm_channel(ws.alice)
    assert "view" not in event


def test_writing_in_the_messages_tab_sends_a_message_im_event(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    posted = driver.message_in_messages_tab(ws.alice, "Spring sale for runners")
    assert posted.delivery is not None and posted.delivery.acked_in_time
    event = _json(recording_app.received[-1])["event"]
    assert (event["type"], event["channel_type"]) == ("message", "im")
    assert (event["channel"], event["ts"]) == (posted.channel, posted.ts)
    assert event["text"] == "Spring sale for runners"
    assert ws.emu.transcript(posted.channel) == "DM with alice\nalice: Spring sale for runners"

    driver.message_in_messages_tab(ws.alice, "shorter", thread_ts=posted.ts)
    reply = _json(recording_app.received[-1])["event"]
    assert reply["thread_ts"] == posted.ts


@pytest.mark.parametrize(
    ("app_home", "problem"),
    [
        ({"messages_tab_enabled": False}, "no Messages tab"),
        ({"messages_tab_read_only_enabled": True}, "read-only"),
    ],
)
def test_the_messages_tab_is_only_there_as_the_manifest_declares(
    clock: FakeClock, recording_app: RecordingApp, app_home: dict[str, Any], problem: str
) -> None:
    with (
        agent_workspace(clock, agent_manifest(**app_home)) as setup,
        SlackDriver(setup.emu, app_url=recording_app.url, signing_secret=SIGNING_SECRET) as d,
    ):
        with pytest.raises(DriverError, match=problem):
            d.message_in_messages_tab(setup.alice, "hello")
        if app_home.get("messages_tab_enabled") is False:
            with pytest.raises(DriverError, match=problem):
                d.open_messages_tab(setup.alice)
            assert recording_app.received == []
        else:
            assert d.open_messages_tab(setup.alice) is not None  # open, but no typing
            assert [_json(r)["event"]["tab"] for r in recording_app.received] == ["messages"]


def test_events_the_manifest_does_not_subscribe_are_not_delivered(
    clock: FakeClock, recording_app: RecordingApp
) -> None:
    manifest = agent_manifest()
    manifest["settings"]["event_subscriptions"]["bot_events"] = []
    with (
        agent_workspace(clock, manifest) as setup,
        SlackDriver(setup.emu, app_url=recording_app.url, signing_secret=SIGNING_SECRET) as d,
    ):
        assert d.open_messages_tab(setup.alice) is None
        posted = d.message_in_messages_tab(setup.alice, "hello")
        assert posted.delivery is None
        assert d.post_user_message(setup.alice, setup.general, "in a channel").delivery is None
        assert setup.emu.messages(posted.channel)[0]["text"] == "hello"
    assert recording_app.received == []


# -- suggested prompts -----------------------------------------------------------------------
def test_picking_a_suggested_prompt_sends_its_message_as_the_person(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    dm = ws.emu.dm_channel(ws.alice)
    ws.client.assistant_threads_setSuggestedPrompts(
        channel_id=dm,
        prompts=[
            {"title": "Win-back email", "message": "Win-back email for lapsed runners"},
            {"title": "Launch post", "message": "Social post for the trail shoe launch"},
        ],
    )
    posted = driver.pick_suggested_prompt(ws.alice, "Launch post")
    event = _json(recording_app.received[-1])["event"]
    assert (event["user"], event["text"]) == (ws.alice, "Social post for the trail shoe launch")
    assert event["channel"] == dm == posted.channel
    with pytest.raises(DriverError, match="offered: \\['Win-back email', 'Launch post'\\]"):
        driver.pick_suggested_prompt(ws.alice, "Digest")
    with pytest.raises(DriverError, match="offered: \\[\\]"):
        driver.pick_suggested_prompt(ws.bob, "Launch post")  # prompts are per conversation


# -- feedback and card buttons ---------------------------------------------------------------
FEEDBACK_BLOCKS = [
    section("*Variant 1* — Run into spring"),
    {
        "type": "context_actions",
        "block_id": "fb-v1",
        "elements": [
            {
                "type": "feedback_buttons",
                "action_id": "variant_feedback",
                "positive_button": {
                    "text": {"type": "plain_text", "text": "👍"},
                    "value": "up:v1",
                },
                "negative_button": {
                    "text": {"type": "plain_text", "text": "👎"},
                    "value": "down:v1",
                },
            }
        ],
    },
]


def test_pressing_feedback_sends_block_actions_with_the_pressed_value(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    ts = ws.client.chat_postMessage(channel=ws.general, text="Variant 1", blocks=FEEDBACK_BLOCKS)[
        "ts"
    ]
    message = ws.emu.messages(ws.general)[-1]
    assert ws.emu.transcript(ws.general).splitlines()[-1] == "    [👍] [👎]"

    for positive, value, text in ((True, "up:v1", "👍"), (False, "down:v1", "👎")):
        driver.press_feedback(message, positive=positive, user_id=ws.bob)
        payload = _interaction(recording_app.received[-1])
        assert payload["type"] == "block_actions"
        assert payload["container"]["message_ts"] == ts
        assert payload["user"]["id"] == ws.bob
        (action,) = payload["actions"]
        assert (action["type"], action["action_id"], action["block_id"]) == (
            "feedback_buttons",
            "variant_feedback",
            "fb-v1",
        )
        assert (action["value"], action["text"]["text"]) == (value, text)

    plain = ws.client.chat_postMessage(channel=ws.general, text="no feedback here")
    with pytest.raises(DriverError, match="no feedback buttons"):
        driver.press_feedback(
            {"channel": ws.general, "ts": plain["ts"]}, positive=True, user_id=ws.bob
        )


def test_a_button_on_a_card_in_a_carousel_is_pressed_like_any_button(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    cards = [
        {
            "type": "card",
            "block_id": f"card-{i}",
            "title": {"type": "mrkdwn", "text": f"Variant {i}"},
            "body": {"type": "mrkdwn", "text": f"Body {i}"},
            "actions": [button(f"Refine {i}", "refine", value=f"v{i}")],
        }
        for i in (1, 2)
    ]
    ws.client.chat_postMessage(
        channel=ws.general, text="2 variants", blocks=[{"type": "carousel", "elements": cards}]
    )
    message = ws.emu.messages(ws.general)[-1]
    assert ws.emu.transcript(ws.general).splitlines()[-6:] == [
        "    [card 1/2] Variant 1",
        "        Body 1",
        "        [Refine 1]",
        "    [card 2/2] Variant 2",
        "        Body 2",
        "        [Refine 2]",
    ]
    driver.press_button(message, "Refine 2", user_id=ws.alice)
    (action,) = _interaction(recording_app.received[-1])["actions"]
    assert (action["block_id"], action["action_id"], action["value"]) == ("card-2", "refine", "v2")


# -- message shortcuts -----------------------------------------------------------------------
def test_a_message_shortcut_sends_message_action_with_the_message_and_a_live_trigger(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    typed = driver.post_user_message(ws.alice, ws.general, "Our trail shoe launches in May")
    message = next(m for m in ws.emu.messages(ws.general) if m["ts"] == typed.ts)
    answer = driver.use_message_shortcut(message, "turn_into_brief", user_id=ws.bob)
    assert answer.acked_in_time
    received = recording_app.received[-1]
    assert _signed(received)
    payload = _interaction(received)
    assert payload["type"] == "message_action"
    assert payload["callback_id"] == "turn_into_brief"
    assert (payload["user"]["id"], payload["channel"]["id"]) == (ws.bob, ws.general)
    assert payload["message_ts"] == typed.ts
    assert payload["message"]["text"] == "Our trail shoe launches in May"
    assert payload["message"]["user"] == ws.alice

    opened = ws.client.views_open(trigger_id=payload["trigger_id"], view=modal([section("x")]))
    assert opened["ok"] and ws.emu.current_view(ws.bob) is not None
    link = ws.client.chat_getPermalink(channel=ws.general, message_ts=payload["message_ts"])
    assert link["permalink"].endswith(typed.ts.replace(".", ""))
    assert WebhookClient(payload["response_url"]).send(text="Brief started").body == "ok"
    assert [e["text"] for e in ws.emu.ephemerals(ws.bob)] == ["Brief started"]


def test_only_declared_message_shortcuts_exist_and_only_on_visible_messages(
    ws: EmuSetup, driver: SlackDriver
) -> None:
    typed = driver.post_user_message(ws.alice, ws.random, "private thoughts")
    message = {"channel": ws.random, "ts": typed.ts}
    with pytest.raises(DriverError, match="declared: \\['turn_into_brief'\\]"):
        driver.use_message_shortcut(message, "summarize", user_id=ws.alice)
    with pytest.raises(DriverError, match="not in random"):
        driver.use_message_shortcut(message, "turn_into_brief", user_id=ws.bob)


# -- workflow steps --------------------------------------------------------------------------
STEP_INPUTS = {"brief": "Spring sale for runners", "variant_count": 2}


def _run_step(ws: EmuSetup, driver: SlackDriver) -> tuple[str, str]:
    step = driver.run_workflow_step(
        "generate_suggestions", inputs={**STEP_INPUTS, "channel": ws.general}, user_id=ws.alice
    )
    assert step.delivery.acked_in_time
    return step.function_execution_id, step.delivery.body


def test_a_workflow_step_sends_function_executed_with_a_token_for_that_execution(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    execution_id, _ = _run_step(ws, driver)
    received = recording_app.received[-1]
    assert _signed(received)
    event = _json(received)["event"]
    assert event["type"] == "function_executed"
    assert event["function_execution_id"] == execution_id
    assert event["inputs"] == {**STEP_INPUTS, "channel": ws.general}
    assert event["function"]["callback_id"] == "generate_suggestions"
    assert [p["name"] for p in event["function"]["output_parameters"]] == [
        "permalink",
        "first_variant",
    ]
    assert [p["is_required"] for p in event["function"]["input_parameters"]] == [
        True,
        False,
        True,
    ]
    token = event["bot_access_token"]
    assert token.startswith("xwfp-") and token != ws.emu.bot_token
    assert "token" not in json.dumps(ws.emu.function_executions())  # tests never see it

    step_client = WebClient(token=token, base_url=ws.emu.api_url)
    posted = step_client.chat_postMessage(channel=ws.general, text="Variant 1 …")
    permalink = step_client.chat_getPermalink(channel=ws.general, message_ts=posted["ts"])
    outputs = {"permalink": permalink["permalink"], "first_variant": "Variant 1 …"}
    assert step_client.functions_completeSuccess(
        function_execution_id=execution_id, outputs=outputs
    )["ok"]
    assert ws.emu.function_execution(execution_id)["state"] == "completed"
    assert ws.emu.function_execution(execution_id)["outputs"] == outputs

    expired = _error(lambda: step_client.chat_postMessage(channel=ws.general, text="late"))
    assert expired["error"] == "token_expired"
    again = _error(
        lambda: ws.client.functions_completeSuccess(
            function_execution_id=execution_id, outputs=outputs
        )
    )
    assert again["error"] == "function_execution_not_found"
    assert ws.emu.function_execution(execution_id)["completions_refused"] == 1
    assert ws.emu.function_execution(execution_id)["outputs"] == outputs


def test_a_step_completes_only_with_outputs_that_match_the_manifest(
    ws: EmuSetup, driver: SlackDriver
) -> None:
    execution_id, _ = _run_step(ws, driver)
    for outputs, message in [
        (
            {"permalink": "https://emu.slack.com/archives/C1/p1"},
            "[ERROR] missing required field: first_variant [json-pointer:/outputs]",
        ),
        (
            {"permalink": "p", "first_variant": "v", "score": 3},
            "[ERROR] unknown parameter: score [json-pointer:/outputs/score]",
        ),
        (
            {"permalink": "p", "first_variant": 7},
            "[ERROR] must be a string [json-pointer:/outputs/first_variant]",
        ),
    ]:
        refused = _error(
            lambda outputs=outputs: ws.client.functions_completeSuccess(
                function_execution_id=execution_id, outputs=outputs
            )
        )
        assert refused["error"] == "parameter_validation_failed"
        assert refused["response_metadata"]["messages"] == [message]
    assert ws.emu.function_execution(execution_id)["state"] == "running"
    unknown = _error(
        lambda: ws.client.functions_completeSuccess(function_execution_id="Fx0NOPE", outputs={})
    )
    assert unknown["error"] == "function_execution_not_found"


def test_a_step_fails_once_with_a_readable_error(ws: EmuSetup, driver: SlackDriver) -> None:
    execution_id, _ = _run_step(ws, driver)
    blank = _error(
        lambda: ws.client.functions_completeError(function_execution_id=execution_id, error=" ")
    )
    assert blank["error"] == "invalid_arguments"
    assert ws.client.functions_completeError(
        function_execution_id=execution_id, error="The service could not write variants."
    )["ok"]
    execution = ws.emu.function_execution(execution_id)
    assert (execution["state"], execution["error"]) == (
        "failed",
        "The service could not write variants.",
    )
    late = _error(
        lambda: ws.client.functions_completeSuccess(
            function_execution_id=execution_id, outputs={"permalink": "p", "first_variant": "v"}
        )
    )
    assert late["error"] == "function_execution_not_found"


def test_only_declared_steps_run_and_only_with_their_inputs(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    with pytest.raises(DriverError, match="declared: \\['generate_suggestions'\\]"):
        driver.run_workflow_step("summarize", inputs={}, user_id=ws.alice)
    with pytest.raises(DriverError, match="missing required field: channel"):
        driver.run_workflow_step("generate_suggestions", inputs=STEP_INPUTS, user_id=ws.alice)
    with pytest.raises(DriverError, match="must be a channel id"):
        driver.run_workflow_step(
            "generate_suggestions", inputs={**STEP_INPUTS, "channel": "general"}, user_id=ws.alice
        )
    with pytest.raises(DriverError, match="must be an integer"):
        driver.run_workflow_step(
            "generate_suggestions",
            inputs={"brief": "b", "variant_count": "2", "channel": ws.general},
            user_id=ws.alice,
        )
    assert recording_app.received == [] and ws.emu.function_executions() == []


def test_function_executed_cannot_be_subscribed_as_a_bot_event() -> None:
    manifest = agent_manifest()
    manifest["settings"]["event_subscriptions"]["bot_events"].append("function_executed")
    with pytest.raises(ValueError, match="function_executed"):
        SlackEmulator(manifest=manifest)


def test_a_step_token_is_routed_to_its_own_workspace_behind_one_address(
    clock: FakeClock, recording_app: RecordingApp
) -> None:
    north = SlackEmulator(team_id="T0NORTH", team_domain="north", clock=clock)
    south = SlackEmulator(
        team_id="T0SOUTH", team_domain="south", clock=clock, manifest=agent_manifest()
    )
    with (
        SlackCloud(north, south) as cloud,
        SlackDriver(south, app_url=recording_app.url, signing_secret=SIGNING_SECRET) as d,
    ):
        sam = south.add_user("U0SAM", "sam")
        channel = south.add_channel("launches", members=[sam])
        step = d.run_workflow_step(
            "generate_suggestions", inputs={"brief": "b", "channel": channel}, user_id=sam
        )
        token = _json(recording_app.received[-1])["event"]["bot_access_token"]
        client = WebClient(token=token, base_url=cloud.api_url)
        assert client.functions_completeSuccess(
            function_execution_id=step.function_execution_id,
            outputs={"permalink": "https://south.slack.com/archives/C1/p1", "first_variant": "v"},
        )["ok"]
        assert south.function_execution(step.function_execution_id)["state"] == "completed"
