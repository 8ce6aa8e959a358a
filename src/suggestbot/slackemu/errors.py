"""The one way a Web API method fails inside the emulator.

Slack answers almost every failure with HTTP 200 and ``{"ok": false, "error": "<code>"}``,
sometimes with extra keys (``needed``/``provided`` for ``missing_scope``,
``response_metadata.messages`` for ``invalid_blocks``). Handlers raise :class:`ApiError` and the
server turns it into exactly that body, so no handler builds an error response by hand.
"""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """A Slack Web API error: ``error`` code, extra top-level keys, optional HTTP status."""

    def __init__(
        self,
        error: str,
        *,
        extra: dict[str, Any] | None = None,
        messages: list[str] | None = None,
        status: int = 200,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(error)
        self.error = error
        self.extra = dict(extra or {})
        self.messages = list(messages or [])
        self.status = status
        self.headers = dict(headers or {})

    def body(self) -> dict[str, Any]:
        # shape: Slack docs, Web API "Evaluating responses" ({"ok": false, "error": ...});
        # response_metadata.messages as in the invalid_arguments example of
        # slack-ruby/slack-api-ref methods/views/views.open.json (mirrors Slack's reference).
        body: dict[str, Any] = {"ok": False, "error": self.error}
        body.update(self.extra)
        if self.messages:
            body["response_metadata"] = {"messages": list(self.messages)}
        return body


class DriverError(Exception):
    """The driver was asked to do something a person in Slack could not do."""


class ClientRejected(DriverError):
    """The Slack client itself would refuse the input (required field empty, too long, …)."""

    def __init__(self, problems: dict[str, str]) -> None:
        super().__init__("; ".join(f"{label}: {why}" for label, why in problems.items()))
        self.problems = dict(problems)
