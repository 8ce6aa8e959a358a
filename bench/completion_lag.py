"""From "run succeeded" to "posted in Slack": how long, and how many service calls it takes.

``--briefs`` briefs are sent as ``/suggest brief <text>`` (linked users, remembered segment and
use case) to the real app on the stage (``suggestbot.stage.Stage``: sandbox, Slack emulator, the
app over loopback). Each run finishes at a random time, uniform over ``--window`` contract
seconds (5 minutes) after it was created: runs are held queued, and a monitor gives each new run
its finish time (``due_at``) in the sandbox and notes when it really succeeded (every 5 ms).

Time is compressed: the sandbox's time factor and the app's ``poll_scale`` are both ``--scale``
(0.2: a 10 s poll interval takes 2 s), so the contract's schedule is kept, only faster. Figures
are given back in contract seconds. The lag is split in two: *detect* (succeeded → the poll
that saw it, a matter of the schedule: divided by the scale) and *post* (that poll → the variant
posted in Slack, a matter of work: real seconds, not scaled).

Service calls per brief are counted at the sandbox (a recording wrapper around its ASGI app):
run creation, polls and reads attributed to each brief by run id; a page of the run listing
(the watcher polls many runs at once with it) counts as a share of a call for each brief's run
on it that was still being watched. The polling guidance's own
minimum for a brief is the number of polls its schedule (§6: every 10 s for 3 min, every 30 s
for 5 min, every 60 s for 13 min) makes up to the first poll at or after the run finished.

Goals: lag within half the current poll interval + 1 s (median of lag - interval/2 <= 1 s; a
poll every N seconds makes a brief wait up to N, so per brief the bound is one interval + 1 s);
calls <= polls by schedule + 3 for every brief.

Usage: python bench/completion_lag.py [--briefs 200] [--scale 0.2] [--quick]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from benchkit import (
    Goal,
    add_linked_users,
    goal_rows,
    goals_json,
    machine,
    quiet_logging,
    report,
    send_signed,
    slash_bodies,
    spread,
    wait_until,
)

from suggestbot.sandbox import RunTiming
from suggestbot.stage import SIGNING_SECRET, Stage

RUN_PATH = re.compile(r"^/v1/generation-runs/([^/]+)$")
SET_PATH = re.compile(r"^/v1/suggestion-sets/([^/]+)")
CREATE_PATH = "/v1/generation-runs"
HELD_S = 1e7  # nominal seconds a run waits before the monitor gives it its finish time
MONITOR_EVERY_S = 0.005
# The contract's polling guidance (§6): (until this many seconds after submission, every ...).
GUIDANCE = ((180.0, 10.0), (480.0, 30.0), (1260.0, 60.0))


def guidance_interval(elapsed_s: float) -> float:
    for bound, every in GUIDANCE:
        if elapsed_s < bound:
            return every
    return GUIDANCE[-1][1]


def polls_by_guidance(finished_after_s: float) -> int:
    """Polls the guidance makes up to the first one at or after the run finished."""
    at, polls = 0.0, 0
    while at < finished_after_s and at < GUIDANCE[-1][0]:
        at += guidance_interval(at)
        polls += 1
    return polls


@dataclass(frozen=True)
class Call:
    at: float
    method: str
    path: str
    status: int
    body: bytes


class CallRecorder:
    """ASGI wrapper noting every request the service answers (and the bodies that identify
    runs: creations, run reads and run listings)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.calls: list[Call] = []
        self._lock = threading.Lock()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method, path = scope["method"], scope["path"]
        keep = path == CREATE_PATH or (method == "GET" and RUN_PATH.match(path) is not None)
        status = [0]
        chunks: list[bytes] = []

        async def capture(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            elif message["type"] == "http.response.body" and keep:
                chunks.append(message.get("body", b""))
            await send(message)

        await self.app(scope, receive, capture)
        with self._lock:
            self.calls.append(Call(time.time(), method, path, status[0], b"".join(chunks)))

    def snapshot(self) -> list[Call]:
        with self._lock:
            return list(self.calls)


class FinishMonitor:
    """Gives each new run a finish time ``created_at + U(0, window)`` (scaled) and notes when
    each one really succeeded."""

    def __init__(self, stage: Stage, *, window_s: float, scale: float, seed: int) -> None:
        self._env = stage.sandbox.env
        self._window_s = window_s
        self._scale = scale
        self._rng = random.Random(seed)
        self.offsets: dict[str, float] = {}  # run id -> contract seconds after creation
        self.created: dict[str, float] = {}  # run id -> epoch seconds
        self.finished: dict[str, float] = {}  # run id -> epoch seconds first seen succeeded
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="finish-monitor", daemon=True)

    def start(self, *, limit_s: float) -> None:
        self._limit_s = limit_s
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _loop(self) -> None:
        deadline = time.monotonic() + self._limit_s
        while not self._stop.wait(MONITOR_EVERY_S) and time.monotonic() < deadline:
            now = time.time()
            assigned = False
            with self._env.state.lock:
                for run in self._env.state.runs.values():
                    if run.id not in self.offsets:
                        offset = self._rng.uniform(0, self._window_s)
                        self.offsets[run.id] = offset
                        self.created[run.id] = run.created_at.timestamp()
                        run.due_at = run.created_at + timedelta(seconds=offset * self._scale)
                        assigned = True
                    elif run.id not in self.finished and run.status == "succeeded":
                        self.finished[run.id] = now
            if assigned:
                self._env.wake.set()


