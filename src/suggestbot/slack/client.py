"""Putting a ``WebClient`` behind the gate: every method of it goes through ``api_call``."""

from __future__ import annotations

import functools
from typing import Any

from slack_sdk import WebClient
from slack_sdk.http_retry import RetryHandler
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler
from slack_sdk.web import SlackResponse

from suggestbot.slack.gate import SlackGate


def behind_gate(client: WebClient, gate: SlackGate) -> WebClient:
    """Make every Web API call of ``client`` pass ``gate`` (on this instance only).

    The client must not wait out 429s itself (:func:`without_rate_limit_retries`): the gate
    pauses the method for every caller instead.
    """
    call = client.api_call

    @functools.wraps(call)
    def api_call(api_method: str, *args: Any, **kwargs: Any) -> SlackResponse:
        return gate.send(api_method, _channel(kwargs), lambda: call(api_method, *args, **kwargs))

    client.api_call = api_call  # type: ignore[method-assign]
    client.retry_handlers = without_rate_limit_retries(client.retry_handlers)
    return client


def without_rate_limit_retries(handlers: list[RetryHandler]) -> list[RetryHandler]:
    return [h for h in handlers if not isinstance(h, RateLimitErrorRetryHandler)]


def _channel(kwargs: dict[str, Any]) -> str | None:
    for part in ("json", "data", "params"):
        args = kwargs.get(part)
        if isinstance(args, dict):
            channel = args.get("channel") or args.get("channel_id")
            if isinstance(channel, str):
                return channel
    return None
