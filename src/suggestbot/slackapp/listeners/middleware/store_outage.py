"""What a delivery gets while the store cannot be reached (a database restarting or down).

Nothing can be recorded, so nothing is started. A slash command is answered, ephemerally and
in the user's language, with what they typed handed back to send again (Slack never retries a
command). Anything else gets a 503: Slack retries events by itself, and a button or a modal
shows Slack's own error with nothing half done. The app reconnects by itself once the store is
back.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from slack_bolt import BoltResponse

from suggestbot.flows.common.deps import Deps
from suggestbot.ui.blocks.notices import build_outage_answer

log = logging.getLogger(__name__)


def answer(deps: Deps, body: dict[str, Any]) -> BoltResponse:
    """The response to ``body``, a delivery that arrived while the store was unreachable."""
    if not isinstance(body.get("command"), str) or body.get("type") is not None:
        log.warning("the store cannot be reached: answered a Slack delivery with 503")
        return BoltResponse(status=503, body="")
    return BoltResponse(
        status=200,
        body=json.dumps(command_reply(deps, body)),
        headers={"content-type": "application/json"},
    )


def command_reply(deps: Deps, body: dict[str, Any]) -> dict[str, Any]:
    """The ephemeral ack of a slash command that could not be recorded: what happened, and
    the command exactly as typed (``ack(**command_reply(...))`` in a listener)."""
    log.warning("the store cannot be reached: handed a slash command back to send again")
    typed = f"{body.get('command') or ''} {body.get('text') or ''}".strip()
    message = build_outage_answer(lang=deps.lang_of(str(body.get("user_id") or "")), typed=typed)
    return {"response_type": "ephemeral", "text": message.text, "blocks": message.blocks}
