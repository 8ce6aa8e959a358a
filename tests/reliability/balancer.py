"""A round-robin load balancer on loopback, behaving like the one in front of real replicas.

- It checks each replica's ``/readyz`` every ``check_every_s`` (as nginx or haproxy would with
  an active health check) and sends nothing to a replica that is not ready.
- It forwards every request in turn to the next ready replica, on a fresh connection.
- When no replica is ready it fails open, sending to all of them in turn (as AWS's load
  balancers and Envoy's panic mode do, and the haproxy configuration of ``docker-compose.yml``
  with its backup servers): a database outage makes every replica not ready, and a replica
  that is up can still tell the user what happened, where a balancer's own 503 would show
  them only Slack's ``dispatch_failed``.
- It retries a request on another replica only when the connection was refused before
  anything was sent: a request that reached a replica is never sent twice (a slash command is
  not idempotent), so a failure after that is the client's failure, recorded.
- It reports what it forwarded where (:attr:`forwarded`, :meth:`counts`) and every request it
  could not deliver (:attr:`failures`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Self

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from suggestbot.asgi_thread import BackgroundServer

# Headers that describe one hop, not the request (RFC 9110 §7.6.1), and what httpx sets itself.
HOP_HEADERS = {"connection", "keep-alive", "transfer-encoding", "te", "upgrade", "host"}
HOP_HEADERS |= {"content-length", "proxy-connection", "trailer"}


@dataclass(frozen=True)
class Forwarded:
    """One request and where it went: the replica's index and its answer's status."""

    replica: int
    path: str
    status: int
    after_refusals: int  # replicas that refused the connection before this one took it


class Balancer:
    """Forwards every path to ``replicas`` (base URLs like ``http://127.0.0.1:PORT``).

    Args:
        replicas: the replicas' base URLs, in round-robin order.
        check_every_s: how often each replica's ``/readyz`` is asked.
        timeout_s: how long a forwarded request may take (Slack waits 3 s for an ack; more is
            allowed here so that a slow answer shows as slow, not as a balancer error).
    """

    def __init__(
        self, replicas: Sequence[str], *, check_every_s: float = 0.1, timeout_s: float = 10.0
    ) -> None:
        self.replicas = list(replicas)
        self.check_every_s = check_every_s
        self.timeout_s = timeout_s
        self.forwarded: list[Forwarded] = []
        self.failures: list[str] = []
        self.refusals = 0
        self._ready = [False] * len(self.replicas)
        self._next = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._checker: threading.Thread | None = None
        self._server = BackgroundServer(self._asgi(), name="balancer")

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> Self:
        self._check_all()
        self._checker = threading.Thread(target=self._check_loop, name="balancer-checks")
        self._checker.start()
        self._server.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._checker is not None:
            self._checker.join(timeout=10)
            self._checker = None
        self._server.stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        return self._server.url

    # ------------------------------------------------------------------ what it did

    def counts(self) -> dict[int, int]:
        """How many requests each replica answered."""
        with self._lock:
            found = {index: 0 for index in range(len(self.replicas))}
            for item in self.forwarded:
                found[item.replica] += 1
            return found

    def retried(self) -> int:
        """Requests that went to another replica after a refused connection."""
        with self._lock:
            return sum(1 for item in self.forwarded if item.after_refusals)

    def ready(self) -> list[bool]:
        with self._lock:
            return list(self._ready)

    # ------------------------------------------------------------------ health checks

    def _check_loop(self) -> None:
        while not self._stop.wait(self.check_every_s):
            self._check_all()

    def _check_all(self) -> None:
        with httpx.Client(timeout=1.0) as client:
            for index, base in enumerate(self.replicas):
                try:
                    ready = client.get(base + "/readyz").status_code == 200
                except httpx.HTTPError:
                    ready = False
                with self._lock:
                    self._ready[index] = ready

    def _pick(self, tried: set[int]) -> int | None:
        """The next ready replica in turn that was not tried for this request yet; any
        replica not tried yet when none is ready (fail open)."""
        with self._lock:
            fail_open = not any(self._ready)
            for step in range(len(self.replicas)):
                index = (self._next + step) % len(self.replicas)
                if (fail_open or self._ready[index]) and index not in tried:
                    self._next = index + 1
                    return index
            return None

    # ------------------------------------------------------------------ forwarding

    def _asgi(self) -> Starlette:
        async def forward(request: Request) -> Response:
            body = await request.body()
            headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_HEADERS}
            path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            tried: set[int] = set()
            while (index := self._pick(tried)) is not None:
                tried.add(index)
                try:
                    answer = await self._send(index, request.method, path, headers, body)
                except httpx.ConnectError:
                    # Refused before anything was sent: safe to try another replica. A real
                    # balancer also takes the replica out until its next good check.
                    with self._lock:
                        self._ready[index] = False
                        self.refusals += 1
                    continue
                except httpx.HTTPError as exc:
                    with self._lock:
                        self.failures.append(f"{path} on replica {index}: {type(exc).__name__}")
                    return Response(status_code=502)
                with self._lock:
                    self.forwarded.append(
                        Forwarded(index, request.url.path, answer.status_code, len(tried) - 1)
                    )
                kept = {k: v for k, v in answer.headers.items() if k.lower() not in HOP_HEADERS}
                kept.pop("content-encoding", None)
                return Response(answer.content, status_code=answer.status_code, headers=kept)
            with self._lock:
                self.failures.append(f"{path}: no replica ready (tried {sorted(tried)})")
            return Response("no replica is ready", status_code=503)

        return Starlette(routes=[Route("/{path:path}", forward, methods=["GET", "POST", "HEAD"])])

    async def _send(
        self, index: int, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> httpx.Response:
        # A fresh connection per request: a kept-alive one could be closed by a replica that
        # is shutting down just as a request goes out on it.
        limits = httpx.Limits(max_keepalive_connections=0)
        async with httpx.AsyncClient(timeout=self.timeout_s, limits=limits) as client:
            return await client.request(
                method, self.replicas[index] + path, headers=headers, content=body
            )


def wait_ready(balancer: Balancer, ready: list[bool], *, timeout: float = 30.0) -> None:
    """Wait until the balancer sees exactly ``ready`` (its health checks have caught up)."""
    deadline = time.monotonic() + timeout
    while balancer.ready() != ready:
        if time.monotonic() > deadline:
            raise TimeoutError(f"balancer sees {balancer.ready()}, not {ready}")
        time.sleep(0.02)


__all__ = ["Balancer", "Forwarded", "wait_ready"]
