"""Every payload the driver sends is routed by a real Bolt app to the listener Slack's would be.

Bolt answers 404 when no listener matches a request, so a payload shape that drifted from
Slack's would show up here as a 404 or as a listener that never ran.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from slack_bolt import App
from slack_bolt.adapter.asgi import SlackRequestHandler
from slack_sdk import WebClient
from slackemu_helpers import agent_manifest, button, modal, options, section, text_input

from suggestbot.asgi_thread import BackgroundServer
from suggestbot.slackemu import SlackDriver, SlackEmulator

SECRET = "bolt-compat-secret"


@dataclass
class Bolted:
    emu: SlackEmulator
    driver: SlackDriver
    seen: list[str]
    alice: str
    channel: str


def _build(client: WebClient, seen: list[str]) -> App:
    app = App(client=client, signing_secret=SECRET)

    @app.command("/suggest")
    def command(ack: Callable[..., Any], command: dict[str, Any], respond: Any) -> None:
        seen.append(f"command:{command['text']}")  # before ack: keeps `seen` in order
        ack()
        respond(
            text="pick",
            blocks=[{"type": "actions", "elements": [button("Open form", "open_form")]}],
        )

    @app.action("open_form")
    def open_form(ack: Callable[..., Any], body: dict[str, Any], client: WebClient) -> None:
        seen.append(f"action:ephemeral={body['container']['is_ephemeral']}")
        ack()
        client.views_open(
            trigger_id=body["trigger_id"],
            view=modal(
                [
                    text_input("Brief", "brief"),
                    {
                        "type": "input",
                        "block_id": "use_case",
                        "label": {"type": "plain_text", "text": "Use case"},
                        "element": {"type": "external_select", "action_id": "use_case"},
                    },
                    {"type": "actions", "elements": [button("Help", "help")]},
                ],
                notify_on_close=True,
            ),
        )

    @app.options("use_case")
    def use_cases(ack: Callable[..., Any]) -> None:
        seen.append("options")
        ack(options=options("Welcome", "Win-back"))

    @app.action("help")
    def help_(ack: Callable[..., Any], body: dict[str, Any]) -> None:
        seen.append(f"action:in={body['container']['type']}")
        ack()

    @app.view("brief")
    def submitted(ack: Callable[..., Any], view: dict[str, Any]) -> None:
        values = view["state"]["values"]
        if len(values["brief"]["value"]["value"]) < 5:
            ack(response_action="errors", errors={"brief": "Too short"})
            return
        chosen = values["use_case"]["use_case"]["selected_option"]["value"]
        seen.append(f"view:{values['brief']['value']['value']}:{chosen}")
        ack()

    @app.view_closed("brief")
    def closed(ack: Callable[..., Any]) -> None:
        seen.append("closed")
        ack()

    @app.event("message")
    def message(event: dict[str, Any], say: Callable[..., Any]) -> None:
        seen.append(f"message:{event['text']}:{event.get('thread_ts') is not None}")
        say(text=f"echo {event['text']}", thread_ts=event.get("thread_ts") or event["ts"])

    @app.event("app_home_opened")
    def home(event: dict[str, Any], client: WebClient) -> None:
        seen.append("home")
        client.views_publish(
            user_id=event["user"], view={"type": "home", "blocks": [section("Welcome home")]}
        )

    return app


@pytest.fixture
def bolted() -> Iterator[Bolted]:
    seen: list[str] = []
    with SlackEmulator() as emu:
        alice = emu.add_user("U0ALICE", "alice")
        channel = emu.add_channel("marketing", members=[alice])
        emu.invite_bot(channel)
        app = _build(WebClient(token=emu.bot_token, base_url=emu.api_url), seen)
        with BackgroundServer(SlackRequestHandler(app), name="bolt-compat") as server:
            driver = SlackDriver(emu, app_url=f"{server.url}/slack/events", signing_secret=SECRET)
            try:
                yield Bolted(emu, driver, seen, alice, channel)
            finally:
                driver.close()


def _until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 5
    while not condition():
        assert time.monotonic() < deadline, "the app never got there"
        time.sleep(0.01)


def test_command_button_modal_options_submit_and_close_all_reach_bolt(bolted: Bolted) -> None:
    emu, driver, alice = bolted.emu, bolted.driver, bolted.alice

    assert driver.slash_command(alice, bolted.channel, "brief").status == 200
    _until(lambda: bool(emu.ephemerals(alice)))
    assert driver.press_button(emu.ephemerals(alice)[0], "Open form", user_id=alice).status == 200
    _until(lambda: emu.current_view(alice) is not None)
    view = driver.open_view(alice)
    assert driver.press_button(view, "Help", user_id=alice).status == 200

    too_short = driver.submit_view(alice, {"Brief": "hey", "Use case": "Welcome"})
    assert too_short.errors == {"Brief": "Too short"}
    done = driver.submit_view(alice, {"Brief": "spring sale", "Use case": "Win-back"})
    assert done.response.status == 200 and done.view is None

    driver.press_button(emu.ephemerals(alice)[0], "Open form", user_id=alice)
    _until(lambda: emu.current_view(alice) is not None)
    assert driver.close_view(alice) is not None

    _until(lambda: "closed" in bolted.seen)
    assert bolted.seen == [
        "command:brief",
        "action:ephemeral=True",
        "action:in=view",
        "options",
        "options",
        "view:spring sale:win-back",
        "action:ephemeral=True",
        "closed",
    ]


def test_messages_threads_and_app_home_reach_bolt(bolted: Bolted) -> None:
    emu, driver, alice = bolted.emu, bolted.driver, bolted.alice

    root = driver.post_user_message(alice, bolted.channel, "hello")
    _until(lambda: len(emu.messages(bolted.channel, thread_ts=root.ts)) == 2)
    driver.post_user_message(alice, bolted.channel, "again", thread_ts=root.ts)
    _until(lambda: len(emu.messages(bolted.channel, thread_ts=root.ts)) == 4)
    assert driver.app_home_opened(alice).status == 200
    _until(lambda: emu.home_view(alice) is not None)

    assert emu.transcript(bolted.channel, thread_ts=root.ts) == "\n".join(
        [
            "Thread in #marketing",
            "alice: hello",
            "suggestbot (app): echo hello",
            "alice: again",
            "suggestbot (app): echo again",
        ]
    )
    assert bolted.seen == ["message:hello:False", "message:again:True", "home"]


# -- the AI-app surfaces ---------------------------------------------------------------------
def _build_agent(client: WebClient, seen: list[str]) -> App:
    app = App(client=client, signing_secret=SECRET)

    @app.event("app_home_opened")
    def tab(event: dict[str, Any], client: WebClient) -> None:
        seen.append(f"tab:{event['tab']}")
        client.assistant_threads_setSuggestedPrompts(
            channel_id=event["channel"],
            prompts=[{"title": "Launch post", "message": "Social post for the trail shoe"}],
        )

    @app.event("message")
    def dm(event: dict[str, Any], client: WebClient, say: Callable[..., Any]) -> None:
        seen.append(f"dm:{event['text']}")
        client.assistant_threads_setStatus(
            channel_id=event["channel"], thread_ts=event["ts"], status="is writing…"
        )
        say(
            text="Variant 1",
            thread_ts=event["ts"],
            blocks=[
                section("Variant 1"),
                {
                    "type": "context_actions",
                    "elements": [
                        {
                            "type": "feedback_buttons",
                            "action_id": "variant_feedback",
                            "positive_button": {
                                "text": {"type": "plain_text", "text": "👍"},
                                "value": "up",
                            },
                            "negative_button": {
                                "text": {"type": "plain_text", "text": "👎"},
                                "value": "down",
                            },
                        }
                    ],
                },
            ],
        )

    @app.action("variant_feedback")
    def feedback(ack: Callable[..., Any], body: dict[str, Any]) -> None:
        seen.append(f"feedback:{body['actions'][0]['value']}")  # before ack: keeps the order
        ack()

    @app.shortcut("turn_into_brief")
    def shortcut(ack: Callable[..., Any], shortcut: dict[str, Any]) -> None:
        seen.append(f"shortcut:{shortcut['message']['text']}")
        ack()

    @app.function("generate_suggestions")
    def step(inputs: dict[str, Any], client: WebClient, complete: Callable[..., Any]) -> None:
        posted = client.chat_postMessage(channel=inputs["channel"], text=inputs["brief"])
        link = client.chat_getPermalink(channel=inputs["channel"], message_ts=posted["ts"])
        complete(outputs={"permalink": link["permalink"], "first_variant": inputs["brief"]})
        seen.append("step")

    return app


def test_messages_tab_prompts_feedback_shortcut_and_workflow_step_reach_bolt() -> None:
    seen: list[str] = []
    with SlackEmulator(manifest=agent_manifest()) as emu:
        alice = emu.add_user("U0ALICE", "alice")
        channel = emu.add_channel("launches", members=[alice])
        emu.invite_bot(channel)
        app = _build_agent(WebClient(token=emu.bot_token, base_url=emu.api_url), seen)
        with (
            BackgroundServer(SlackRequestHandler(app), name="bolt-agent") as server,
            SlackDriver(emu, app_url=f"{server.url}/slack/events", signing_secret=SECRET) as d,
        ):
            dm = emu.dm_channel(alice)
            assert d.open_messages_tab(alice) is not None
            _until(lambda: emu.suggested_prompts(dm) is not None)
            asked = d.pick_suggested_prompt(alice, "Launch post")
            _until(lambda: len(emu.messages(dm, thread_ts=asked.ts)) == 2)
            assert [c["cause"] for c in emu.status_history(dm, asked.ts)] == ["set", "reply"]
            answer = emu.messages(dm, thread_ts=asked.ts)[-1]
            assert d.press_feedback(answer, positive=False, user_id=alice).status == 200
            assert d.use_message_shortcut(answer, "turn_into_brief", user_id=alice).status == 200
            step = d.run_workflow_step(
                "generate_suggestions",
                inputs={"brief": "Trail shoe", "channel": channel},
                user_id=alice,
            )
            _until(lambda: emu.function_execution(step.function_execution_id)["state"] != "running")
            outcome = emu.function_execution(step.function_execution_id)
            assert outcome["state"] == "completed"
            assert outcome["outputs"]["first_variant"] == "Trail shoe"
            assert outcome["outputs"]["permalink"].startswith("https://emu.slack.com/archives/")
            _until(lambda: "step" in seen)
    assert seen == [
        "tab:messages",
        "dm:Social post for the trail shoe",
        "feedback:down",
        "shortcut:Variant 1",
        "step",
    ]
