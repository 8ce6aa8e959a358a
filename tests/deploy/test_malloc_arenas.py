"""The serving process holds glibc to two malloc arenas (``server.memory``): with one arena per
busy thread, a replica's memory kept growing through a 30-minute soak. Counted in a fresh
interpreter by glibc itself (``malloc_info``) after eight threads allocate at once."""

from __future__ import annotations

import ctypes.util
import os
import platform
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(
    platform.libc_ver()[0] != "glibc", reason="malloc arenas are glibc's"
)

PROBE = """
import ctypes, ctypes.util, sys, tempfile, threading, time
from suggestbot.server.memory import limit_malloc_arenas
limited = limit_malloc_arenas() if sys.argv[1] == "limit" else None
go, done = threading.Barrier(8), threading.Event()
def allocate():
    go.wait()
    kept = [bytearray(200) for _ in range(20000)]
    done.wait()
threads = [threading.Thread(target=allocate) for _ in range(8)]
for thread in threads:
    thread.start()
time.sleep(0.5)
libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.fopen.restype = ctypes.c_void_p
with tempfile.NamedTemporaryFile("r") as report:
    handle = ctypes.c_void_p(libc.fopen(report.name.encode(), b"w"))
    libc.malloc_info(0, handle)
    libc.fclose(handle)
    arenas = report.read().count("<heap nr=")
done.set()
for thread in threads:
    thread.join()
print(limited, arenas)
"""


def _arenas(mode: str, **env: str) -> tuple[str, int]:
    clean = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    out = subprocess.run(
        [sys.executable, "-c", PROBE, mode],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.split()
    return out[0], int(out[1])


def test_eight_allocating_threads_share_two_arenas_once_limited() -> None:
    assert ctypes.util.find_library("c")
    limited, arenas = _arenas("limit")
    assert limited == "2" and arenas <= 2
    # the same threads without the limit: an arena each (what the soak's replicas had)
    assert _arenas("none")[1] > 2


def test_an_operators_malloc_arena_max_is_left_as_it_is() -> None:
    limited, arenas = _arenas("limit", MALLOC_ARENA_MAX="4")
    assert limited == "None" and arenas <= 4
