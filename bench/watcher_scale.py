"""5,000 runs watched at once: are polls on time, what does a poll cost, how big does it get?

The service is the real sandbox in its own process (``python -m suggestbot sandbox``), holding
``--runs`` runs that stay queued for the whole benchmark, so every poll is a full one (the app
reads its record, sends ``GET /v1/generation-runs/{id}`` with the machine token, compares, and
schedules the next poll). The app is the real :class:`~suggestbot.runtime.Runtime` (store,
service client, APScheduler with its worker pool) with its timers wrapped to note when each poll
was due and when it started. Requests are written straight into the store in state
``submitted``, as the brief flow leaves them, and their first polls are spread over one
10-second interval — as if the briefs had come in over those ten seconds — then they follow the
contract's schedule in real time (10 s apart during the first 3 minutes: ``--runs`` / 10 polls a
second).

Figures: poll lateness (started minus due), CPU seconds of the app's process per 1,000 polls
(``resource.getrusage`` over the measured window), peak RSS (``ru_maxrss``). Slack is the
emulator in this process; it is not called (no run changes state).

Goal: lateness p99 < 1 s, peak RSS < 300 MB.

Usage: python bench/watcher_scale.py [--runs 5000] [--seconds 120] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import secrets
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from benchkit import (
    Goal,
    ThreadProfiles,
    child_cpu_seconds,
    cpu_seconds,
    goal_rows,
    goals_json,
    machine,
    quiet_logging,
    report,
    rss_peak_mb,
    sandbox_process,
    spread,
)

from suggestbot.config import Settings
from suggestbot.jobs.scheduler import Scheduler
from suggestbot.jobs.timers import SchedulerTimers
from suggestbot.jobs.watch_list import Due
from suggestbot.runtime import Runtime
from suggestbot.sandbox import ADMIN_KEY_HEADER, DEMO
from suggestbot.slackapp.flows.deps import Deps
from suggestbot.slackapp.flows.records import Request
from suggestbot.slackemu import SlackEmulator
from suggestbot.store import generate_key

FIRST_POLL_S = 10.0
POLL_ROUTE = "GET /v1/generation-runs/{run_id}"
LIST_ROUTE = "GET /v1/generation-runs"
LATENESS_GOAL_S = 1.0
MAX_SECONDS = 120.0
RSS_GOAL_MB = 300.0


class MeasuredTimers(SchedulerTimers):
    """The app's timers, noting for each poll when it was due and when its sweep started
    (a poll taken early to join a sweep counts as 0 s late), and how long sweeps took."""

    def __init__(self, scheduler: Scheduler) -> None:
        super().__init__(scheduler)
        self._noted = threading.Lock()
        self.lateness: list[float] = []
        self.earliness: list[float] = []
        self.sweep_s: list[float] = []
        self.sweep_sizes: list[int] = []
        self.recording = False
        self.profiles: ThreadProfiles | None = None

    def _sweep(self, deps: Deps, team: str | None, due: list[Due]) -> None:
        started = time.time()
        if self.profiles is not None and self.recording:
            self.profiles.call(super()._sweep, deps, team, due)
        else:
            super()._sweep(deps, team, due)
        if self.recording:
            with self._noted:
                late = [started - item.at for item in due]
                self.lateness += [max(s, 0.0) for s in late]
                self.earliness += [-s for s in late if s < 0]
                self.sweep_s.append(time.time() - started)
                self.sweep_sizes.append(len(due))


def progress(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def create_runs(url: str, count: int) -> list[str]:
    """``count`` queued runs of the demo user, created over HTTP, 16 at a time."""

    async def go() -> list[str]:
        body = {
            "type": "steered_generation",
            "segment_id": DEMO.segment_id,
            "use_case_id": DEMO.use_case_id,
            "steering_text": "Benchmark brief for the run watcher",
            "variant_count": 1,
        }
        headers = {"Authorization": f"Bearer {DEMO.user_token}"}
        ids: list[str] = []
        async with httpx.AsyncClient(base_url=url, timeout=30, headers=headers) as client:

            async def one_by_one(n: int) -> None:
                for _ in range(n):
                    reply = await client.post("/v1/generation-runs", json=body)
                    reply.raise_for_status()
                    ids.append(reply.json()["id"])

            workers = 16
            shares = [count // workers + (1 if i < count % workers else 0) for i in range(workers)]
            await asyncio.gather(*(one_by_one(n) for n in shares))
        return ids

    return asyncio.run(go())


def run(args: argparse.Namespace, data_dir: Path) -> dict[str, Any]:
    admin_key = secrets.token_hex(12)
    with sandbox_process(admin_key=admin_key) as (sandbox_pid, url), SlackEmulator() as emu:
        admin = httpx.Client(base_url=url, headers={ADMIN_KEY_HEADER: admin_key}, timeout=30)
        # Runs stay queued far longer than the benchmark: every poll sees an unfinished run.
        admin.patch("/sandbox/faults", json={"run_timing": {"queued_s": 1e6}}).raise_for_status()
        started = time.monotonic()
        run_ids = create_runs(url, args.runs)
        created_s = time.monotonic() - started
        progress(f"created {len(run_ids)} runs in {created_s:.1f} s")

        settings = Settings(
            _env_file=None,
            slack_bot_token=emu.bot_token,
            slack_signing_secret="bench-signing-secret",
            slack_api_url=emu.api_url,
            content_api_url=url,
            content_client_id=DEMO.client_id,
            content_client_secret=DEMO.client_secret,
            suggestbot_secret_keys=generate_key(),
            suggestbot_data_dir=data_dir,
        )
        runtime = Runtime(settings)
        timers = MeasuredTimers(runtime.scheduler)
        timers.profiles = ThreadProfiles() if args.profile else None
        timers.deps = runtime.deps
        runtime.deps.timers = timers
        runtime.timers = timers
        runtime.start()
        try:
            # Stored first (one committed write each), then watched: first polls spread over
            # 10 s, then every 10 s by the contract's schedule. ``sent_at`` is the time of
            # storing, so a run's elapsed time at its first poll is 10-40 s, well inside the
            # schedule's first 3 minutes (10 s apart) for any window up to MAX_SECONDS.
            admin.delete("/sandbox/counters").raise_for_status()
            started = time.monotonic()
            request_ids = []
            for run_id in run_ids:
                req = Request(
                    team_id=emu.team_id,
                    user_id="U0WATCHER",
                    channel_id="C0WATCHER",
                    body={"type": "steered_generation", "steering_text": "x"},
                    state="submitted",
                    run_id=run_id,
                    run_status="queued",
                    attempt=0,
                    sent_at=time.time(),
                )
                runtime.deps.records.requests.put(req.id, req)
                request_ids.append(req.id)
            for request_id in request_ids:
                timers.watch_run(request_id, delay_s=random.uniform(0, FIRST_POLL_S))
            stored_s = time.monotonic() - started
            progress(f"stored and scheduled {len(run_ids)} requests in {stored_s:.1f} s")
            rss_before_mb = rss_peak_mb()
            # Measure once every run has had its first poll.
            time.sleep(FIRST_POLL_S)
            admin.delete("/sandbox/counters").raise_for_status()
            cpu0, sandbox_cpu0, wall0 = cpu_seconds(), child_cpu_seconds(sandbox_pid), time.time()
            timers.recording = True
            time.sleep(args.seconds)
            timers.recording = False
            progress(f"measured {len(timers.lateness)} polls; stopping")
            cpu1, sandbox_cpu1, wall1 = cpu_seconds(), child_cpu_seconds(sandbox_pid), time.time()
            served = admin.get("/sandbox/counters").json()
            singles, pages = served.get(POLL_ROUTE, 0), served.get(LIST_ROUTE, 0)
        finally:
            runtime.stop()
        admin.close()
    if timers.profiles is not None:
        timers.profiles.print()

    polls = len(timers.lateness)
    sandbox_cpu = (
        round(sandbox_cpu1 - sandbox_cpu0, 2)
        if sandbox_cpu0 is not None and sandbox_cpu1 is not None
        else None
    )
    return {
        "runs": args.runs,
        "measured_s": round(wall1 - wall0, 1),
        "polls": polls,
        "polls_per_s": round(polls / (wall1 - wall0), 1),
        "single_run_reads": singles,
        "listing_pages": pages,
        "requests_per_1000_polls": round((singles + pages) / polls * 1000, 1) if polls else None,
        "polls_taken_early": len(timers.earliness),
        "earliness_s": spread(timers.earliness),
        "sweeps": len(timers.sweep_s),
        "sweep_size": spread([float(n) for n in timers.sweep_sizes]),
        "sweep_s": spread(timers.sweep_s),
        "lateness_s": spread(timers.lateness),
        "app_cpu_s": round(cpu1 - cpu0, 2),
        "app_cpu_s_per_1000_polls": round((cpu1 - cpu0) / polls * 1000, 3) if polls else None,
        "sandbox_cpu_s": sandbox_cpu,
        "peak_rss_mb": rss_peak_mb(),
        "rss_after_storing_requests_mb": rss_before_mb,
        "setup_create_runs_s": round(created_s, 1),
        "setup_store_requests_s": round(stored_s, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument(
        "--seconds", type=float, default=MAX_SECONDS, help=f"measured window (<= {MAX_SECONDS:g})"
    )
    parser.add_argument("--quick", action="store_true", help="measure for 30 s")
    parser.add_argument(
        "--profile", action="store_true", help="print a CPU profile of the polls (stderr)"
    )
    parser.add_argument("--data-dir", type=Path, help="where the app's store lives (temp dir)")
    args = parser.parse_args()
    if args.quick:
        args.seconds = min(args.seconds, 30.0)
    args.seconds = min(args.seconds, MAX_SECONDS)
    quiet_logging()

    if args.data_dir:
        args.data_dir.mkdir(parents=True, exist_ok=True)
        f = run(args, args.data_dir)
    else:
        with tempfile.TemporaryDirectory(prefix="bench-watch-") as tmp:
            f = run(args, Path(tmp))

    late = f["lateness_s"]
    goals = [
        Goal(
            "poll lateness p99 < 1 s",
            late.get("n", 0) > 0 and late["p99"] < LATENESS_GOAL_S,
            f"p99 {late.get('p99')} s",
        ),
        Goal("peak RSS < 300 MB", f["peak_rss_mb"] < RSS_GOAL_MB, f"{f['peak_rss_mb']} MB"),
    ]
    rows: list[tuple[str, Any]] = [
        ("runs watched", f["runs"]),
        ("measured window (s)", f["measured_s"]),
        ("polls measured", f["polls"]),
        ("polls taken early to join a sweep", f["polls_taken_early"]),
        (
            "  how early p50 / p99 (s)",
            f"{f['earliness_s'].get('p50')} / {f['earliness_s'].get('p99')}",
        ),
        ("service requests: listing pages", f["listing_pages"]),
        ("service requests: single run reads", f["single_run_reads"]),
        ("service requests per 1,000 polls", f["requests_per_1000_polls"]),
        ("sweeps", f["sweeps"]),
        (
            "runs per sweep p50 / max",
            f"{f['sweep_size'].get('p50')} / {f['sweep_size'].get('max')}",
        ),
        ("sweep duration p50 / p99 (s)", f"{f['sweep_s'].get('p50')} / {f['sweep_s'].get('p99')}"),
        ("polls per second", f["polls_per_s"]),
        ("lateness p50 (s)", late.get("p50")),
        ("lateness p90 (s)", late.get("p90")),
        ("lateness p99 (s)", late.get("p99")),
        ("lateness max (s)", late.get("max")),
        ("app CPU s per 1,000 polls", f["app_cpu_s_per_1000_polls"]),
        ("app CPU s (window)", f["app_cpu_s"]),
        ("sandbox CPU s (window)", f["sandbox_cpu_s"]),
        ("peak RSS (MB)", f["peak_rss_mb"]),
        ("peak RSS once stored (MB)", f["rss_after_storing_requests_mb"]),
        ("setup: create runs (s)", f["setup_create_runs_s"]),
        ("setup: store requests (s)", f["setup_store_requests_s"]),
        *goal_rows(goals),
    ]
    result = {
        "benchmark": "watcher_scale",
        "service": "sandbox in its own process",
        **f,
        "goals": goals_json(goals),
        "machine": machine(),
    }
    report(f"{f['runs']} runs watched at once", rows, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
