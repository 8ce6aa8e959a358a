"""``/livez`` and ``/readyz``: is the process serving, and should a load balancer send to it?

Liveness depends on nothing: a replica whose database is down must not be restarted for it
(a restart cannot bring the database back, and it would drop the work in flight). Readiness is
what a load balancer routes by: the store answers and its schema is this version's, and the
process is not draining (after SIGTERM it keeps serving for a grace period, answering 503 here
so that the balancer stops sending before the port closes).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from suggestbot.store import SchemaNotCurrent, Store, StoreError, StoreUnavailable

log = logging.getLogger(__name__)


class Readiness:
    """The ``/readyz`` report; :meth:`drain` turns it to not-ready for good."""

    def __init__(self, *, store: Store) -> None:
        self._store = store
        self._draining = threading.Event()
        self._last_error: str | None = None

    def drain(self) -> None:
        self._draining.set()

    @property
    def draining(self) -> bool:
        return self._draining.is_set()

    def report(self) -> dict[str, Any]:
        """``{"ok": bool, "draining": bool, "store": "ok" | what is wrong}``."""
        if self._draining.is_set():
            return {"ok": False, "draining": True, "store": "not checked"}
        store = self._check_store()
        return {"ok": store == "ok", "draining": False, "store": store}

    def _check_store(self) -> str:
        try:
            self._store.check_ready()
        except SchemaNotCurrent:
            error = "schema not current"
        except StoreUnavailable:
            error = "unreachable"
        except StoreError:
            error = "failing"
        except Exception as exc:  # a probe reports, it does not raise
            error = type(exc).__name__
        else:
            self._last_error = None
            return "ok"
        if error != self._last_error:  # one line per change, not one per probe
            log.warning("readiness: the store is not ready (%s)", error)
            self._last_error = error
        return error
