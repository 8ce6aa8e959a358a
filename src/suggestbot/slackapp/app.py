"""``build_app``: the Bolt app with every listener registered. Nothing else happens here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from slack_bolt import App
from slack_sdk import WebClient

from suggestbot.flows.deps import Deps
from suggestbot.installations.scope import ContextExecutor
from suggestbot.slackapp.listeners import register_all, register_one_workspace

if TYPE_CHECKING:
    from suggestbot.slackapp.tenancy import Tenancy

# Listeners only ack and hand over, so a modest pool keeps every ack far inside 3 seconds.
LISTENER_THREADS = 32


def build_app(
    *,
    deps: Deps,
    client: WebClient,
    signing_secret: str | None,
    tenancy: Tenancy | None = None,
) -> App:
    """The Bolt app: for one workspace, or for every workspace that installs it (``tenancy``).

    Args:
        deps: what the flows need (store, clients, timers).
        client: the ``WebClient`` with the bot token and Slack's API address.
        signing_secret: checks that HTTP requests come from Slack; None in Socket Mode.
        tenancy: a multi-workspace (OAuth) install's flow, authorization and listeners.
    """
    app = App(
        client=client,
        signing_secret=signing_secret,
        request_verification_enabled=signing_secret is not None,
        process_before_response=False,
        # Copies the context into each listener thread, so the workspace a request serves
        # travels with it (suggestbot.installations.scope).
        listener_executor=ContextExecutor(
            max_workers=LISTENER_THREADS, thread_name_prefix="bolt-listener"
        ),
        **(tenancy.app_options() if tenancy is not None else {}),
    )
    if tenancy is not None:
        tenancy.register(app, deps)
    else:
        # An OAuth install's own listeners handle uninstalls (and delete the installation).
        register_one_workspace(app, deps)
    register_all(app, deps)
    return app
