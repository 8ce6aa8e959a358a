"""The :class:`Sandbox`: state, worker, ASGI app and the admin operations in one object."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from suggestbot.sandbox import admin, api, auth, runs, tenants
from suggestbot.sandbox import seed as seeding
from suggestbot.sandbox.env import Env, RequestCounters
from suggestbot.sandbox.errors import ApiError
from suggestbot.sandbox.faults import Faults
from suggestbot.sandbox.http import error_response
from suggestbot.sandbox.ids import ADMIN_KEY_PREFIX, IdFactory, new_secret, system_clock
from suggestbot.sandbox.server import SandboxServer
from suggestbot.sandbox.state import State
from suggestbot.sandbox.worker import Worker

logger = logging.getLogger(__name__)


def _aware(clock: Callable[[], datetime]) -> Callable[[], datetime]:
    """Read naive datetimes from an injected clock as UTC."""

    def now() -> datetime:
        value = clock()
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)

    return now


class Sandbox:
    """A contract-faithful local Content Suggestion Service.

    Args:
        admin_key: value of the ``X-Sandbox-Admin-Key`` header for ``/sandbox/``; random if None.
        time_factor: multiplies run timings and the 10-minute attempt limit (tests use e.g. 0.01).
        data_dir: keep state in ``data_dir/sandbox-state.json`` across restarts; memory if None.
        seed: create the demo tenants and content when starting without saved state.
        clock: current time (aware UTC); tests inject a fake one.
    """

    def __init__(
        self,
        *,
        admin_key: str | None = None,
        time_factor: float = 1.0,
        data_dir: Path | None = None,
        seed: bool = True,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        if time_factor <= 0:
            raise ValueError("time_factor must be positive")
        self.admin_key = admin_key or new_secret(ADMIN_KEY_PREFIX)
        self.data_dir = Path(data_dir) if data_dir is not None else None
        now = _aware(clock or system_clock)
        loaded = State.load(self.data_dir) if self.data_dir is not None else None
        self.env = Env(
            state=loaded or State(),
            ids=IdFactory(clock=now),
            clock=now,
            faults=Faults(),
            time_factor=time_factor,
        )
        self.demo: seeding.Demo | None = None
        if loaded is None and seed:
            self.demo = seeding.apply(self.env)
        elif loaded is not None and seeding.DEMO.tenant_id in loaded.tenants:
            self.demo = seeding.DEMO
        self._save_lock = threading.Lock()
        self._worker = Worker(self.env, after_tick=self.flush)
        self.app = self._build_app()
        self.flush()

    def __repr__(self) -> str:
        return f"Sandbox(data_dir={self.data_dir!r}, time_factor={self.env.time_factor})"

    # --- lifecycle -------------------------------------------------------------------------

    @property
    def faults(self) -> Faults:
        return self.env.faults

    @property
    def counters(self) -> RequestCounters:
        return self.env.counters

    def start(self) -> Sandbox:
        """Start the worker thread that moves runs along (idempotent)."""
        self._worker.start()
        return self

    def stop(self) -> None:
        """Stop the worker and write the state if persistent (idempotent)."""
        self._worker.stop()
        self.flush()

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def serve(
        self, port: int = 0, *, host: str = "127.0.0.1", worker: bool = True
    ) -> SandboxServer:
        """Serve the app on ``host:port`` and start the worker; stop both with the server.

        ``worker=False`` leaves runs to :meth:`process_due` (tests on a fake clock).
        """
        return SandboxServer(self, host=host, port=port, worker=worker).start()

    def process_due(self) -> int:
        """Make every transition that is due now (what the worker does on each tick)."""
        moved, _ = runs.advance(self.env)
        self.flush()
        return moved

    def flush(self) -> None:
        """Write the state file now if anything changed (no-op without ``data_dir``)."""
        if self.data_dir is None or not self.env.state.dirty:
            return
        with self._save_lock:
            self.env.state.save(self.data_dir)

    def _build_app(self) -> Starlette:
        env = self.env

        async def http_error(request: Request, exc: Exception) -> Response:
            status = exc.status_code if isinstance(exc, HTTPException) else 500
            code = {404: "not_found", 405: "method_not_allowed"}.get(status, "internal_error")
            return error_response(env, ApiError(status, code), knobs=False)

        return Starlette(
            routes=[*api.build_routes(env), *admin.build_routes(env, admin_key=self.admin_key)],
            exception_handlers={404: http_error, 405: http_error},
        )

    # --- admin operations (also under /sandbox/ and in the CLI) -------------------------------

    def create_tenant(self, name: str, locale: str, *, tenant_id: str | None = None) -> str:
        return tenants.create_tenant(self.env, name=name, locale=locale, tenant_id=tenant_id)

    def add_segment(
        self,
        tenant_id: str,
        name: str,
        description: str,
        set_up: bool = True,
        *,
        segment_id: str | None = None,
    ) -> str:
        return tenants.add_segment(
            self.env,
            tenant_id=tenant_id,
            name=name,
            description=description,
            set_up=set_up,
            segment_id=segment_id,
        )

    def add_use_case(
        self,
        tenant_id: str,
        name: str,
        *,
        precompute_variants: int = 3,
        use_case_id: str | None = None,
    ) -> str:
        return tenants.add_use_case(
            self.env,
            tenant_id=tenant_id,
            name=name,
            precompute_variants=precompute_variants,
            use_case_id=use_case_id,
        )

    def create_credential(
        self,
        tenant_id: str,
        expires_in_s: float | None = None,
        *,
        client_id: str | None = None,
        client_secret: str | None = None,
    ) -> tuple[str, str]:
        """A machine credential ``(client_id, client_secret)``; the secret is kept hashed."""
        return auth.create_credential(
            self.env,
            tenant_id=tenant_id,
            expires_in_s=expires_in_s,
            client_id=client_id,
            client_secret=client_secret,
        )

    def revoke_credential(self, client_id: str) -> None:
        auth.revoke_credential(self.env, client_id=client_id)

    def rotate_credential(self, client_id: str) -> str:
        return auth.rotate_credential(self.env, client_id=client_id)

    def create_user_token(
        self, tenant_id: str, user_id: str | None = None, *, token: str | None = None
    ) -> tuple[str, str]:
        """A user token ``(user_id, token)`` bound to ``tenant_id``."""
        return auth.create_user_token(self.env, tenant_id=tenant_id, user_id=user_id, token=token)

    def revoke_user_token(self, token: str) -> None:
        auth.revoke_user_token(self.env, token=token)

    def set_steering(self, tenant_id: str, enabled: bool) -> int:
        """Switch generation from own instructions; off fails waiting runs. Returns how many."""
        return tenants.set_steering(self.env, tenant_id=tenant_id, enabled=enabled)

    def run_precompute(
        self, tenant_id: str, segment_id: str | None = None, use_case_id: str | None = None
    ) -> list[str]:
        """The overnight run, now: a new ready-made version for every set-up pair (or one)."""
        return tenants.run_precompute(
            self.env, tenant_id=tenant_id, segment_id=segment_id, use_case_id=use_case_id
        )

    def describe_tenants(self) -> list[dict[str, Any]]:
        """Tenants with their segments and use cases (no secrets)."""
        return tenants.describe_tenants(self.env)
