"""``suggestbot serve``: run the app for real Slack workspaces, over HTTP or Socket Mode.

- **HTTP mode** (default): Slack's requests at ``/slack/events``; ``/slack/install`` and
  ``/slack/oauth_redirect`` when installed by OAuth; ``/healthz``, ``/livez`` and ``/readyz``
  for probes, ``/metrics`` for Prometheus.
- **Socket Mode** (``--socket-mode``, ``SLACK_APP_TOKEN``): Slack's requests over the socket.
  The HTTP server still serves the probes and metrics (and the OAuth pages), but not
  ``/slack/events``.
- **Shutdown** (SIGTERM or SIGINT): a drain. In HTTP mode ``/readyz`` answers 503 at once while
  everything is still served for ``SUGGESTBOT_DRAIN_SECONDS``, so that a load balancer stops
  sending here before the port closes; then no new work is taken (the socket and the HTTP
  server close, requests in flight are answered), work in flight finishes, timers not yet due
  stay in the store for the next start (or another replica's); the process exits 0. A second
  signal exits at once.
"""

from __future__ import annotations

import argparse
import contextvars
import json
import logging
import os
import signal
import threading
import time
from types import FrameType

from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_sdk.socket_mode.builtin import SocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse

from suggestbot.asgi_thread import BackgroundServer
from suggestbot.config import Settings
from suggestbot.logs import configure_logging
from suggestbot.server.composition import Runtime
from suggestbot.slackapp.http import build_http_app
from suggestbot.slackapp.shape import misshapen_answer
from suggestbot.store import SchemaNotCurrent, StoreDamaged, StoreError, VaultError

log = logging.getLogger(__name__)

# Libraries whose INFO lines are one per routine event (apscheduler: two per poll of a run).
CHATTY_LOGGERS = ("apscheduler", "alembic")


class IsolatedSocketModeHandler(SocketModeHandler):
    """Bolt's Socket Mode handler, running each envelope in a fresh context.

    The socket client's worker threads are reused from envelope to envelope; the workspace one
    request serves (:mod:`suggestbot.installations.scope`) must not be left for the next.
    """

    def handle(self, client: SocketModeClient, req: SocketModeRequest) -> None:  # type: ignore[override]
        body = req.payload if isinstance(req.payload, dict) else {}
        refused = misshapen_answer(body)
        if refused is not None:  # acknowledged as over HTTP; never handed to Bolt
            answer = json.loads(refused.body) if refused.body else None
            client.send_socket_mode_response(
                SocketModeResponse(envelope_id=req.envelope_id, payload=answer)
            )
            return
        contextvars.Context().run(super().handle, client, req)


def socket_mode_handler(app: App, app_token: str) -> IsolatedSocketModeHandler:
    """The Socket Mode adapter for ``app`` (not connected yet: call ``connect()``)."""
    return IsolatedSocketModeHandler(app, app_token)


def tame_library_loggers(level: str) -> None:
    """Keep routine library chatter out of INFO logs; show everything at DEBUG."""
    debugging = level.upper() == "DEBUG"
    for name in CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(logging.NOTSET if debugging else logging.WARNING)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="suggestbot serve", description=__doc__)
    parser.add_argument("--socket-mode", action="store_true", help="connect with SLACK_APP_TOKEN")
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on for HTTP")
    parser.add_argument("--port", type=int, default=None, help="HTTP port (default: PORT)")
    args = parser.parse_args(argv)

    settings = Settings()
    configure_logging(level=settings.log_level, json=settings.log_json)
    tame_library_loggers(settings.log_level)
    if args.socket_mode and settings.slack_app_token is None:
        log.error("Socket Mode needs SLACK_APP_TOKEN (an app-level token, xapp-…)")
        return 2
    if not args.socket_mode and settings.slack_signing_secret is None:
        # Without it nothing could tell Slack's requests from anyone else's.
        log.error("HTTP mode needs SLACK_SIGNING_SECRET (the app's Signing Secret)")
        return 2
    try:
        runtime = Runtime(settings)
    except (ValueError, VaultError, StoreDamaged, SchemaNotCurrent, StoreError) as exc:
        log.error("cannot start: %s", exc)
        return 2
    log.info("keeping state in %r", runtime.store)

    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if stop.is_set():
            log.warning("second %s: exiting now, work in flight is abandoned", _name(signum))
            os._exit(1)
        log.info("%s received: shutting down", _name(signum))
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    runtime.start()
    signing = settings.slack_signing_secret
    port = settings.port if args.port is None else args.port
    http = BackgroundServer(
        build_http_app(
            runtime.app,
            health=runtime.health,
            ready=runtime.ready,
            events=not args.socket_mode,
            signing_secret=signing.get_secret_value() if signing and not args.socket_mode else None,
            gate=runtime.gate,
        ),
        host=args.host,
        port=port,
        log_level="warning",
        name="http",
    )
    socket: IsolatedSocketModeHandler | None = None
    try:
        http.start()
        if args.socket_mode:
            assert settings.slack_app_token is not None
            socket = socket_mode_handler(runtime.app, settings.slack_app_token.get_secret_value())
            socket.connect()
            log.info(
                "connected to Slack in Socket Mode; health at http://%s:%d/healthz",
                args.host,
                http.port,
            )
        else:
            log.info("serving Slack at http://%s:%d/slack/events", args.host, http.port)
        if runtime.tenancy is not None:
            log.info("installs at http://%s:%d/slack/install", args.host, http.port)
        # In short waits, not one: a signal the kernel hands to another thread only sets a flag,
        # and the main thread runs Python's handler only when it wakes up (an untimed wait on a
        # lock may never wake, and the SIGTERM would go unanswered).
        while not stop.wait(timeout=0.2):
            pass
        runtime.readiness.drain()
        if not args.socket_mode:
            grace = settings.suggestbot_drain_seconds
            log.info(
                "draining: /readyz answers 503; still serving for %.1f s so that the load "
                "balancer stops sending here",
                grace,
            )
            time.sleep(grace)
    finally:
        log.info("shutting down: taking no new work, finishing work in flight")
        if socket is not None:
            socket.close()
        http.stop()
        runtime.stop()
        log.info("stopped")
    return 0


def _name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"