def measure(args: argparse.Namespace, data_dir: Path) -> dict[str, Any]:
    scale = args.scale
    stage = Stage(
        data_dir=data_dir / "app",
        time_factor=scale,
        poll_scale=scale,
        run_timing=RunTiming(queued_s=HELD_S, running_s=0.0, precompute_s=2.0),
    )
    recorder = CallRecorder(stage.sandbox.app)
    stage.sandbox.app = recorder
    monitor = FinishMonitor(stage, window_s=args.window, scale=scale, seed=args.seed)
    limit_s = (args.window + 120) * scale + 120
    with stage:
        assert stage.runtime is not None and stage.driver is not None
        users = add_linked_users(stage, args.users)
        deps = stage.runtime.deps
        monitor.start(limit_s=limit_s)
        first_call = len(recorder.snapshot())
        texts = [f"brief Completion lag brief number {n}" for n in range(args.briefs)]
        started = time.monotonic()
        sent = send_signed(
            url=stage.driver.app_url,
            signing_secret=SIGNING_SECRET,
            bodies=slash_bodies(stage, users, texts),
            concurrency=20,
        )

        def settled() -> bool:
            reqs = list(deps.records.requests.values())
            return len(reqs) >= args.briefs and all(r.state in ("done", "failed") for r in reqs)

        wait_until(settled, timeout=limit_s, interval=0.25)
        elapsed = time.monotonic() - started
        monitor.stop()
        requests = list(deps.records.requests.values())
        calls = recorder.snapshot()[first_call:]
        set_to_run = {
            r.suggestion_set_id: r.id
            for r in stage.sandbox.env.state.runs.values()
            if r.suggestion_set_id
        }
    return analyse(args, requests, calls, monitor, set_to_run, sent_bad=_bad(sent), wall=elapsed)


def _bad(sent: list[Any]) -> int:
    return sum(1 for s in sent if s.status != 200)


