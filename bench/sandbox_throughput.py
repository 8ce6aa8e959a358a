"""Requests per second the sandbox serves for run polling (GET /v1/generation-runs/{id}).

The app's own benchmarks poll runs against the sandbox, so the sandbox must never be their
bottleneck: the goal is more than 1,000 requests per second on a 2-core machine.

The sandbox runs in its own process (``python -m suggestbot sandbox --port 0``) so that the load
generator does not share its interpreter lock. The load generator is a small asyncio client on
raw keep-alive sockets: an HTTP client library would cost more per request than the server.
Traffic goes to 127.0.0.1 only, and the run is bounded in time and in request count.

Usage: python bench/sandbox_throughput.py [--seconds 5] [--connections 8] [--min-rps 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import secrets
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field

import httpx

from suggestbot.sandbox import DEMO

_MAX_REQUESTS = 2_000_000


@dataclass
class Tally:
    ok: int = 0
    errors: int = 0
    latencies: list[float] = field(default_factory=list)


def start_server(admin_key: str) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "suggestbot",
            "sandbox",
            "--port",
            "0",
            "--admin-key",
            admin_key,
            "--time-factor",
            "0.001",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    for line in process.stdout:
        found = re.search(r"http://127\.0\.0\.1:\d+", line)
        if found:
            return process, found.group(0)
    raise RuntimeError("sandbox did not start")


def prepare_run(url: str) -> tuple[str, str]:
    """A succeeded run to poll, and a machine token to poll it with."""
    with httpx.Client(base_url=url, timeout=10) as http:
        form = {
            "grant_type": "client_credentials",
            "client_id": DEMO.client_id,
            "client_secret": DEMO.client_secret,
        }
        token = http.post("/auth/token", data=form).json()["access_token"]
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
        return str(run["id"]), str(token)


async def _connection(
    host: str, port: int, request: bytes, stop_at: float, tally: Tally, budget: list[int]
) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        while time.perf_counter() < stop_at and budget[0] > 0:
            budget[0] -= 1
            started = time.perf_counter()
            writer.write(request)
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


async def load(url: str, run_id: str, token: str, *, seconds: float, connections: int) -> Tally:
    host, port = url.removeprefix("http://").split(":")
    request = (
        f"GET /v1/generation-runs/{run_id} HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Authorization: Bearer {token}\r\nAccept: application/json\r\n\r\n"
    ).encode()
    tally = Tally()
    budget = [_MAX_REQUESTS]
    stop_at = time.perf_counter() + seconds
    await asyncio.gather(
        *(_connection(host, int(port), request, stop_at, tally, budget) for _ in range(connections))
    )
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--min-rps", type=float, default=1000.0)
    args = parser.parse_args()

    process, url = start_server(secrets.token_hex(8))
    try:
        run_id, token = prepare_run(url)
        asyncio.run(load(url, run_id, token, seconds=0.5, connections=args.connections))
        started = time.perf_counter()
        tally = asyncio.run(
            load(url, run_id, token, seconds=args.seconds, connections=args.connections)
        )
        elapsed = time.perf_counter() - started
    finally:
        process.terminate()
        process.wait(timeout=20)

    total = tally.ok + tally.errors
    latencies = sorted(tally.latencies) or [0.0]
    result = {
        "endpoint": "GET /v1/generation-runs/{id}",
        "connections": args.connections,
        "seconds": round(elapsed, 2),
        "requests": total,
        "errors": tally.errors,
        "requests_per_second": round(total / elapsed, 1),
        "latency_ms_p50": round(statistics.median(latencies) * 1000, 2),
        "latency_ms_p99": round(latencies[int(len(latencies) * 0.99) - 1] * 1000, 2),
        "goal_requests_per_second": args.min_rps,
    }
    print(f"{'metric':<26} value")
    for key, value in result.items():
        print(f"{key:<26} {value}")
    print(json.dumps(result))
    passed = tally.errors == 0 and result["requests_per_second"] > args.min_rps
    return 0 if passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
