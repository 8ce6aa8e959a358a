"""Run an ASGI app on a loopback port in a background thread.

The sandbox, the Slack emulator and the app's HTTP mode are all ASGI apps. Tests, benchmarks
and the demo start them in-process on an ephemeral port (never a fixed one) and must be able to
stop them cleanly, so the socket is bound here first and its real port is known before
uvicorn starts serving.
"""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType
from typing import Any, Self

import uvicorn

_START_TIMEOUT_S = 10.0


class BackgroundServer:
    """An ASGI app served by uvicorn on ``host:port`` in a daemon thread.

    Use as a context manager, or call :meth:`start` and :meth:`stop`. ``port=0`` picks a free
    ephemeral port; :attr:`url` gives the base address once started.
    """

    def __init__(
        self,
        app: Any,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        log_level: str = "warning",
        name: str = "asgi-server",
    ) -> None:
        self._app = app
        self._host = host
        self._port = port
        self._log_level = log_level
        self._name = name
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    @property
    def port(self) -> int:
        if self._socket is None:
            raise RuntimeError("server not started")
        return int(self._socket.getsockname()[1])

    @property
    def url(self) -> str:
        return f"http://{self._host}:{self.port}"

    def start(self) -> Self:
        if self._server is not None:
            return self
        # The protocol must say TCP: asyncio turns Nagle's algorithm off only then, and without
        # that every response on a kept-alive connection waits ~40 ms for a delayed ACK.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self._host, self._port))
        sock.listen(1024)
        self._socket = sock
        config = uvicorn.Config(
            self._app,
            log_level=self._log_level,
            lifespan="off",
            # Leave logging to the app (configure_logging), so its redaction applies to uvicorn too.
            log_config=None,
            access_log=False,
            timeout_graceful_shutdown=2,
        )
        server = uvicorn.Server(config)
        # uvicorn installs signal handlers only on the main thread; ours never is.
        self._server = server
        self._thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name=self._name, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + _START_TIMEOUT_S
        while not server.started:
            if not self._thread.is_alive():
                raise RuntimeError(f"{self._name} failed to start")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self._name} did not start within {_START_TIMEOUT_S} s")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        """Stop serving (idempotent); waits for the server thread to end."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self._socket is not None:
            self._socket.close()
            self._socket = None
        self._server = None
        self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
