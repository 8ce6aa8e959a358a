"""Injected faults look to slack_sdk exactly like Slack's own: 429 + Retry-After, 5xx, delays."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import slack_sdk.http_retry.builtin_handlers as builtin_handlers
import slack_sdk.http_retry.handler as retry_handler
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import (
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)
from slackemu_helpers import EmuSetup, FakeClock

from suggestbot.slackemu import SlackEmulator


class _RecordingSleep:
    """Stands in for the ``time`` module inside slack_sdk's retry handlers: no real waits."""

    def __init__(self) -> None:
        self.slept: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)


class _NoJitter:
    @staticmethod
    def random() -> float:
        return 0.0


@pytest.fixture
def retry_sleeps(monkeypatch: pytest.MonkeyPatch) -> _RecordingSleep:
    recorder = _RecordingSleep()
    monkeypatch.setattr(builtin_handlers, "time", recorder)
    monkeypatch.setattr(builtin_handlers, "random", _NoJitter)
    monkeypatch.setattr(retry_handler, "time", recorder)
    return recorder


def test_rate_limit_answers_429_with_retry_after(ws: EmuSetup) -> None:
    ws.emu.faults.rate_limit("chat.postMessage", retry_after=7)

    with pytest.raises(SlackApiError) as limited:
        ws.client.chat_postMessage(channel=ws.general, text="hi")

    response = limited.value.response
    assert response.status_code == 429
    assert response.headers["Retry-After"] == "7"
    assert response.data == {"ok": False, "error": "ratelimited"}
    assert ws.client.chat_postMessage(channel=ws.general, text="hi")["ok"]  # times=1 used up


def test_rate_limit_handler_of_slack_sdk_waits_retry_after_then_succeeds(
    ws: EmuSetup, retry_sleeps: _RecordingSleep
) -> None:
    ws.emu.faults.rate_limit("chat.postMessage", retry_after=2, times=2)
    client = WebClient(
        token=ws.emu.bot_token,
        base_url=ws.emu.api_url,
        retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=2)],
    )

    assert client.chat_postMessage(channel=ws.general, text="eventually")["ok"]

    assert retry_sleeps.slept == [2.0, 2.0]
    assert [c.status for c in ws.emu.calls("chat.postMessage")] == [429, 429, 200]
    assert [m["text"] for m in ws.emu.messages(ws.general)] == ["eventually"]


def test_rate_limit_can_target_one_channel(ws: EmuSetup) -> None:
    other = ws.emu.add_channel("other", members=[ws.alice])
    ws.emu.invite_bot(other)
    ws.emu.faults.rate_limit("chat.postMessage", channel=other, times=3)

    assert ws.client.chat_postMessage(channel=ws.general, text="fine")["ok"]
    with pytest.raises(SlackApiError) as limited:
        ws.client.chat_postMessage(channel=other, text="limited")
    assert limited.value.response.status_code == 429


def test_enforced_post_rate_refuses_a_second_post_within_the_second(
    ws: EmuSetup, clock: FakeClock
) -> None:
    other = ws.emu.add_channel("other", members=[ws.alice])
    ws.emu.invite_bot(other)
    ws.emu.faults.enforce_post_rate(per_second=1)

    assert ws.client.chat_postMessage(channel=ws.general, text="1")["ok"]
    with pytest.raises(SlackApiError) as too_fast:
        ws.client.chat_postMessage(channel=ws.general, text="2")
    assert too_fast.value.response.status_code == 429
    assert too_fast.value.response.headers["Retry-After"] == "1"
    assert ws.client.chat_postMessage(channel=other, text="other channel")["ok"]

    clock.advance(0.999)
    with pytest.raises(SlackApiError):
        ws.client.chat_postMessage(channel=ws.general, text="3")
    clock.advance(0.001)
    assert ws.client.chat_postMessage(channel=ws.general, text="4")["ok"]

    assert ws.emu.faults.max_post_rate(ws.general) == 3  # what the app tried
    assert ws.emu.faults.max_post_rate(ws.general, accepted_only=True) == 1
    assert ws.emu.faults.max_post_rates(accepted_only=True) == {ws.general: 1, other: 1}


def test_post_rate_is_observed_even_when_not_enforced(ws: EmuSetup, clock: FakeClock) -> None:
    for i in range(3):
        ws.client.chat_postMessage(channel=ws.general, text=str(i))
    clock.advance(5)
    ws.client.chat_postMessage(channel=ws.general, text="later")
    assert ws.emu.faults.max_post_rate(ws.general) == 3


@pytest.mark.parametrize(
    ("status", "error"), [(500, "internal_error"), (503, "service_unavailable")]
)
def test_server_errors_answer_5xx(ws: EmuSetup, status: int, error: str) -> None:
    ws.emu.faults.server_error("conversations.replies", status=status)
    with pytest.raises(SlackApiError) as failed:
        ws.client.conversations_replies(channel=ws.general, ts="1.000001")
    assert failed.value.response.status_code == status
    assert failed.value.response["error"] == error


def test_server_error_handler_of_slack_sdk_retries_through_a_500(
    ws: EmuSetup, retry_sleeps: _RecordingSleep
) -> None:
    ws.emu.faults.server_error("chat.postMessage", times=1, status=500)
    client = WebClient(
        token=ws.emu.bot_token,
        base_url=ws.emu.api_url,
        retry_handlers=[ServerErrorRetryHandler(max_retry_count=1)],
    )
    assert client.chat_postMessage(channel=ws.general, text="after a 500")["ok"]
    assert [c.status for c in ws.emu.calls("chat.postMessage")] == [500, 200]
    assert len(retry_sleeps.slept) == 1


class _AsyncSleepRecorder:
    def __init__(self) -> None:
        self.slept: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.slept.append(seconds)


@pytest.fixture
def slow_emu() -> Iterator[tuple[SlackEmulator, _AsyncSleepRecorder]]:
    sleeper = _AsyncSleepRecorder()
    with SlackEmulator(sleep=sleeper) as emu:
        yield emu, sleeper


def test_latency_delays_only_the_configured_method(
    slow_emu: tuple[SlackEmulator, _AsyncSleepRecorder],
) -> None:
    emu, sleeper = slow_emu
    client = WebClient(token=emu.bot_token, base_url=emu.api_url)
    emu.faults.latency("auth.test", 2.5)

    client.auth_test()
    client.api_call("users.info", params={"user": emu.bot_user_id})
    emu.faults.latency("auth.test", 0)
    client.auth_test()

    assert sleeper.slept == [2.5]
    assert [(c.method, c.delay_s) for c in emu.calls()] == [
        ("auth.test", 2.5),
        ("users.info", 0.0),
        ("auth.test", 0.0),
    ]


def test_fault_settings_are_checked(ws: EmuSetup) -> None:
    with pytest.raises(ValueError):
        ws.emu.faults.rate_limit("chat.postMessage", times=0)
    with pytest.raises(ValueError):
        ws.emu.faults.server_error("chat.postMessage", status=404)
    with pytest.raises(ValueError):
        ws.emu.faults.enforce_post_rate(per_second=0)


def test_post_rate_counts_a_channel_however_it_is_named(ws: EmuSetup) -> None:
    dm = ws.emu.dm_channel(ws.alice)
    ws.client.chat_postMessage(channel="#general", text="by name")
    ws.client.chat_postMessage(channel=ws.general, text="by id")
    ws.client.chat_postMessage(channel=ws.alice, text="to the user")
    ws.client.chat_postMessage(channel=dm, text="to the dm")
    assert ws.emu.faults.max_post_rates() == {ws.general: 2, dm: 2}
