"""``build_app``: the Bolt app with every listener registered. Nothing else happens here."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from slack_bolt import App
from slack_sdk import WebClient

from suggestbot.slackapp.flows.deps import Deps
from suggestbot.slackapp.listeners import register_all

# Listeners only ack and hand over, so a modest pool keeps every ack far inside 3 seconds.
LISTENER_THREADS = 32


def build_app(*, deps: Deps, client: WebClient, signing_secret: str | None) -> App:
    """The Bolt app for one workspace (single-workspace mode).

    Args:
        deps: what the flows need (store, clients, timers).
        client: the ``WebClient`` with the bot token and Slack's API address.
        signing_secret: checks that HTTP requests come from Slack; None in Socket Mode.
    """
    app = App(
        client=client,
        signing_secret=signing_secret,
        request_verification_enabled=signing_secret is not None,
        process_before_response=False,
        listener_executor=ThreadPoolExecutor(
            max_workers=LISTENER_THREADS, thread_name_prefix="bolt-listener"
        ),
    )
    register_all(app, deps)
    return app
