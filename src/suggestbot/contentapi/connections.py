"""How the service client's HTTP connections are made and kept: one TLS context for every
client, how long an idle connection is kept, and which request was last handed to the
transport (to tell a run creation that never left from one whose answer was lost)."""

from __future__ import annotations

import functools
import ssl
import threading
from typing import Final

import httpx


class SendTracker:
    """Remembers, per thread, the last request handed to the transport.

    When run creation fails without an answer, this tells a failed token exchange (the run
    request never left) from a lost answer to the run request itself (the run may exist).
    """

    def __init__(self) -> None:
        self._local = threading.local()

    def note(self, request: httpx.Request) -> None:
        """Remember ``request`` as this thread's last one handed over (an httpx hook)."""
        self._local.last = request

    def was_handed_over(self, request: httpx.Request) -> bool:
        """Whether ``request`` itself left for the transport (not only a token exchange)."""
        return getattr(self._local, "last", None) is request

    def forget(self) -> None:
        """Forget this thread's last request once its outcome is known."""
        self._local.last = None


# How long an idle connection is kept for the next request. Servers close theirs after a few
# seconds (uvicorn's and Node's default: 5 s); a request sent on one as the server closes it gets
# no answer, and a run creation without an answer is uncertain (its brief fails). httpx's own
# default is those same 5 s, which failed about one brief in 1,500 at full intake.
KEEPALIVE_EXPIRY_S: Final = 2.0


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The TLS context every client shares: httpx's default, made once per process.

    Building one loads the CA bundle (about a tenth of a second of CPU), and clients are made at
    every start, for the health probe and per installed workspace. A context is safe to share
    between threads and clients.
    """
    return httpx.create_ssl_context()
