"""``GET /healthz``: can this process do its work? Its store, its scheduler, the service.

The store is checked by writing a record and reading it back (one small durable write per
probe), because a store that still reads but can no longer write loses what users type. The
write runs on a thread of its own and is given :data:`STORE_PROBE_TIMEOUT_S`: a store that
waits for a lock held elsewhere (SQLite waits out its busy timeout, more than once) is
reported unhealthy at once instead of holding the probe, and the prober, for tens of seconds.
One such write at a time: while it is still waiting, later probes report the store unhealthy
without starting another.

The service is checked with a cheap read (``GET /v1/use-cases`` with the machine token) under
a short timeout and no retries, and the answer is remembered for a few seconds, so that
frequent probes (a load balancer, Docker's ``HEALTHCHECK``) never turn into load on the
service; concurrent probes share one check. The report names what failed, never a secret.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from suggestbot.contentapi import ClientCredentialsAuth, ContentApiError, ContentClient
from suggestbot.store import Store
from suggestbot.store.records import HealthProbe, Records

log = logging.getLogger(__name__)

PROBE_TIMEOUT_S = 3.0
PROBE_TTL_S = 10.0
STORE_PROBE_TIMEOUT_S = 2.0


def probe_client(base_url: str, client_id: str, client_secret: str) -> ContentClient:
    """A machine client for health checks only: short timeout, no retries."""
    auth = ClientCredentialsAuth.for_base_url(base_url, client_id, client_secret)
    return ContentClient(base_url, auth=auth, timeout=PROBE_TIMEOUT_S, max_retries=0)


class ServiceProbe:
    """Whether the service answers a cheap read, checked at most once every ``ttl_s``.

    Args:
        read: the cheap read; raises when the service cannot be used.
        ttl_s: how long an answer is reused.
        clock: monotonic seconds; tests pass a fake one.
    """

    def __init__(
        self,
        read: Callable[[], object],
        *,
        ttl_s: float = PROBE_TTL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._read = read
        self._ttl_s = ttl_s
        self._clock = clock
        self._lock = threading.Lock()
        self._last: tuple[float, dict[str, Any]] | None = None
        self.checks = 0

    def __repr__(self) -> str:
        return f"ServiceProbe(ttl_s={self._ttl_s})"

    def status(self) -> dict[str, Any]:
        """``{"ok": bool, "error": code or None, "checked_s_ago": seconds}``."""
        with self._lock:
            now = self._clock()
            if self._last is None or now - self._last[0] >= self._ttl_s:
                self._last = (now, self._check())
            checked_at, answer = self._last
            return {**answer, "checked_s_ago": round(now - checked_at, 1)}

    def _check(self) -> dict[str, Any]:
        self.checks += 1
        try:
            self._read()
        except ContentApiError as exc:
            error = exc.code or type(exc).__name__
        except Exception as exc:  # a health check reports, it does not raise
            error = type(exc).__name__
        else:
            return {"ok": True, "error": None}
        log.warning("health: the content service check failed (%s)", error)
        return {"ok": False, "error": error}


class Health:
    """The ``/healthz`` report: ``ok`` only when the store, the scheduler and the service are."""

    def __init__(
        self,
        *,
        store: Store,
        scheduler_running: Callable[[], bool],
        service: ServiceProbe,
        secrets: Callable[[], dict[str, Any]] | None = None,
    ) -> None:
        self._probes = Records(store).health
        self._writing: threading.Thread | None = None  # a store probe still waiting
        self._writing_lock = threading.Lock()
        self._scheduler_running = scheduler_running
        self._service = service
        self._secrets = secrets

    def report(self) -> dict[str, Any]:
        store_ok = self._store_writes()
        scheduler_ok = bool(self._scheduler_running())
        service = self._service.status()
        report: dict[str, Any] = {
            "ok": store_ok and scheduler_ok and bool(service["ok"]),
            "store": store_ok,
            "scheduler": scheduler_ok,
            "service": service,
        }
        if self._secrets is not None:
            # Reported, not failing "ok": a restart cannot bring a lost key back, and every
            # user whose secret is readable is still served.
            report["secrets"] = self._secrets()
        return report

    def _store_writes(self) -> bool:
        """Whether the store wrote a record and read it back within
        :data:`STORE_PROBE_TIMEOUT_S` (on a thread of its own, one at a time)."""
        result: list[bool] = []
        with self._writing_lock:
            if self._writing is not None and self._writing.is_alive():
                log.warning("health: the store has not finished the last probe's write")
                return False
            thread = threading.Thread(
                target=lambda: result.append(self._write_and_read()),
                name="suggestbot-health-store",
                daemon=True,
            )
            self._writing = thread
            thread.start()
        thread.join(STORE_PROBE_TIMEOUT_S)
        if not result:
            log.warning(
                "health: the store did not write within %.0f s (a lock held elsewhere?)",
                STORE_PROBE_TIMEOUT_S,
            )
            return False
        return result[0]

    def _write_and_read(self) -> bool:
        """Write a record and read it back: a store that only reads (a full disk, a read-only
        file, a lock held elsewhere) cannot record what users type."""
        stamp = HealthProbe(at=time.time())
        try:
            self._probes.put("probe", stamp)
            return self._probes.get("probe") == stamp
        except Exception as exc:  # a health check reports, it does not raise
            log.warning("health: the store cannot be written (%s)", type(exc).__name__)
            return False
