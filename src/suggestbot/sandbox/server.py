"""Serving a sandbox over loopback, together with its worker thread."""

from __future__ import annotations

from typing import Any, Protocol

from suggestbot.asgi_thread import BackgroundServer


class Servable(Protocol):
    """What serving needs of a sandbox; :class:`~suggestbot.sandbox.core.Sandbox` is one.

    A protocol rather than the class, so the sandbox can hand itself to its server without the
    two modules importing each other.
    """

    @property
    def app(self) -> Any: ...

    def start(self) -> Any: ...

    def stop(self) -> None: ...

    def flush(self) -> None: ...


class SandboxServer(BackgroundServer):
    """Serves a sandbox and also runs (and stops) its worker; ``start``/``stop`` idempotent."""

    def __init__(
        self, sandbox: Servable, *, host: str = "127.0.0.1", port: int = 0, worker: bool = True
    ) -> None:
        super().__init__(sandbox.app, host=host, port=port, name="sandbox-server")
        self.sandbox = sandbox
        self._with_worker = worker

    def start(self) -> SandboxServer:
        if self._with_worker:
            self.sandbox.start()
        try:
            super().start()
        except BaseException:
            self.sandbox.stop()
            raise
        return self

    def stop(self) -> None:
        super().stop()
        if self._with_worker:
            self.sandbox.stop()
        else:
            self.sandbox.flush()
