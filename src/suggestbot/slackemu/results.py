"""What the driver hands back after talking to the app."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

ACK_DEADLINE_S = 3.0  # Slack gives an app 3 seconds to answer any request


@dataclass(frozen=True)
class AppResponse:
    """What the app answered to one request Slack sent it."""

    status: int
    body: str
    headers: dict[str, str]
    elapsed_s: float

    def json(self) -> Any:
        return json.loads(self.body) if self.body.strip() else None

    @property
    def acked_in_time(self) -> bool:
        """HTTP 200 within Slack's 3-second deadline."""
        return self.status == 200 and self.elapsed_s <= ACK_DEADLINE_S


@dataclass(frozen=True)
class PostedMessage:
    """A message a person typed, and the app's answer to its ``message`` event (if sent)."""

    channel: str
    ts: str
    delivery: AppResponse | None


@dataclass(frozen=True)
class RetriedDelivery:
    """An event delivered twice with the same ``event_id``: the original and Slack's retry."""

    event_id: str
    first: AppResponse
    retry: AppResponse
    overlapped: bool  # the retry was sent before the first delivery had been answered


@dataclass(frozen=True)
class ViewSubmission:
    """The outcome of pressing a modal's submit button."""

    response: AppResponse
    response_action: str | None
    errors: dict[str, str] = field(default_factory=dict)  # input label -> message
    errors_by_block_id: dict[str, str] = field(default_factory=dict)
    view: dict[str, Any] | None = None  # the modal on top afterwards (None: all closed)
    problem: str | None = None  # what Slack would show instead ("timeout", …)


@dataclass(frozen=True)
class WorkflowStep:
    """A workflow step Slack started: its execution id and the app's answer to the event."""

    function_execution_id: str
    delivery: AppResponse
