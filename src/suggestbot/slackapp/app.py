"""``build_app``: the Bolt app with every listener registered. Nothing else happens here."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from slack_bolt import App, BoltRequest, BoltResponse
from slack_sdk import WebClient

from suggestbot.flows.common.deps import Deps
from suggestbot.installations.scope import ContextExecutor
from suggestbot.slackapp import inputs as declared
from suggestbot.slackapp.edge import take
from suggestbot.slackapp.edge.inputs import Inputs
from suggestbot.slackapp.edge.take import let_go_unhanded

if TYPE_CHECKING:
    from suggestbot.slackapp.tenancy import Tenancy

log = logging.getLogger(__name__)

# Bolt's pool for lazy listeners (none today); listeners run in the request's own thread.
LISTENER_THREADS = 32


def build_app(
    *,
    deps: Deps,
    client: WebClient,
    signing_secret: str | None,
    tenancy: Tenancy | None = None,
    inputs: Inputs | None = None,
) -> App:
    """The Bolt app: for one workspace, or for every workspace that installs it (``tenancy``).

    Args:
        deps: what the flows need (store, clients, timers).
        client: the ``WebClient`` with the bot token and Slack's API address.
        signing_secret: checks that HTTP requests come from Slack; None in Socket Mode.
        tenancy: a multi-workspace (OAuth) install's flow, authorization and listeners.
        inputs: what the app takes (:func:`inputs_of` by default); the same table carries
            recorded inputs out after a crash.
    """
    app = App(
        client=client,
        signing_secret=signing_secret,
        request_verification_enabled=signing_secret is not None,
        # A listener runs in the request's thread and its answer leaves when it returns. Every
        # listener acks and hands its work over (``edge.background``), so it
        # returns at once: the ack costs no hand-off to another thread, and no wait for Bolt
        # to notice it (with False, Bolt looks for the ack every 10 ms).
        process_before_response=True,
        # Copies the context into each listener thread, so the workspace a request serves
        # travels with it (suggestbot.installations.scope).
        listener_executor=ContextExecutor(
            max_workers=LISTENER_THREADS, thread_name_prefix="bolt-listener"
        ),
        **(tenancy.app_options() if tenancy is not None else {}),
    )

    @app.error
    def listener_failed(error: Exception, request: BoltRequest) -> BoltResponse | None:
        # Bolt keeps one error handler: the held interaction is let go, then the ack is kept.
        let_go_unhanded(deps)
        return keep_the_ack(error, request)

    if tenancy is not None:
        tenancy.register(app)
    take.register(app, deps, inputs if inputs is not None else inputs_of(tenancy))
    return app


def inputs_of(tenancy: Tenancy | None) -> Inputs:
    """Every input the app takes, for one workspace or, with ``tenancy``, for many."""
    return tenancy.inputs() if tenancy is not None else declared.one_workspace()


def keep_the_ack(error: Exception, request: BoltRequest) -> BoltResponse | None:
    """A listener that failed after it acked: Slack gets the ack it was given (a 500 would make
    it show an error for work that was accepted, or send the event again). Logged either way;
    one that failed before its ack gets Bolt's 500."""
    acked: Any = request.context.ack.response if request.context.ack is not None else None
    if isinstance(acked, BoltResponse) and acked.status == 200:
        log.error("a listener failed after its ack (%s)", type(error).__name__, exc_info=error)
        return BoltResponse(status=acked.status, body=acked.body, headers=acked.headers)
    log.error("a listener failed before its ack (%s)", type(error).__name__, exc_info=error)
    return None
