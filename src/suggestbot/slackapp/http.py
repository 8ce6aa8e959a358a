"""HTTP mode: Slack's requests arrive at ``/slack/events``; operators probe ``/healthz``,
``/livez`` and ``/readyz`` and scrape ``/metrics``.

Bolt's bundled ASGI and Starlette adapters call the synchronous ``App.dispatch`` on the event
loop, so one slow dispatch would hold up every other request's ack. Here each dispatch runs in
Starlette's thread pool instead, and the event loop only moves bytes.

Before Bolt sees a request, :mod:`~suggestbot.slackapp.inbound` caps its size, checks Slack's
signature on the raw bytes and parses it (413, 401 or 400 otherwise, one log line each); Then
:mod:`~suggestbot.slackapp.shape` checks the fields Bolt reads (200 or 400 with a WARNING
otherwise); Bolt gets the body already parsed (:mod:`~suggestbot.slackapp.bolt_body`), and a
delivery no listener takes is acknowledged with 200.

With a :class:`~suggestbot.slackapp.priority.PriorityGate`, each request to ``/slack/events``
is counted in flight from its arrival to its answer, and its dispatch runs in the foreground,
so that the work earlier acks started yields to it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

from slack_bolt import App
from slack_bolt.adapter.starlette.handler import to_bolt_request, to_starlette_response
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from suggestbot import metrics
from suggestbot.slackapp.bolt_body import ParsedBodyRequest
from suggestbot.slackapp.inbound import Refused, admit, log_refusal
from suggestbot.slackapp.priority import PriorityGate, mark_foreground
from suggestbot.slackapp.shape import misshapen_answer

EVENTS_PATH = "/slack/events"
INSTALL_PATH = "/slack/install"
REDIRECT_PATH = "/slack/oauth_redirect"

HealthCheck = Callable[[], dict[str, Any]]


def build_http_app(
    app: App,
    *,
    health: HealthCheck | None = None,
    events: bool = True,
    signing_secret: str | None = None,
    gate: PriorityGate | None = None,
    ready: HealthCheck | None = None,
) -> Starlette:
    """The ASGI app serving ``app`` (and its OAuth flow, when it has one) plus ``/healthz``.

    Args:
        app: the Bolt app.
        health: returns ``{"ok": bool, ...details}``; ``/healthz`` answers 503 when not ok.
        events: serve ``/slack/events``. Off in Socket Mode, where requests come over the
            socket and the app checks no signatures: the HTTP route would accept forgeries.
        signing_secret: checks ``/slack/events`` requests; by default the one ``app`` was
            built with.
        gate: counts ``/slack/events`` requests in flight, so post-ack work yields to them.
        ready: returns ``{"ok": bool, ...}`` for ``/readyz`` (503 when not ok); ``/livez``
            always answers 200 while the process serves, and ``/metrics`` gives the process's
            Prometheus metrics.
    """
    secret = signing_secret or _signing_secret_of(app)
    if events and not secret:
        raise ValueError("serving /slack/events needs the signing secret")

    def dispatch_in_foreground(bolt_request: ParsedBodyRequest) -> Any:
        mark_foreground()  # in this dispatch's own copy of the context
        return app.dispatch(bolt_request)

    async def slack_events(request: Request) -> Response:
        with gate.serving() if gate is not None else nullcontext():
            try:
                admitted = await admit(request, signing_secret=secret)
            except Refused as refused:
                log_refusal(request, refused)
                return Response(status_code=refused.status)
            unreadable = misshapen_answer(admitted.body)
            if unreadable is not None:
                return to_starlette_response(unreadable)
            bolt_request = ParsedBodyRequest(
                raw_body=admitted.text,
                body=admitted.body,
                query=request.url.query,
                headers=dict(request.headers),
            )
            started = time.perf_counter()
            bolt_response = await run_in_threadpool(dispatch_in_foreground, bolt_request)
            metrics.observe_ack(
                kind=metrics.ack_kind(admitted.body),
                status=bolt_response.status,
                seconds=time.perf_counter() - started,
            )
            if bolt_response.status == 404:
                # Bolt found no listener (it logged a WARNING): a kind of Slack's the app does
                # not take. Acknowledged, so that Slack neither retries it nor shows an error.
                return Response(status_code=200)
            return to_starlette_response(bolt_response)

    async def install(request: Request) -> Response:
        flow = app.oauth_flow
        if flow is None:
            return Response("Not found", status_code=404)
        body = await request.body()
        bolt_response = await run_in_threadpool(
            flow.handle_installation, to_bolt_request(request, body)
        )
        return to_starlette_response(bolt_response)

    async def oauth_redirect(request: Request) -> Response:
        flow = app.oauth_flow
        if flow is None:
            return Response("Not found", status_code=404)
        body = await request.body()
        bolt_response = await run_in_threadpool(
            flow.handle_callback, to_bolt_request(request, body)
        )
        return to_starlette_response(bolt_response)

    async def healthz(request: Request) -> Response:
        report = await run_in_threadpool(health) if health else {"ok": True}
        return JSONResponse(report, status_code=200 if report.get("ok") else 503)

    async def livez(request: Request) -> Response:
        return JSONResponse({"ok": True})

    async def readyz(request: Request) -> Response:
        report = await run_in_threadpool(ready) if ready else {"ok": True}
        return JSONResponse(report, status_code=200 if report.get("ok") else 503)

    async def metrics_text(request: Request) -> Response:
        body, content_type = metrics.exposition()
        return Response(body, media_type=content_type)

    routes = [
        Route(INSTALL_PATH, install, methods=["GET"]),
        Route(REDIRECT_PATH, oauth_redirect, methods=["GET"]),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/livez", livez, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/metrics", metrics_text, methods=["GET"]),
    ]
    if events:
        routes.append(Route(EVENTS_PATH, slack_events, methods=["POST"]))
    return Starlette(routes=routes)


def _signing_secret_of(app: App) -> str:
    """The secret Bolt's own request verification uses (Bolt does not expose it publicly)."""
    secret = getattr(app, "_signing_secret", "")
    return secret if isinstance(secret, str) else ""
