"""What one store operation costs on the ack path, on PostgreSQL and on the SQLite file.

Before it acks a ``/suggest brief``, the app claims the delivery (``DeliveryLog.first_time``:
an ``update`` of an absent key), reads the linked user (``get``), records the brief (``put``)
and counts it (``update`` of an existing key). Before it acks a thread reply, a modal
submission or a button press that starts work, the claim also keeps the delivery, sealed, and
holds it for this replica as a unit of work (``held``: ``first_time(key, pending=…)``). This
script times each kind alone, one call after the other from one thread, so the figures are the
cost of one call with nothing competing in the process: wall time (what the ack waits for) and
the process's CPU time (what the other threads wait for, under one interpreter lock), median
and p99 in milliseconds.

PostgreSQL is a throwaway 15 cluster on loopback with its production durability settings
(``fsync``, ``full_page_writes`` and ``synchronous_commit`` on), made by ``benchkit``; the
SQLite file is the default backend (WAL, ``synchronous=NORMAL``) in a temporary directory.

Usage: python bench/store_costs.py [--ops 2000] [--profile KIND]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchkit import load_average, machine, postgres_database, quiet_logging, report, spread

from suggestbot.store import Store, open_store
from suggestbot.store.codec import Record
from suggestbot.store.deliveries import DeliveryLog
from suggestbot.store.postgres import PostgresStore

KINDS = ("put", "update", "claim", "held", "get")
# About the size of a brief's request record.
RECORD: Record = {"team_id": "T0BENCH", "user_id": "U0BENCH", "text": "x" * 400, "n": 0}
# About the size of a sealed thread reply's delivery.
SEALED = "s" * 3000


def _bump(old: Record | None) -> Record:
    count = old.get("n", 0) if old else 0
    return {**RECORD, "n": int(count) + 1 if isinstance(count, int) else 1}


def operations(store: Store) -> dict[str, Callable[[int], Any]]:
    """One call of each kind, as the ack path makes it (``n`` numbers the call)."""
    deliveries = DeliveryLog(store)
    store.put("users", "T0BENCH:U0BENCH", RECORD)
    return {
        "put": lambda n: store.put("requests", f"r{n:06d}", RECORD),
        "update": lambda n: store.update("usage_days", f"T0BENCH:{n % 10}", _bump),
        "claim": lambda n: deliveries.first_time(f"command:{uuid.uuid4().hex}"),
        "held": lambda n: deliveries.first_time(f"event:{uuid.uuid4().hex}", pending=SEALED),
        "get": lambda n: store.get("users", "T0BENCH:U0BENCH"),
    }


def measure(call: Callable[[int], Any], count: int) -> dict[str, Any]:
    for n in range(min(50, count)):  # warm-up: connections, statement caches
        call(-1 - n)
    walls, cpus = [], []
    for n in range(count):
        wall0, cpu0 = time.perf_counter(), time.process_time()
        call(n)
        cpus.append(time.process_time() - cpu0)
        walls.append(time.perf_counter() - wall0)
    wall, cpu = spread(walls, scale=1000), spread(cpus, scale=1000)
    return {"wall_ms": wall, "cpu_ms": cpu}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ops", type=int, default=2000, help="calls per kind and backend")
    parser.add_argument("--profile", choices=KINDS, help="print a profile of this kind on PG")
    args = parser.parse_args()
    quiet_logging()
    load_before = load_average()
    figures: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-store-") as tmp:
        work = Path(tmp)
        with postgres_database(work_dir=work / "pg") as url, PostgresStore(url) as pg:
            ops = operations(pg)
            figures["postgresql"] = {kind: measure(ops[kind], args.ops) for kind in KINDS}
            if args.profile:
                profile = cProfile.Profile()
                profile.runcall(measure, ops[args.profile], args.ops)
                pstats.Stats(profile, stream=sys.stderr).sort_stats("tottime").print_stats(25)
        with open_store(work / "sqlite") as lite:
            ops = operations(lite)
            figures["sqlite"] = {kind: measure(ops[kind], args.ops) for kind in KINDS}
    load_after = load_average()

    rows: list[tuple[str, Any]] = [("ms per call", "wall p50 / p99 · CPU p50 / p99")]
    for backend, kinds in figures.items():
        for kind, got in kinds.items():
            wall, cpu = got["wall_ms"], got["cpu_ms"]
            rows.append(
                (
                    f"{backend}: {kind}",
                    f"{wall['p50']:.3f} / {wall['p99']:.3f} · {cpu['p50']:.3f} / {cpu['p99']:.3f}",
                )
            )
    rows += [
        ("calls per kind", args.ops),
        ("load average before / after", f"{load_before} / {load_after}"),
    ]
    result = {
        "benchmark": "store_costs",
        "ops": args.ops,
        "figures": figures,
        "loadavg_before": load_before,
        "loadavg_after": load_after,
        "goals": {},
        "machine": machine(),
    }
    report("store operations on the ack path, one thread", rows, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
