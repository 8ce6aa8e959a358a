"""``suggestbot serve``: run the app for a real Slack workspace, over HTTP or Socket Mode."""

from __future__ import annotations

import argparse
import logging
import signal
import threading

from suggestbot.config import Settings
from suggestbot.logs import configure_logging
from suggestbot.runtime import Runtime
from suggestbot.serving import BackgroundServer
from suggestbot.slackapp.http import build_http_app

log = logging.getLogger(__name__)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="suggestbot serve", description=__doc__)
    parser.add_argument("--socket-mode", action="store_true", help="connect with SLACK_APP_TOKEN")
    parser.add_argument("--host", default="0.0.0.0", help="HTTP mode: address to listen on")
    parser.add_argument("--port", type=int, default=None, help="HTTP mode: port (default PORT)")
    args = parser.parse_args(argv)

    settings = Settings()
    configure_logging(level=settings.log_level, json=settings.log_json)
    runtime = Runtime(settings).start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        if args.socket_mode:
            from slack_bolt.adapter.socket_mode import SocketModeHandler

            if settings.slack_app_token is None:
                log.error("Socket Mode needs SLACK_APP_TOKEN (an xapp- app-level token)")
                return 2
            handler = SocketModeHandler(runtime.app, settings.slack_app_token.get_secret_value())
            handler.connect()
            log.info("connected to Slack in Socket Mode")
            stop.wait()
            handler.close()
        else:
            port = args.port or settings.port
            server = BackgroundServer(
                build_http_app(runtime.app, health=runtime.health),
                host=args.host,
                port=port,
                log_level="warning",
                name="http",
            ).start()
            log.info("serving Slack at http://%s:%d/slack/events", args.host, server.port)
            stop.wait()
            server.stop()
    finally:
        log.info("shutting down: finishing work in flight")
        runtime.stop()
    return 0
