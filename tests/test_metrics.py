"""The process's metrics: what each figure counts, and Slack's 429s counted where the client
meets them (over loopback HTTP against the Slack emulator)."""

from __future__ import annotations

from slack_sdk import WebClient

from suggestbot import metrics
from suggestbot.server.composition import slack_retry_handlers
from suggestbot.slack import SlackGate
from suggestbot.slack.client import behind_gate
from suggestbot.slackemu import SlackEmulator


def _value(name: str, **labels: str) -> float:
    found = metrics.REGISTRY.get_sample_value(name, labels or None)
    return 0.0 if found is None else found


def test_each_slack_request_is_counted_under_its_kind() -> None:
    assert metrics.ack_kind({"command": "/suggest", "text": "help"}) == "command"
    assert metrics.ack_kind({"type": "event_callback", "event": {}}) == "event"
    assert metrics.ack_kind({"type": "block_actions"}) == "action"
    assert metrics.ack_kind({"type": "message_action"}) == "action"
    assert metrics.ack_kind({"type": "view_submission"}) == "view"
    assert metrics.ack_kind({"type": "url_verification"}) == "other"

    before = _value("suggestbot_acks_total", kind="view", status="200")
    slow_before = _value("suggestbot_ack_seconds_bucket", kind="view", le="1.0")
    metrics.observe_ack(kind="view", status=200, seconds=2.5)
    assert _value("suggestbot_acks_total", kind="view", status="200") == before + 1
    # 2.5 s is counted, but not within the 1 s bucket.
    assert _value("suggestbot_ack_seconds_bucket", kind="view", le="3.0") >= 1
    assert _value("suggestbot_ack_seconds_bucket", kind="view", le="1.0") == slow_before
    metrics.observe_ack(kind="something new", status=200, seconds=0.01)
    assert _value("suggestbot_acks_total", kind="other", status="200") >= 1


def test_lateness_counts_only_polls_read_and_digests_that_reached_their_channel() -> None:
    polls = _value("suggestbot_poll_lateness_seconds_count")
    metrics.observe_poll(due_at=100.0, read_at=101.5)
    metrics.observe_poll(due_at=100.0, read_at=None)  # the read failed: no lateness to tell
    assert _value("suggestbot_poll_lateness_seconds_count") == polls + 1

    sent = _value("suggestbot_digests_sent_total")
    late_sum = _value("suggestbot_digest_lateness_seconds_sum")
    metrics.observe_digest(outcome="posted", fire_at=1000.0, clock=lambda: 1003.0)
    metrics.observe_digest(outcome="lines", fire_at=1000.0, clock=lambda: 1000.5)
    metrics.observe_digest(outcome="failed", fire_at=1000.0, clock=lambda: 1009.0)
    metrics.observe_digest(outcome="quiet", fire_at=1000.0, clock=lambda: 1009.0)
    assert _value("suggestbot_digests_sent_total") == sent + 2
    assert _value("suggestbot_digest_lateness_seconds_sum") == late_sum + 3.5


def test_slack_429s_are_counted_and_still_ridden_out() -> None:
    with SlackEmulator() as emu:
        channel = emu.add_channel("general")
        emu.invite_bot(channel)
        emu.faults.rate_limit("chat.postMessage", retry_after=0, times=2)
        client = WebClient(
            token=emu.bot_token, base_url=emu.api_url, retry_handlers=slack_retry_handlers()
        )
        before = _value("suggestbot_slack_rate_limited_total")
        answer = client.chat_postMessage(channel=channel, text="hello")
        assert answer["ok"] is True
        assert _value("suggestbot_slack_rate_limited_total") == before + 2


def test_the_gate_counts_calls_by_method_and_outcome_and_the_time_they_queued() -> None:
    """Over loopback against the rationing emulator: posts beyond the channel's burst wait
    (queued time counted as urgent), a 429 is counted once and paused, never per caller."""
    with SlackEmulator() as emu:
        channel = emu.add_channel("general")
        emu.invite_bot(channel)
        gate = SlackGate()
        client = behind_gate(
            WebClient(
                token=emu.bot_token, base_url=emu.api_url, retry_handlers=slack_retry_handlers()
            ),
            gate,
        )
        ok = _value("suggestbot_slack_calls_total", method="chat.postMessage", outcome="ok")
        limited = _value(
            "suggestbot_slack_calls_total", method="chat.postMessage", outcome="rate_limited"
        )
        queued = _value("suggestbot_slack_queued_seconds_count", priority="urgent")
        emu.faults.rate_limit("chat.postMessage", retry_after=1, times=1)
        for n in range(5):
            assert client.chat_postMessage(channel=channel, text=f"post {n}")["ok"]
        assert (
            _value("suggestbot_slack_calls_total", method="chat.postMessage", outcome="ok")
            == ok + 5
        )
        assert (
            _value(
                "suggestbot_slack_calls_total", method="chat.postMessage", outcome="rate_limited"
            )
            == limited + 1
        )
        assert _value("suggestbot_slack_queued_seconds_count", priority="urgent") == queued + 6
        assert emu.rationing.refused == {}  # the gate kept to Slack's one post a second
        assert 0 < _value("suggestbot_slack_budget_left", tier="special_post") < 1


def test_the_exposition_names_every_metric() -> None:
    body, content_type = metrics.exposition()
    text = body.decode()
    assert content_type.startswith("text/plain")
    for name in (
        "suggestbot_acks_total",
        "suggestbot_ack_seconds",
        "suggestbot_runs_watched",
        "suggestbot_poll_lateness_seconds",
        "suggestbot_digests_sent_total",
        "suggestbot_digest_lateness_seconds",
        "suggestbot_slack_rate_limited_total",
        "suggestbot_claims_taken_over_total",
        "suggestbot_slack_calls_total",
        "suggestbot_slack_queued_seconds",
        "suggestbot_slack_budget_left",
    ):
        assert f"# HELP {name} " in text, name
