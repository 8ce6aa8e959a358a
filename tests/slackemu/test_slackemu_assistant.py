"""assistant.threads.*: the status line under a thread (set, renewed, cleared by an empty status
or by the app's reply, lapsing after two minutes), suggested prompts and thread titles — with
Slack's arguments, scopes and errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.webhook import WebhookClient
from slackemu_helpers import (
    EmuSetup,
    FakeClock,
    RecordingApp,
    agent_manifest,
    agent_workspace,
    button,
)

from suggestbot.slackemu import SlackDriver, SlackEmulator


@pytest.fixture
def ws(clock: FakeClock) -> Iterator[EmuSetup]:
    """A workspace whose app declares the agent view (overrides the conftest workspace)."""
    with agent_workspace(clock) as setup:
        yield setup


def _root(ws: EmuSetup) -> str:
    ts: str = ws.client.chat_postMessage(channel=ws.general, text="Spring sale brief")["ts"]
    return ts


def _error(call: Any) -> dict[str, Any]:
    with pytest.raises(SlackApiError) as refused:
        call()
    response: dict[str, Any] = refused.value.response.data
    return response


# -- the status line -------------------------------------------------------------------------
def test_status_shows_under_a_channel_thread_until_the_app_replies_there(ws: EmuSetup) -> None:
    root = _root(ws)
    ws.client.assistant_threads_setStatus(
        channel_id=ws.general,
        thread_ts=root,
        status="is writing your variants…",
        loading_messages=["Reading the brief", "Picking images"],
    )
    assert ws.emu.thread_status(ws.general, root) == {
        "at": ws.clock.now,
        "cause": "set",
        "status": "is writing your variants…",
        "loading_messages": ["Reading the brief", "Picking images"],
    }
    assert ws.emu.transcript(ws.general).splitlines()[-1] == (
        "    [status] suggestbot is writing your variants… (Reading the brief · Picking images)"
    )

    ws.client.chat_postMessage(channel=ws.general, text="elsewhere")  # not in the thread
    assert ws.emu.thread_status(ws.general, root) is not None
    ws.client.chat_postMessage(channel=ws.general, thread_ts=root, text="Variant 1")
    assert ws.emu.thread_status(ws.general, root) is None
    assert [c["cause"] for c in ws.emu.status_history(ws.general, root)] == ["set", "reply"]
    assert "[status]" not in ws.emu.transcript(ws.general, thread_ts=root)


def test_an_empty_status_clears_the_line(ws: EmuSetup) -> None:
    root = _root(ws)
    ws.client.assistant_threads_setStatus(channel_id=ws.general, thread_ts=root, status="")
    assert ws.emu.status_history(ws.general, root) == []  # nothing showed, nothing to clear
    ws.client.assistant_threads_setStatus(channel_id=ws.general, thread_ts=root, status="is busy")
    ws.client.assistant_threads_setStatus(channel_id=ws.general, thread_ts=root, status="")
    assert ws.emu.thread_status(ws.general, root) is None
    assert [c["cause"] for c in ws.emu.status_history(ws.general, root)] == ["set", "cleared"]


def test_the_status_lapses_two_minutes_after_it_was_last_set(ws: EmuSetup) -> None:
    root = _root(ws)
    set_at = ws.clock.now
    ws.client.assistant_threads_setStatus(channel_id=ws.general, thread_ts=root, status="is busy")
    ws.clock.advance(120)
    assert ws.emu.thread_status(ws.general, root) is not None
    ws.clock.advance(0.001)
    assert ws.emu.thread_status(ws.general, root) is None
    assert ws.emu.status_history(ws.general, root)[-1] == {
        "at": set_at + 120,
        "cause": "lapsed",
        "status": "",
        "loading_messages": [],
    }

    renewed = _root(ws)
    for _ in range(3):  # renewed every 100 s, it stays for 300 s
        ws.client.assistant_threads_setStatus(
            channel_id=ws.general, thread_ts=renewed, status="is busy"
        )
        ws.clock.advance(100)
    assert ws.emu.thread_status(ws.general, renewed) is not None


def test_a_status_set_on_a_reply_shows_under_its_thread(ws: EmuSetup) -> None:
    root = _root(ws)
    reply = ws.client.chat_postMessage(channel=ws.general, thread_ts=root, text="turn 1")["ts"]
    ws.client.assistant_threads_setStatus(channel_id=ws.general, thread_ts=reply, status="is busy")
    assert ws.emu.thread_status(ws.general, root) is not None


def test_loading_messages_hold_at_most_ten_non_empty_lines(ws: EmuSetup) -> None:
    root = _root(ws)

    def set_status(lines: list[str]) -> Any:
        return ws.client.assistant_threads_setStatus(
            channel_id=ws.general, thread_ts=root, status="is busy", loading_messages=lines
        )

    assert set_status([f"step {i}" for i in range(10)])["ok"]
    refused = _error(lambda: set_status([f"step {i}" for i in range(11)]))
    assert refused["error"] == "invalid_arguments"
    assert refused["response_metadata"]["messages"] == [
        "[ERROR] no more than 10 items allowed [json-pointer:/loading_messages]"
    ]
    blank = _error(lambda: set_status(["fine", " "]))
    assert blank["response_metadata"]["messages"] == [
        "[ERROR] must be more than 0 characters [json-pointer:/loading_messages/1]"
    ]


def test_set_status_errors_are_slacks(ws: EmuSetup) -> None:
    root = _root(ws)
    client = ws.client

    def status(**args: Any) -> Any:
        return lambda: client.api_call("assistant.threads.setStatus", json=args)

    base = {"channel_id": ws.general, "thread_ts": root, "status": "is busy"}
    assert _error(status(**{**base, "thread_ts": "1.000001"}))["error"] == "invalid_thread_ts"
    assert _error(status(**{**base, "channel_id": "C0NOPE"}))["error"] == "channel_not_found"
    assert _error(status(**{**base, "channel_id": ws.random}))["error"] == "not_in_channel"
    missing = _error(status(channel_id=ws.general, thread_ts=root))
    assert missing["error"] == "invalid_arguments"
    assert ws.emu.status_history(ws.general, root) == []


def test_set_status_needs_chat_write_and_prompts_and_titles_need_assistant_write() -> None:
    with SlackEmulator(manifest=agent_manifest(), scopes={"im:write", "chat:write"}) as emu:
        alice = emu.add_user("U0ALICE", "alice")
        dm = emu.dm_channel(alice)
        client = WebClient(token=emu.bot_token, base_url=emu.api_url)
        root = client.chat_postMessage(channel=dm, text="hi")["ts"]
        assert client.assistant_threads_setStatus(channel_id=dm, thread_ts=root, status="…")["ok"]
        for call in (
            lambda: client.assistant_threads_setSuggestedPrompts(
                channel_id=dm, prompts=[{"title": "t", "message": "m"}]
            ),
            lambda: client.assistant_threads_setTitle(channel_id=dm, thread_ts=root, title="t"),
        ):
            refused = _error(call)
            assert (refused["error"], refused["needed"]) == ("missing_scope", "assistant:write")
    with SlackEmulator(manifest=agent_manifest(), scopes={"assistant:write", "im:write"}) as emu:
        alice = emu.add_user("U0ALICE", "alice")
        client = WebClient(token=emu.bot_token, base_url=emu.api_url)
        refused = _error(
            lambda: client.assistant_threads_setStatus(
                channel_id=emu.dm_channel(alice), thread_ts="1.1", status="…"
            )
        )
        assert (refused["error"], refused["needed"]) == ("missing_scope", "chat:write")


# -- suggested prompts -----------------------------------------------------------------------
PROMPTS = [
    {"title": f"Brief {i}", "message": f"Write an email for segment {i}"} for i in range(1, 5)
]


def test_up_to_four_prompts_are_set_for_the_whole_messages_tab(ws: EmuSetup) -> None:
    dm = ws.emu.dm_channel(ws.alice)
    answer = ws.client.assistant_threads_setSuggestedPrompts(
        channel_id=dm, title="Start from a template", prompts=PROMPTS
    )
    assert answer["ok"]
    assert ws.emu.suggested_prompts(dm) == {"title": "Start from a template", "prompts": PROMPTS}

    five = [*PROMPTS, {"title": "Brief 5", "message": "m"}]
    refused = _error(
        lambda: ws.client.assistant_threads_setSuggestedPrompts(channel_id=dm, prompts=five)
    )
    assert refused["response_metadata"]["messages"] == [
        "[ERROR] no more than 4 items allowed [json-pointer:/prompts]"
    ]
    no_message = _error(
        lambda: ws.client.assistant_threads_setSuggestedPrompts(
            channel_id=dm, prompts=[{"title": "Brief"}]
        )
    )
    assert no_message["response_metadata"]["messages"] == [
        "[ERROR] missing required field: message [json-pointer:/prompts/0]"
    ]
    assert ws.emu.suggested_prompts(dm) == {"title": "Start from a template", "prompts": PROMPTS}


def test_an_agent_app_that_passes_thread_ts_is_silently_ignored(
    ws: EmuSetup, driver: SlackDriver
) -> None:
    posted = driver.message_in_messages_tab(ws.alice, "hello")
    answer = ws.client.assistant_threads_setSuggestedPrompts(
        channel_id=posted.channel, thread_ts=posted.ts, prompts=PROMPTS[:1]
    )
    assert answer["ok"]
    assert ws.emu.suggested_prompts(posted.channel) is None
    assert ws.emu.suggested_prompts(posted.channel, posted.ts) is None
    assert "thread_ts given to an agent_view app" in ws.emu.warnings[-1]


def test_prompts_and_titles_belong_to_the_bots_dms(ws: EmuSetup) -> None:
    root = _root(ws)
    for call in (
        lambda: ws.client.assistant_threads_setSuggestedPrompts(
            channel_id=ws.general, prompts=PROMPTS
        ),
        lambda: ws.client.assistant_threads_setTitle(
            channel_id=ws.general, thread_ts=root, title="Spring"
        ),
    ):
        assert _error(call)["error"] == "channel_not_found"


def test_an_app_without_an_ai_view_may_not_set_prompts() -> None:
    manifest = agent_manifest()
    del manifest["features"]["agent_view"]
    with SlackEmulator(manifest=manifest) as emu:
        alice = emu.add_user("U0ALICE", "alice")
        client = WebClient(token=emu.bot_token, base_url=emu.api_url)
        refused = _error(
            lambda: client.assistant_threads_setSuggestedPrompts(
                channel_id=emu.dm_channel(alice), prompts=PROMPTS
            )
        )
        assert refused["error"] == "access_denied"


def test_a_legacy_assistant_app_sets_prompts_per_thread() -> None:
    manifest = agent_manifest()
    manifest["features"]["assistant_view"] = manifest["features"].pop("agent_view")
    with SlackEmulator(manifest=manifest) as emu:
        alice = emu.add_user("U0ALICE", "alice")
        dm = emu.dm_channel(alice)
        client = WebClient(token=emu.bot_token, base_url=emu.api_url)
        root = client.chat_postMessage(channel=dm, text="How can I help?")["ts"]
        client.assistant_threads_setSuggestedPrompts(
            channel_id=dm, thread_ts=root, prompts=PROMPTS[:2]
        )
        assert emu.suggested_prompts(dm, root) == {"title": None, "prompts": PROMPTS[:2]}
        assert emu.suggested_prompts(dm) is None


# -- titles ----------------------------------------------------------------------------------
def test_a_thread_title_is_kept_and_shown_in_the_thread_transcript(
    ws: EmuSetup, driver: SlackDriver
) -> None:
    posted = driver.message_in_messages_tab(ws.alice, "Spring sale for runners")
    ws.client.assistant_threads_setTitle(
        channel_id=posted.channel, thread_ts=posted.ts, title="Spring sale"
    )
    assert ws.emu.thread_titles(posted.channel, posted.ts) == ["Spring sale"]
    assert ws.emu.transcript(posted.channel, thread_ts=posted.ts).splitlines()[0] == (
        "Thread in DM with alice — Spring sale"
    )
    blank = _error(
        lambda: ws.client.assistant_threads_setTitle(
            channel_id=posted.channel, thread_ts=posted.ts, title=" "
        )
    )
    assert blank["error"] == "invalid_arguments"
    unknown = _error(
        lambda: ws.client.assistant_threads_setTitle(
            channel_id=posted.channel, thread_ts="1.000002", title="x"
        )
    )
    assert unknown["error"] == "invalid_thread_ts"


def test_a_reply_posted_through_a_response_url_also_clears_the_status(
    ws: EmuSetup, driver: SlackDriver, recording_app: RecordingApp
) -> None:
    root = _root(ws)
    ws.client.chat_postMessage(
        channel=ws.general,
        thread_ts=root,
        text="Variant 1",
        blocks=[{"type": "actions", "elements": [button("Refine", "refine")]}],
    )
    reply = ws.emu.messages(ws.general, thread_ts=root)[-1]
    ws.client.assistant_threads_setStatus(channel_id=ws.general, thread_ts=root, status="is busy")
    driver.press_button(reply, "Refine", user_id=ws.alice)
    response_url = json.loads(parse_qs(recording_app.received[-1].body.decode())["payload"][0])[
        "response_url"
    ]
    WebhookClient(response_url).send(text="Refined", response_type="in_channel")
    assert ws.emu.thread_status(ws.general, root) is None
    assert [c["cause"] for c in ws.emu.status_history(ws.general, root)] == ["set", "reply"]
