"""Token exchanges of the service client under many threads, over 30 simulated minutes.

The contract gives tokens an ``expires_in`` (900 s) and asks clients to re-exchange at least
60 s before expiry; the design asks for one exchange at a time however many threads need a
token. So over 30 minutes each tenant's client should exchange exactly once per 840 s window:
at 0, 840 and 1680 s — three exchanges, no more, however many threads call.

``--threads`` threads call ``ContentClient.get_run`` as fast as they can, spread over
``--tenants`` tenants (one client and credential each, as the app has per workspace). Time is
simulated: a clock running ``--speed`` times faster than real time is injected into
``ClientCredentialsAuth(clock=...)`` and read by the fake service, which answers through
``httpx.MockTransport`` (no network at all): ``POST /auth/token`` issues a fresh token, and a
run read checks that its bearer was issued to that tenant and has not expired (else 401, which
would force another exchange and show up in the count).

Goal: exactly one exchange per 840 s window per tenant; no request with an expired token.

Usage: python bench/tokens.py [--threads 100] [--minutes 30] [--speed 100] [--quick]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs

import httpx
from benchkit import Goal, goal_rows, goals_json, machine, quiet_logging, report

from suggestbot.contentapi import ClientCredentialsAuth, ContentClient

BASE_URL = "http://127.0.0.1:9"  # never dialled: the mock transport answers every request
EXPIRES_IN = 900
MARGIN_S = 60.0
WINDOW_S = EXPIRES_IN - MARGIN_S
RUN_ID = "0190c0de-0000-7000-8000-000000000001"


class SimClock:
    """Monotonic simulated seconds: real seconds since start times ``speed``."""

    def __init__(self, speed: float) -> None:
        self.speed = speed
        self._started = time.monotonic()

    def restart(self) -> None:
        """Simulated time starts at 0 when every thread is ready to call."""
        self._started = time.monotonic()

    def __call__(self) -> float:
        return (time.monotonic() - self._started) * self.speed


@dataclass
class Tenant:
    name: str
    client_id: str
    client_secret: str
    exchanges: list[float] = field(default_factory=list)
    calls: int = 0
    rejected: int = 0
    oldest_token_used_s: float = 0.0


@dataclass
class FakeService:
    """Issues tokens and answers run reads; remembers who got which token and when."""

    clock: SimClock
    tenants: dict[str, Tenant]
    _issued: dict[str, tuple[str, float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _run_body: bytes = b""

    def __post_init__(self) -> None:
        self._run_body = json.dumps(
            {
                "id": RUN_ID,
                "type": "steered_generation",
                "status": "running",
                "created_at": datetime.now(UTC).isoformat(),
                "created_by": "0190c0de-0000-7000-8000-0000000000aa",
                "attempt_count": 1,
                "request": {
                    "type": "steered_generation",
                    "segment_id": "0190c0de-0000-7000-8000-0000000000bb",
                    "use_case_id": "0190c0de-0000-7000-8000-0000000000cc",
                    "steering_text": "Benchmark brief",
                    "variant_count": 1,
                },
                "suggestion_set_id": None,
                "suggestion_id": None,
                "error": None,
            }
        ).encode()

    def handle(self, request: httpx.Request) -> httpx.Response:
        now = self.clock()
        if request.url.path == "/auth/token":
            form = parse_qs(request.content.decode())
            tenant = self.tenants.get(form.get("client_id", [""])[0])
            if tenant is None or form.get("client_secret", [""])[0] != tenant.client_secret:
                return _error(400, "invalid_client")
            with self._lock:
                token = f"sbx_at_bench_{tenant.name}_{len(self._issued)}"
                self._issued[token] = (tenant.client_id, now)
                tenant.exchanges.append(now)
            body = {"access_token": token, "token_type": "Bearer", "expires_in": EXPIRES_IN}
            return httpx.Response(200, json=body)
        bearer = request.headers.get("Authorization", "").removeprefix("Bearer ")
        with self._lock:
            issued = self._issued.get(bearer)
        if issued is None:
            return _error(401, "unauthorized")
        tenant = self.tenants[issued[0]]
        age = now - issued[1]
        with self._lock:
            tenant.calls += 1
            tenant.oldest_token_used_s = max(tenant.oldest_token_used_s, age)
            if age >= EXPIRES_IN:
                tenant.rejected += 1
                return _error(401, "unauthorized")
        return httpx.Response(
            200, content=self._run_body, headers={"Content-Type": "application/json"}
        )


def _error(status: int, code: str) -> httpx.Response:
    return httpx.Response(status, json={"errors": [{"code": code, "message": code}]})


def run(args: argparse.Namespace) -> tuple[dict[str, Tenant], float, int]:
    clock = SimClock(args.speed)
    tenants = {
        f"client-{n}": Tenant(name=f"t{n}", client_id=f"client-{n}", client_secret=f"secret-{n}")
        for n in range(args.tenants)
    }
    service = FakeService(clock=clock, tenants=tenants)
    transport = httpx.MockTransport(service.handle)
    clients = [
        ContentClient(
            BASE_URL,
            auth=ClientCredentialsAuth.for_base_url(
                BASE_URL, t.client_id, t.client_secret, clock=clock
            ),
            transport=transport,
        )
        for t in tenants.values()
    ]
    duration_s = args.minutes * 60.0
    real_limit = duration_s / args.speed * 3 + 30
    real_started = time.monotonic()
    errors: list[str] = []
    start = threading.Barrier(args.threads, action=clock.restart)

    def caller(index: int) -> None:
        client = clients[index % len(clients)]
        start.wait(timeout=30)
        while clock() < duration_s and time.monotonic() - real_started < real_limit:
            try:
                client.get_run(run_id=RUN_ID)
            except Exception as exc:  # counted and shown; the run must go on
                errors.append(type(exc).__name__)
                if len(errors) > 1000:
                    return

    threads = [threading.Thread(target=caller, args=(n,), daemon=True) for n in range(args.threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=real_limit + 30)
    for client in clients:
        client.close()
    return tenants, time.monotonic() - real_started, len(errors)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=100)
    parser.add_argument("--tenants", type=int, default=2)
    parser.add_argument("--minutes", type=float, default=30.0, help="simulated minutes")
    parser.add_argument("--speed", type=float, default=100.0, help="simulated s per real s")
    parser.add_argument("--quick", action="store_true", help="run the clock 600x (3 s)")
    args = parser.parse_args()
    if args.quick:
        args.speed = max(args.speed, 600.0)
    quiet_logging()

    tenants, real_s, errors = run(args)
    duration_s = args.minutes * 60.0
    windows = math.ceil(duration_s / WINDOW_S)
    per_tenant: dict[str, Any] = {}
    goals: list[Goal] = []
    for tenant in tenants.values():
        first = tenant.exchanges[0] if tenant.exchanges else 0.0
        counts = [0] * windows
        late = []
        for at in tenant.exchanges:
            slot = int((at - first) // WINDOW_S)
            if slot < windows:
                counts[slot] += 1
            late.append(round(at - first - slot * WINDOW_S, 2))
        per_tenant[tenant.name] = {
            "exchanges": len(tenant.exchanges),
            "exchange_times_s": [round(t, 2) for t in tenant.exchanges],
            "per_window": counts,
            "seconds_after_window_start": late,
            "calls": tenant.calls,
            "rejected_401": tenant.rejected,
            "oldest_token_used_s": round(tenant.oldest_token_used_s, 2),
        }
        goals.append(
            Goal(
                f"{tenant.name}: one exchange per 840 s window",
                counts == [1] * windows and tenant.rejected == 0,
                f"{len(tenant.exchanges)} exchanges, per window {counts}, "
                f"{tenant.rejected} rejected",
            )
        )
    total_calls = sum(t.calls for t in tenants.values())
    rows: list[tuple[str, Any]] = [
        ("threads", args.threads),
        ("tenants", args.tenants),
        ("simulated minutes", args.minutes),
        ("clock speed-up", args.speed),
        ("real seconds", round(real_s, 1)),
        ("calls", total_calls),
        ("calls per real second", round(total_calls / real_s)),
        ("client errors", errors),
    ]
    for name, f in per_tenant.items():
        rows += [
            (f"{name} exchanges", f["exchanges"]),
            (f"{name} exchange times (sim s)", f["exchange_times_s"]),
            (f"{name} exchanges per window", f["per_window"]),
            (f"{name} oldest token used (s)", f["oldest_token_used_s"]),
        ]
    rows += goal_rows(goals)
    result = {
        "benchmark": "tokens",
        "threads": args.threads,
        "tenants": args.tenants,
        "simulated_s": duration_s,
        "speed": args.speed,
        "expires_in_s": EXPIRES_IN,
        "window_s": WINDOW_S,
        "real_s": round(real_s, 1),
        "calls": total_calls,
        "client_errors": errors,
        "per_tenant": per_tenant,
        "goals": goals_json(goals),
        "machine": machine(),
    }
    report("token exchanges, 100 threads, expires_in 900", rows, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
