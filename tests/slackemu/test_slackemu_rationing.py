"""The emulator rations like Slack: each method's tier per workspace, one post a second per
channel with a short burst, a workspace-wide cap on posts; past a limit, 429 + Retry-After."""

from __future__ import annotations

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slackemu_helpers import EmuSetup, FakeClock

from suggestbot.slackemu import SlackEmulator
from suggestbot.slackemu.rationing import CHANNEL_BURST, POST_WORKSPACE_PER_MINUTE, Rationing


@pytest.fixture(autouse=True)
def rationed(ws: EmuSetup) -> None:
    ws.emu.rationing.enable()  # on, as everywhere but the emulator's feature tests


def refused(call) -> SlackApiError:  # type: ignore[no-untyped-def]
    with pytest.raises(SlackApiError) as caught:
        call()
    return caught.value


@pytest.mark.parametrize(
    ("method", "per_minute"),
    [("chat.update", 50), ("assistant.threads.setStatus", 50), ("views.publish", 100)],
)
def test_a_tier_takes_n_calls_a_minute_and_refuses_call_n_plus_1(
    ws: EmuSetup, method: str, per_minute: int
) -> None:
    ts = ws.client.chat_postMessage(channel=ws.general, text="root")["ts"]
    args = {
        "chat.update": {"channel": ws.general, "ts": ts, "text": "x"},
        "assistant.threads.setStatus": {"channel_id": ws.general, "thread_ts": ts, "status": ""},
        "views.publish": {"user_id": ws.alice, "view": {"type": "home", "blocks": []}},
    }[method]
    for _ in range(per_minute):
        assert ws.client.api_call(method, json=args)["ok"]
    error = refused(lambda: ws.client.api_call(method, json=args))
    assert error.response.status_code == 429
    assert error.response["error"] == "ratelimited"
    assert int(error.response.headers["Retry-After"]) == 60
    ws.clock.advance(60.01)  # the first call has left the minute: one more goes
    assert ws.client.api_call(method, json=args)["ok"]


def test_a_channel_takes_a_short_burst_then_one_post_a_second(ws: EmuSetup) -> None:
    for _ in range(CHANNEL_BURST):
        ws.client.chat_postMessage(channel=ws.general, text="hi")
    error = refused(lambda: ws.client.chat_postMessage(channel=ws.general, text="one more"))
    assert error.response.status_code == 429
    assert error.response.headers["Retry-After"] == "1"
    ws.clock.advance(1.0)
    ws.client.chat_postMessage(channel=ws.general, text="a second later")
    refused(lambda: ws.client.chat_postMessage(channel=ws.general, text="too soon"))


def test_workspaces_are_rationed_apart() -> None:
    clock = FakeClock()
    with (
        SlackEmulator(clock=clock, team_id="T1") as one,
        SlackEmulator(clock=clock, team_id="T2") as two,
    ):
        clients = []
        for emu in (one, two):
            channel = emu.add_channel("general")
            emu.invite_bot(channel)
            clients.append((WebClient(token=emu.bot_token, base_url=emu.api_url), channel))
        for client, channel in clients:
            for _ in range(CHANNEL_BURST):
                client.chat_postMessage(channel=channel, text="hi")


def test_the_workspace_cap_on_posts_holds_across_channels() -> None:
    clock = FakeClock()
    rationing = Rationing(clock=clock)
    for n in range(POST_WORKSPACE_PER_MINUTE):
        assert rationing.check("chat.postMessage", f"C{n}") is None
    refusal = rationing.check("chat.postMessage", "C-fresh")
    assert refusal is not None and refusal.rule == "tier"
    assert rationing.peaks()["chat.postMessage"] == POST_WORKSPACE_PER_MINUTE


def test_a_method_not_in_the_table_is_tier_2_and_state_stays_small() -> None:
    clock = FakeClock()
    rationing = Rationing(clock=clock)
    for _ in range(20):
        assert rationing.check("team.info", None) is None
    assert rationing.check("team.info", None) is not None
    for n in range(300):
        rationing.check("chat.postMessage", f"C{n}")
        clock.advance(0.2)
    clock.advance(61)
    rationing.check("views.open", None)
    assert len(rationing._channels) == 0  # full buckets are forgotten


def test_a_test_that_needs_unlimited_calls_turns_rationing_off(ws: EmuSetup) -> None:
    ws.emu.rationing.off()
    for _ in range(CHANNEL_BURST + 5):
        ws.client.chat_postMessage(channel=ws.general, text="unlimited")