def analyse(
    args: argparse.Namespace,
    requests: list[Any],
    calls: list[Call],
    monitor: FinishMonitor,
    set_to_run: dict[str, str],
    *,
    sent_bad: int,
    wall: float,
) -> dict[str, Any]:
    scale = args.scale
    per_run: dict[str, dict[str, float]] = {}
    seen_at: dict[str, float] = {}
    unattributed: dict[str, int] = {}

    def count(run_id: str, kind: str, share: float = 1.0) -> None:
        per_run.setdefault(run_id, {}).setdefault(kind, 0)
        per_run[run_id][kind] += share

    ours = {req.run_id for req in requests if req.run_id}
    listing_pages = 0
    for call in calls:
        route = RUN_PATH.match(call.path)
        sets = SET_PATH.match(call.path)
        if call.method == "POST" and call.path == CREATE_PATH and call.status == 202:
            count(json.loads(call.body)["id"], "create")
        elif call.method == "GET" and call.path == CREATE_PATH:
            # A listing page polls every run on it: its cost is shared by the briefs' runs on
            # it that were still being watched (not yet seen finished).
            listing_pages += 1
            runs = json.loads(call.body).get("data", []) if call.status == 200 else []
            watched = [r for r in runs if r["id"] in ours and r["id"] not in seen_at]
            for run in watched:
                count(run["id"], "poll", 1 / len(watched))
                if run["status"] == "succeeded":
                    seen_at[run["id"]] = call.at
            if not watched:
                unattributed["GET /v1/generation-runs"] = (
                    unattributed.get("GET /v1/generation-runs", 0) + 1
                )
        elif call.method == "GET" and route:
            run_id = route.group(1)
            count(run_id, "poll")
            if b'"status":"succeeded"' in call.body and run_id not in seen_at:
                seen_at[run_id] = call.at
        elif call.method == "GET" and sets and sets.group(1) in set_to_run:
            count(set_to_run[sets.group(1)], "set_read")
        else:
            key = f"{call.method} {re.sub(r'/[0-9a-f-]{36}', '/{id}', call.path)}"
            unattributed[key] = unattributed.get(key, 0) + 1

    lags, detects, posts, excess, over_bound = [], [], [], [], 0
    calls_over, done, failed = [], 0, 0
    call_counts, schedule_counts = [], []
    for req in requests:
        if req.state != "done":
            failed += 1
            continue
        run_id = req.run_id
        if run_id not in monitor.finished or run_id not in seen_at or not req.variants:
            failed += 1
            continue
        done += 1
        finished = monitor.finished[run_id]
        posted = min(float(v.ts) for v in req.variants if v.ts)
        detect = (seen_at[run_id] - finished) / scale
        post = posted - seen_at[run_id]
        lag = detect + post
        after = (finished - monitor.created[run_id]) / scale
        interval = guidance_interval(after)
        lags.append(lag)
        detects.append(detect)
        posts.append(post)
        excess.append(lag - interval / 2)
        if lag > interval + 1.0:
            over_bound += 1
        made = sum(per_run.get(run_id, {}).values())
        minimum = polls_by_guidance(after)
        call_counts.append(made)
        schedule_counts.append(minimum)
        if made > minimum + 3:
            calls_over.append({"run": run_id, "calls": made, "by_schedule": minimum})

    polls = [per_run.get(r.run_id or "", {}).get("poll", 0) for r in requests if r.run_id]
    return {
        "briefs": args.briefs,
        "scale": scale,
        "window_s": args.window,
        "wall_s": round(wall, 1),
        "commands_not_200": sent_bad,
        "briefs_done": done,
        "briefs_not_done": failed,
        "lag_s": spread(lags, digits=2),
        "detect_s": spread(detects, digits=2),
        "post_s": spread(posts, digits=3),
        "lag_minus_half_interval_s": spread(excess, digits=2),
        "lag_over_interval_plus_1s": over_bound,
        "calls_per_brief": spread(call_counts, digits=2),
        "polls_by_guidance_per_brief": spread(schedule_counts, digits=2),
        "polls_per_brief": spread(polls, digits=2),
        "listing_pages": listing_pages,
        "calls_minus_guidance": spread(
            [c - s for c, s in zip(call_counts, schedule_counts, strict=True)], digits=2
        ),
        "briefs_over_call_budget": len(calls_over),
        "over_budget_examples": calls_over[:5],
        "other_calls": unattributed,
        "other_calls_per_brief": round(sum(unattributed.values()) / max(done, 1), 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--briefs", type=int, default=200)
    parser.add_argument("--window", type=float, default=300.0, help="contract seconds")
    parser.add_argument("--scale", type=float, default=0.2, help="real seconds per contract s")
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--quick", action="store_true", help="50 briefs at scale 0.1")
    parser.add_argument("--data-dir", type=Path, help="where the app's store lives (temp dir)")
    args = parser.parse_args()
    if args.quick:
        args.briefs = min(args.briefs, 50)
        args.scale = min(args.scale, 0.1)
    quiet_logging()

    if args.data_dir:
        args.data_dir.mkdir(parents=True, exist_ok=True)
        f = measure(args, args.data_dir)
    else:
        with tempfile.TemporaryDirectory(prefix="bench-lag-") as tmp:
            f = measure(args, Path(tmp))

    excess = f["lag_minus_half_interval_s"]
    lag = f["lag_s"]
    goals = [
        Goal(
            "lag <= half the poll interval + 1 s (median)",
            excess.get("n", 0) > 0 and excess["p50"] <= 1.0,
            f"median of lag - interval/2 = {excess.get('p50')} s; "
            f"{f['lag_over_interval_plus_1s']} brief(s) waited more than interval + 1 s",
        ),
        Goal(
            "calls <= polls by schedule + 3, every brief",
            f["briefs_done"] > 0 and f["briefs_over_call_budget"] == 0,
            f"{f['briefs_over_call_budget']} over; calls - schedule p99 "
            f"{f['calls_minus_guidance'].get('p99')}",
        ),
        Goal(
            "every brief posted",
            f["briefs_done"] == f["briefs"] and f["commands_not_200"] == 0,
            f"{f['briefs_done']} of {f['briefs']}",
        ),
    ]
    rows: list[tuple[str, Any]] = [
        ("briefs / done", f"{f['briefs']} / {f['briefs_done']}"),
        ("time scale (real s per contract s)", f["scale"]),
        ("wall time (s)", f["wall_s"]),
        ("lag median / p99 (contract s)", f"{lag.get('p50')} / {lag.get('p99')}"),
        (
            "  detect median / p99",
            f"{f['detect_s'].get('p50')} / {f['detect_s'].get('p99')}",
        ),
        ("  post median / p99 (real s)", f"{f['post_s'].get('p50')} / {f['post_s'].get('p99')}"),
        (
            "lag - interval/2 median / p99",
            f"{excess.get('p50')} / {excess.get('p99')}",
        ),
        ("briefs with lag > interval + 1 s", f["lag_over_interval_plus_1s"]),
        (
            "calls per brief mean / max",
            f"{f['calls_per_brief'].get('mean')} / {f['calls_per_brief'].get('max')}",
        ),
        (
            "polls by guidance mean / max",
            f"{f['polls_by_guidance_per_brief'].get('mean')} / "
            f"{f['polls_by_guidance_per_brief'].get('max')}",
        ),
        (
            "calls - guidance median / max",
            f"{f['calls_minus_guidance'].get('p50')} / {f['calls_minus_guidance'].get('max')}",
        ),
        ("run listing pages (shared by briefs)", f["listing_pages"]),
        ("other calls (not per brief)", f["other_calls"]),
        *goal_rows(goals),
    ]
    result = {
        "benchmark": "completion_lag",
        **f,
        "goals": goals_json(goals),
        "machine": machine(),
    }
    report("completion lag: run succeeded -> posted (contract seconds)", rows, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
