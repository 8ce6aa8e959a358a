"""Slack's 429s, ridden out and counted (``suggestbot_slack_rate_limited`` at ``/metrics``)."""

from __future__ import annotations

from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState

from suggestbot import metrics


class CountedRateLimitRetryHandler(RateLimitErrorRetryHandler):
    """slack_sdk's handler (waits ``Retry-After``, then retries), counting every 429 it sees,
    also the last one it gives up on."""

    def can_retry(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> bool:
        if response is not None and response.status_code == 429:
            metrics.SLACK_RATE_LIMITED.inc()
        return super().can_retry(state=state, request=request, response=response, error=error)
