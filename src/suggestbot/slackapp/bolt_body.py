"""Work-around for slack_bolt 1.30: hand Bolt the body already parsed.

Bolt's ``slack_bolt.request.internals.parse_body`` decides how to read a form body by looking
for the substring ``payload`` anywhere in it; a slash command that merely mentions the word
(``/suggest brief Payload capacity…``, a channel named ``#payload-team``, a user called
``payload.pete``) has no ``payload=`` field, so Bolt reads it as an empty body, matches no
listener and answers 404 — Slack then shows the user ``dispatch_failed``.

:class:`ParsedBodyRequest` is a ``BoltRequest`` that keeps the raw text Bolt's own signature
check needs (``raw_body``) but takes its ``body`` from
:func:`suggestbot.slackapp.inbound.parse_slack_body`, which reads a body by its type. Socket
Mode is not affected: there Slack's envelope already carries the payload as a JSON object,
which Bolt takes as it is.

Removing it, once Bolt reads such bodies right (``tests/slackapp/test_bolt_body.py``
``test_bolt_still_misreads_a_form_that_mentions_payload`` starts failing then): delete this
module and its test, and in ``slackapp/http.py`` build ``BoltRequest(body=admitted.text,
query=…, headers=…)`` instead of ``ParsedBodyRequest``. The gate in ``inbound.py`` stays:
it is what refuses unsigned and malformed bodies before Bolt sees them.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from slack_bolt import BoltContext, BoltRequest
from slack_bolt.request.internals import build_context

_BOLT_LOG = logging.getLogger("slack_bolt.App")


class ParsedBodyRequest(BoltRequest):
    """A ``BoltRequest`` in HTTP mode whose ``body`` was parsed by the app, not by Bolt.

    Args:
        raw_body: the request body exactly as signed (Bolt checks the signature on it again).
        body: ``raw_body`` parsed (see ``inbound.parse_slack_body``).
        query: the query string.
        headers: the request headers.
        context: initial context values (Bolt's ``to_copyable`` passes them on).
    """

    def __init__(
        self,
        *,
        raw_body: str,
        body: dict[str, Any],
        query: str | dict[str, str] | dict[str, Sequence[str]] | None = None,
        headers: dict[str, str | Sequence[str]] | None = None,
        context: dict[str, Any] | None = None,
    ) -> None:
        # An empty body keeps Bolt's parser out of it; the fields it would set follow.
        super().__init__(body="", query=query, headers=headers, context=context, mode="http")
        self.raw_body = raw_body
        self.body = body
        # Bolt's build_context logs through context.logger when a modal carries several
        # response_urls; its own requests get the logger only later, in dispatch.
        initial = {"logger": _BOLT_LOG, **(context or {})}
        self.context = build_context(BoltContext(initial), body)

    def to_copyable(self) -> ParsedBodyRequest:
        # Bolt copies a request for lazy listeners by parsing raw_body again: keep ours.
        return ParsedBodyRequest(
            raw_body=self.raw_body,
            body=self.body,
            query=self.query,
            headers=self.headers,
            context=self.context.to_copyable(),
        )
