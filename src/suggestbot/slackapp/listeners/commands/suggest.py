"""``/suggest <subcommand> …``: the table of subcommands, and the one listener that routes them.

To add a subcommand, write its handler in this package's module of its feature (``brief``,
``linking``, ``lists``…), as ``handler(deps, body, rest)`` where ``rest`` is what follows the
subcommand, and add a row to :data:`SUBCOMMANDS`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import Ack, App

from suggestbot.flows.common.deps import Deps
from suggestbot.slackapp.listeners.ack import in_background
from suggestbot.slackapp.listeners.commands import (
    brief,
    digests,
    drafts,
    help,
    inspiration,
    linking,
    lists,
)
from suggestbot.slackapp.listeners.middleware import store_outage
from suggestbot.store import StoreUnavailable
from suggestbot.ui.payloads import parse_command

log = logging.getLogger(__name__)

COMMAND = brief.COMMAND

# What runs a subcommand after the ack: ``handler(deps, body, rest)``.
Handler = Callable[[Deps, dict[str, Any], str], None]

SUBCOMMANDS: dict[str, Handler] = {
    "help": help.show,
    "connect": linking.connect,
    "disconnect": linking.disconnect,
    "status": linking.status,
    "brief": brief.send,
    "draft": drafts.open_draft,
    "inspire": inspiration.inspire,
    "digest": digests.digest,
    "threads": lists.threads,
    "runs": lists.runs,
}


def register(app: App, deps: Deps) -> None:
    @app.command(COMMAND)
    def suggest(ack: Ack, body: dict[str, Any]) -> None:
        # A brief that can go straight to a run is recorded before the ack: Slack never resends
        # a command it had an answer for, so a crash right after the ack must not lose it.
        # A disconnect takes effect before the ack too, so that nothing sent after it sees the link.
        try:
            recorded = brief.record_quick_brief(deps, body)
            if recorded is None and brief.claims_its_own_delivery(body):
                # Not straight to a run after all: the delivery is claimed as any other.
                recorded = None if brief.claim_delivery(deps, body) else brief.REPEATED
            unlinked = linking.unlink_before_ack(deps, body) if recorded is None else None
        except StoreUnavailable:
            # The store went away after the delivery was let through: nothing was recorded.
            ack(**store_outage.command_reply(deps, body))
            return
        ack()
        if recorded == brief.REPEATED:
            log.info("ignoring a repeated Slack delivery (command)")
            return
        response_url = body.get("response_url")

        def work() -> None:
            if recorded is not None:
                brief.launch(deps, recorded, response_url)
            elif unlinked is not None:
                linking.answer_disconnect(deps, body, removed=unlinked)
            else:
                route(deps, body)

        in_background(
            deps,
            work,
            user_id=body["user_id"],
            channel_id=body.get("channel_id"),
            response_url=response_url,
        )


def route(deps: Deps, body: dict[str, Any]) -> None:
    """Run the subcommand the command's first word names (an unknown word gets the help)."""
    sub, rest = parse_command(body.get("text"))
    handler = SUBCOMMANDS.get(sub)
    if handler is None:
        help.unknown(deps, body, sub)
        return
    handler(deps, body, rest)
