"""Two malloc arenas for the serving process, unless its operator chose otherwise.

glibc gives each thread that allocates while another holds an arena an arena of its own, up to
eight per core, and keeps what it once used. A replica's worker threads kept its resident
memory growing through half an hour of traffic; with two arenas it levelled off (bench/README.md,
the soak). ``MALLOC_ARENA_MAX`` in the environment does the same before the process starts, and
wins when set.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
from collections.abc import Mapping

log = logging.getLogger(__name__)

M_ARENA_MAX = -8  # glibc's <malloc.h>
ARENAS = 2


def limit_malloc_arenas(environ: Mapping[str, str] = os.environ) -> int | None:
    """Hold glibc to :data:`ARENAS` arenas from here on (call it before threads start).

    Returns:
        The limit set; None when ``MALLOC_ARENA_MAX`` is set already (the operator's choice)
        or the C library is not glibc.
    """
    if "MALLOC_ARENA_MAX" in environ:
        return None
    try:
        mallopt = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").mallopt
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to hold
        return None
    if mallopt(M_ARENA_MAX, ARENAS) != 1:
        log.info("the C library refused to limit its malloc arenas")
        return None
    return ARENAS
