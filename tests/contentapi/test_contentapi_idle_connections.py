"""Connections the service closes when idle: a run creation must not be sent on one.

Servers close a kept-alive connection that sat idle for a few seconds (uvicorn's and Node's
default is 5 s). When the close crosses a request the client sent on that connection, the
request gets no answer, and for a run creation that is "uncertain": the brief fails and its
author is asked to send it again. The client lets its idle connections go sooner than such
servers do, so it opens a new one instead.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from contentapi_fakes import run_json

from suggestbot.contentapi import ContentClient, SteeredGenerationRequest, UserTokenAuth

# The server's idle timeout here: 5 s, like uvicorn's default (the sandbox's server).
SERVER_IDLE_S = 5.0
# A request sent this long before the server's timer fires arrives as it closes (a busy
# machine's delay between a connection leaving the client's pool and the bytes being read).
CROSSING_S = 0.5


class IdleClosingServer:
    """HTTP/1.1 on loopback that answers every request with a queued run and keeps the
    connection open, except that a request on a connection idle for nearly ``SERVER_IDLE_S``
    (within ``CROSSING_S``) is dropped unanswered: the server's idle timer fired as it came in."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self.connections = 0
        self.dropped = 0
        self._threads: list[threading.Thread] = []
        self._conns: list[socket.socket] = []
        self._stopping = False
        self._accepting = threading.Thread(target=self._accept, daemon=True)
        self._accepting.start()

    def _accept(self) -> None:
        while not self._stopping:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            self.connections += 1
            self._conns.append(conn)
            thread = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, conn: socket.socket) -> None:
        idle_since = time.monotonic()
        with conn:
            reader = conn.makefile("rb")
            while True:
                try:
                    request_line = reader.readline()
                except OSError:
                    return
                if not request_line:
                    return
                length = 0
                while (header := reader.readline()) not in (b"\r\n", b""):
                    name, _, value = header.decode().partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                reader.read(length)
                if time.monotonic() - idle_since >= SERVER_IDLE_S - CROSSING_S:
                    self.dropped += 1
                    return  # closed without an answer
                body = json.dumps(run_json(id=f"run-{self.connections}")).encode()
                conn.sendall(
                    b"HTTP/1.1 202 Accepted\r\nContent-Type: application/json\r\n"
                    + f"Content-Length: {len(body)}\r\n\r\n".encode()
                    + body
                )
                idle_since = time.monotonic()

    def close(self) -> None:
        self._stopping = True
        self._listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() it waits in
        self._listener.close()
        self._accepting.join(timeout=5)
        for conn in self._conns:
            with contextlib.suppress(OSError):  # already closed
                conn.shutdown(socket.SHUT_RDWR)  # ends the read its thread waits in
        for thread in self._threads:
            thread.join(timeout=5)


@pytest.fixture
def server() -> Iterator[IdleClosingServer]:
    running = IdleClosingServer()
    try:
        yield running
    finally:
        running.close()


def brief() -> SteeredGenerationRequest:
    return SteeredGenerationRequest(segment_id="seg-1", use_case_id="uc-1", steering_text="b")


def test_a_run_created_as_the_server_closes_the_idle_connection_is_sent_on_a_new_one(
    server: IdleClosingServer,
) -> None:
    with ContentClient(server.url, auth=UserTokenAuth("user-token"), timeout=10) as client:
        client.create_run(request=brief())
        time.sleep(SERVER_IDLE_S - CROSSING_S / 2)
        run = client.create_run(request=brief())
    assert run.id == "run-2"
    assert (server.connections, server.dropped) == (2, 0)
