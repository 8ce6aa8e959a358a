"""Requests per second the sandbox serves: single run polls, or pages of the run listing.

The app's own benchmarks poll runs against the sandbox, so the sandbox must never be their
bottleneck. Two modes:

- ``--endpoint poll`` (default): ``GET /v1/generation-runs/{id}`` of one succeeded run; goal
  more than 1,000 requests per second on a 2-core machine;
- ``--endpoint listing``: ``GET /v1/generation-runs?limit=100&cursor=...`` over a tenant with
  ``--runs`` queued runs (5,000 by default, as in ``watcher_scale.py``), each request a page
  picked at random along the cursor chain (so pages deep in the listing count as much as the
  first). Goal: more than 200 pages (20,000 runs) a second — the run watcher at 5,000 runs
  needs about 100 pages a second at most (a sweep of all 50 pages a second) — and a page's
  cost not growing with the tenant's runs (compare ``--runs 500`` with ``--runs 5000``).

The sandbox runs in its own process (``python -m suggestbot sandbox --port 0``) so that the load
generator does not share its interpreter lock. The load generator is a small asyncio client on
raw keep-alive sockets: an HTTP client library would cost more per request than the server.
Traffic goes to 127.0.0.1 only, and the run is bounded in time and in request count.

Usage: python bench/sandbox_throughput.py [--endpoint poll|listing] [--runs 5000] [--seconds 5]
       [--connections 8] [--min-rps N]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import secrets
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from benchkit import (
    Goal,
    child_cpu_seconds,
    create_runs,
    goal_rows,
    goals_json,
    load_average,
    machine,
    machine_token,
    report,
    sandbox_process,
    spread,
)

from suggestbot.sandbox import ADMIN_KEY_HEADER, DEMO

_MAX_REQUESTS = 2_000_000
PAGE_SIZE = 100


@dataclass
class Tally:
    ok: int = 0
    errors: int = 0
    latencies: list[float] = field(default_factory=list)


def succeeded_run(url: str, token: str) -> str:
    """A succeeded run to poll."""
    with httpx.Client(base_url=url, timeout=10) as http:
        body = {
            "type": "steered_generation",
            "segment_id": DEMO.segment_id,
            "use_case_id": DEMO.use_case_id,
            "steering_text": "Benchmark brief",
            "variant_count": 3,
        }
        user = {"Authorization": f"Bearer {DEMO.user_token}"}
        run = http.post("/v1/generation-runs", json=body, headers=user).json()
        deadline = time.monotonic() + 10
        while run["status"] in ("queued", "running") and time.monotonic() < deadline:
            time.sleep(0.05)
            run = http.get(
                f"/v1/generation-runs/{run['id']}", headers={"Authorization": f"Bearer {token}"}
            ).json()
        return str(run["id"])


def listing_paths(url: str, token: str) -> list[str]:
    """The path of every page of the run listing, following the cursor chain once."""
    paths = [f"/v1/generation-runs?limit={PAGE_SIZE}"]
    with httpx.Client(base_url=url, timeout=30) as http:
        while True:
            reply = http.get(paths[-1], headers={"Authorization": f"Bearer {token}"})
            reply.raise_for_status()
            cursor = reply.json()["meta"]["next_cursor"]
            if cursor is None:
                return paths
            paths.append(f"/v1/generation-runs?limit={PAGE_SIZE}&cursor={cursor}")


async def _connection(
    host: str,
    port: int,
    requests: list[bytes],
    stop_at: float,
    tally: Tally,
    budget: list[int],
    rng: random.Random,
) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        while time.perf_counter() < stop_at and budget[0] > 0:
            budget[0] -= 1
            started = time.perf_counter()
            writer.write(rng.choice(requests))
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))  # type: ignore[union-attr]
            await reader.readexactly(length)
            tally.latencies.append(time.perf_counter() - started)
            if head.startswith(b"HTTP/1.1 200"):
                tally.ok += 1
            else:
                tally.errors += 1
    finally:
        writer.close()


async def load(
    url: str, paths: list[str], token: str, *, seconds: float, connections: int
) -> Tally:
    """Raw keep-alive HTTP/1.1 on ``connections`` sockets, each sending a random one of
    ``paths`` until ``seconds`` have passed."""
    host, port = url.removeprefix("http://").split(":")
    requests = [
        (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
            f"Authorization: Bearer {token}\r\nAccept: application/json\r\n\r\n"
        ).encode()
        for path in paths
    ]
    tally = Tally()
    budget = [_MAX_REQUESTS]
    stop_at = time.perf_counter() + seconds
    await asyncio.gather(
        *(
            _connection(host, int(port), requests, stop_at, tally, budget, random.Random(n))
            for n in range(connections)
        )
    )
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--endpoint", choices=["poll", "listing"], default="poll")
    parser.add_argument("--runs", type=int, default=5000, help="runs in the tenant (listing)")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--min-rps", type=float, help="goal (default 1,000 polls, 200 pages)")
    args = parser.parse_args()
    listing = args.endpoint == "listing"
    goal_rps = args.min_rps or (200.0 if listing else 1000.0)
    load_before = load_average()

    admin_key = secrets.token_hex(8)
    with sandbox_process(admin_key=admin_key, time_factor=0.001) as (pid, url):
        token = machine_token(url)
        if listing:
            with httpx.Client(base_url=url, headers={ADMIN_KEY_HEADER: admin_key}) as admin:
                admin.patch(
                    "/sandbox/faults", json={"run_timing": {"queued_s": 1e6}}
                ).raise_for_status()
            create_runs(url, args.runs)
            paths = listing_paths(url, token)
        else:
            paths = [f"/v1/generation-runs/{succeeded_run(url, token)}"]
        asyncio.run(load(url, paths, token, seconds=0.5, connections=args.connections))
        cpu0 = child_cpu_seconds(pid)
        started = time.perf_counter()
        tally = asyncio.run(
            load(url, paths, token, seconds=args.seconds, connections=args.connections)
        )
        elapsed = time.perf_counter() - started
        cpu1 = child_cpu_seconds(pid)
    load_after = load_average()

    total = tally.ok + tally.errors
    rps = round(total / elapsed, 1)
    latency = spread(tally.latencies, scale=1000.0, digits=2)
    cpu = round(cpu1 - cpu0, 2) if cpu0 is not None and cpu1 is not None else None
    unit = "pages" if listing else "polls"
    goals = [
        Goal(f"{unit} per second > {goal_rps:g}", rps > goal_rps, f"{rps}/s"),
        Goal("no errors", tally.errors == 0, f"{tally.errors} of {total}"),
    ]
    f: dict[str, Any] = {
        "endpoint": "GET /v1/generation-runs" if listing else "GET /v1/generation-runs/{id}",
        "runs_in_tenant": args.runs if listing else None,
        "pages_in_listing": len(paths) if listing else None,
        "connections": args.connections,
        "seconds": round(elapsed, 2),
        "requests": total,
        "errors": tally.errors,
        "requests_per_second": rps,
        "runs_listed_per_second": round(rps * PAGE_SIZE) if listing else None,
        "latency_ms": latency,
        "sandbox_cpu_s_per_request_ms": round(cpu / total * 1000, 3) if cpu and total else None,
        "loadavg_before": load_before,
        "loadavg_after": load_after,
    }
    rows: list[tuple[str, Any]] = [
        ("endpoint", f["endpoint"]),
        *([("runs in the tenant / pages", f"{args.runs} / {len(paths)}")] if listing else []),
        ("connections", args.connections),
        ("requests (errors)", f"{total} ({tally.errors})"),
        (f"{unit} per second", rps),
        (
            "latency p50 / p99 / max (ms)",
            f"{latency.get('p50')} / {latency.get('p99')} / {latency.get('max')}",
        ),
        ("sandbox CPU ms per request", f["sandbox_cpu_s_per_request_ms"]),
        ("load average before / after", f"{load_before} / {load_after}"),
        *goal_rows(goals),
    ]
    result = {
        "benchmark": f"sandbox_throughput_{args.endpoint}",
        **f,
        "goals": goals_json(goals),
        "machine": machine(),
    }
    report(f"sandbox throughput: {f['endpoint']}", rows, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
