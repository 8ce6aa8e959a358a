"""From "run succeeded" to "posted in Slack": how long, per brief, and what the service pays.

Briefs are sent as ``/suggest brief <text>`` (linked users, remembered segment and use case) to
the real app on the stage (``suggestbot.demo.stage.Stage``: sandbox, Slack emulator, the app over
loopback), in two series: ``--lone`` briefs one at a time (each alone in the system, waiting on
its own schedule), then ``--briefs`` briefs at once (sharing sweeps). Each run finishes at a
random time, uniform over ``--window`` contract seconds (5 minutes) after it was created: runs
are held queued, and a monitor gives each new run its finish time (``due_at``) in the sandbox and
notes when it really succeeded (every 5 ms).

Time is compressed: the sandbox's time factor and the app's ``poll_scale`` are both ``--scale``
(0.2: a 10 s poll interval takes 2 s), so the contract's schedule is kept, only faster. Figures
are given back in contract seconds. The lag is split in two: *detect* (succeeded → the first
response that showed it, a matter of the schedule: divided by the scale) and *post* (that
response → the variant posted in Slack, a matter of work: real seconds, not scaled).

Lag goals, per brief, against the poll interval the guidance gives at the time the run finished
(§6: 10 s for 3 min, 30 s for the next 5 min, 60 s after): p50 ≤ interval/2 + 1 s and p99 ≤
interval + 1 s, for each interval that briefs finished under (every brief caught by the first
poll due after it finished, plus 1 s to post).

Calls: every request the service answered is counted at the sandbox (a recording wrapper around
its ASGI app), a listing page as one request. The service's total request rate is shown next to
what polling every run alone on the guidance's schedule would have cost (the same creations and
reads, with each run's polls replaced by the guidance's count up to the first poll at or after
it finished). Per brief: its creation, its set reads and every poll of its run the app took
(a poll read from a listing page counts as one whole call for each brief polled by it, noted in
the app: the timers say which polls were taken out, the service client when each run arrived);
goal ≤ polls by schedule + 3, every brief.

Usage: python bench/completion_lag.py [--briefs 200] [--lone 10] [--scale 0.2] [--quick]
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
    PollReads,
    add_linked_users,
    goal_rows,
    goals_json,
    load_average,
    machine,
    note_poll_reads,
    quiet_logging,
    report,
    send_signed,
    slash_bodies,
    spread,
    wait_until,
)

from suggestbot.demo.stage import SIGNING_SECRET, Stage
from suggestbot.sandbox import RunTiming

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
        check_images=False,  # as when the recorded figures were measured
    )
    recorder = CallRecorder(stage.sandbox.app)
    stage.sandbox.app = recorder
    monitor = FinishMonitor(stage, window_s=args.window, scale=scale, seed=args.seed)
    one_s = (args.window + 120) * scale + 60
    limit_s = one_s * (args.lone + 1) + 120
    phases: dict[str, Any] = {}
    with stage:
        assert stage.runtime is not None and stage.driver is not None
        users = add_linked_users(stage, args.users)
        deps = stage.runtime.deps
        reads = PollReads()
        reads.recording = True
        note_poll_reads(stage.runtime, reads)
        monitor.start(limit_s=limit_s)

        def series(name: str, texts: list[str], *, timeout: float) -> None:
            known = {r.id for r in deps.records.requests.values()}
            first_call = len(recorder.snapshot())
            started = time.monotonic()
            sent = send_signed(
                url=stage.driver.app_url,  # type: ignore[union-attr]
                signing_secret=SIGNING_SECRET,
                bodies=slash_bodies(stage, users, texts),
                concurrency=20,
            )

            def mine() -> list[Any]:
                return [r for r in deps.records.requests.values() if r.id not in known]

            def settled() -> bool:
                reqs = mine()
                return len(reqs) >= len(texts) and all(r.state in ("done", "failed") for r in reqs)

            wait_until(settled, timeout=timeout, interval=0.1)
            phase = phases.setdefault(
                name, {"requests": [], "calls": [], "wall": 0.0, "bad": 0, "briefs": 0}
            )
            phase["requests"] += mine()
            phase["calls"] += recorder.snapshot()[first_call:]
            phase["wall"] += time.monotonic() - started
            phase["bad"] += _bad(sent)
            phase["briefs"] += len(texts)

        for n in range(args.lone):
            series("lone", [f"brief Lone completion lag brief {n}"], timeout=one_s)
        texts = [f"brief Completion lag brief number {n}" for n in range(args.briefs)]
        series("together", texts, timeout=one_s + 120)
        monitor.stop()
        set_to_run = {
            r.suggestion_set_id: r.id
            for r in stage.sandbox.env.state.runs.values()
            if r.suggestion_set_id
        }
    return {
        name: analyse(
            args,
            p["requests"],
            p["calls"],
            monitor,
            set_to_run,
            reads,
            briefs=p["briefs"],
            sent_bad=p["bad"],
            wall=p["wall"],
        )
        for name, p in phases.items()
    }


def _bad(sent: list[Any]) -> int:
    return sum(1 for s in sent if s.status != 200)


def analyse(
    args: argparse.Namespace,
    requests: list[Any],
    calls: list[Call],
    monitor: FinishMonitor,
    set_to_run: dict[str, str],
    reads: PollReads,
    *,
    briefs: int,
    sent_bad: int,
    wall: float,
) -> dict[str, Any]:
    """The figures of one series (its requests, and the calls made while it ran)."""
    scale = args.scale
    ours = {req.run_id for req in requests if req.run_id}
    other_calls: dict[str, int] = {}
    creates: dict[str, int] = {}
    set_reads: dict[str, int] = {}
    seen_at: dict[str, float] = {}
    pages = single_polls = 0
    for call in calls:
        route = RUN_PATH.match(call.path)
        sets = SET_PATH.match(call.path)
        if call.method == "POST" and call.path == CREATE_PATH and call.status == 202:
            run_id = json.loads(call.body)["id"]
            creates[run_id] = creates.get(run_id, 0) + 1
        elif call.method == "GET" and call.path == CREATE_PATH:
            pages += 1
            runs = json.loads(call.body).get("data", []) if call.status == 200 else []
            for run in runs:
                if run["id"] in ours and run["status"] == "succeeded":
                    seen_at.setdefault(run["id"], call.at)
        elif call.method == "GET" and route:
            single_polls += 1
            if b'"status":"succeeded"' in call.body:
                seen_at.setdefault(route.group(1), call.at)
        elif call.method == "GET" and sets and sets.group(1) in set_to_run:
            run_id = set_to_run[sets.group(1)]
            set_reads[run_id] = set_reads.get(run_id, 0) + 1
        else:
            key = f"{call.method} {re.sub(r'/[0-9a-f-]{36}', '/{id}', call.path)}"
            other_calls[key] = other_calls.get(key, 0) + 1

    by_interval: dict[float, list[float]] = {}
    detects, posts, calls_over, call_counts, schedule_counts = [], [], [], [], []
    guidance_polls = done = failed = 0
    for req in requests:
        run_id = req.run_id
        if run_id is None:
            failed += 1
            continue
        created = monitor.created.get(run_id, time.time())
        after = (monitor.finished.get(run_id, time.time()) - created) / scale
        guidance_polls += polls_by_guidance(after)
        if req.state != "done" or run_id not in monitor.finished or run_id not in seen_at:
            failed += 1
            continue
        if not req.variants:
            failed += 1
            continue
        done += 1
        finished = monitor.finished[run_id]
        posted = min(float(v.ts) for v in req.variants if v.ts)
        detect = (seen_at[run_id] - finished) / scale
        post = posted - seen_at[run_id]
        by_interval.setdefault(guidance_interval(after), []).append(detect + post)
        detects.append(detect)
        posts.append(post)
        made = creates.get(run_id, 0) + reads.polls_of.get(run_id, 0) + set_reads.get(run_id, 0)
        minimum = polls_by_guidance(after)
        call_counts.append(made)
        schedule_counts.append(minimum)
        if made > minimum + 3:
            calls_over.append({"run": run_id, "calls": made, "by_schedule": minimum})

    lag = {
        f"{interval:g}": {
            **spread(lags, digits=2),
            "p50_bound": interval / 2 + 1.0,
            "p99_bound": interval + 1.0,
            "over_interval_plus_1s": sum(1 for x in lags if x > interval + 1.0),
        }
        for interval, lags in sorted(by_interval.items())
    }
    total = len(calls)
    contract_s = wall / scale
    alone = total - pages - single_polls + guidance_polls
    return {
        "briefs": briefs,
        "wall_s": round(wall, 1),
        "commands_not_200": sent_bad,
        "briefs_done": done,
        "briefs_not_done": failed,
        "lag_by_interval_s": lag,
        "lag_s": spread([x for lags in by_interval.values() for x in lags], digits=2),
        "detect_s": spread(detects, digits=2),
        "post_s": spread(posts, digits=3),
        "calls_per_brief": spread(call_counts, digits=2),
        "polls_by_guidance_per_brief": spread(schedule_counts, digits=2),
        "calls_minus_guidance": spread(
            [c - s for c, s in zip(call_counts, schedule_counts, strict=True)], digits=2
        ),
        "briefs_over_call_budget": len(calls_over),
        "over_budget_examples": calls_over[:5],
        "service_requests": total,
        "listing_pages": pages,
        "single_run_reads": single_polls,
        "service_requests_per_min": round(total / contract_s * 60, 1) if contract_s else None,
        "alone_on_schedule_requests": alone,
        "alone_on_schedule_per_min": round(alone / contract_s * 60, 1) if contract_s else None,
        "other_calls": other_calls,
    }


def _goals(name: str, f: dict[str, Any]) -> list[Goal]:
    goals = []
    for interval, lag in f["lag_by_interval_s"].items():
        goals.append(
            Goal(
                f"{name}: lag p50 <= {interval}/2 + 1 s",
                lag["p50"] <= lag["p50_bound"],
                f"p50 {lag['p50']} s of {lag['n']} briefs",
            )
        )
        goals.append(
            Goal(
                f"{name}: lag p99 <= {interval} + 1 s",
                lag["p99"] <= lag["p99_bound"],
                f"p99 {lag['p99']} s; {lag['over_interval_plus_1s']} over",
            )
        )
    goals.append(
        Goal(
            f"{name}: calls <= polls by schedule + 3, every brief",
            f["briefs_done"] > 0 and f["briefs_over_call_budget"] == 0,
            f"{f['briefs_over_call_budget']} over; calls - schedule max "
            f"{f['calls_minus_guidance'].get('max')}",
        )
    )
    goals.append(
        Goal(
            f"{name}: every brief posted",
            f["briefs_done"] == f["briefs"] and f["commands_not_200"] == 0,
            f"{f['briefs_done']} of {f['briefs']}",
        )
    )
    return goals


def _rows(name: str, f: dict[str, Any]) -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = [
        (f"[{name}] briefs / done", f"{f['briefs']} / {f['briefs_done']}"),
        ("wall time (s)", f["wall_s"]),
    ]
    for interval, lag in f["lag_by_interval_s"].items():
        rows.append(
            (
                f"lag p50 / p99 / max, finished at {interval} s polls",
                f"{lag['p50']} / {lag['p99']} / {lag['max']}  (n {lag['n']}; bounds "
                f"{lag['p50_bound']:g} / {lag['p99_bound']:g})",
            )
        )
    rows += [
        ("  detect p50 / p99", f"{f['detect_s'].get('p50')} / {f['detect_s'].get('p99')}"),
        ("  post p50 / p99 (real s)", f"{f['post_s'].get('p50')} / {f['post_s'].get('p99')}"),
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
            "service requests (pages, single reads)",
            f"{f['service_requests']} ({f['listing_pages']}, {f['single_run_reads']})",
        ),
        (
            "requests per contract minute: made / alone on schedule",
            f"{f['service_requests_per_min']} / {f['alone_on_schedule_per_min']}",
        ),
        ("other calls", f["other_calls"]),
    ]
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--briefs", type=int, default=200)
    parser.add_argument("--lone", type=int, default=10, help="briefs sent one at a time first")
    parser.add_argument("--window", type=float, default=300.0, help="contract seconds")
    parser.add_argument("--scale", type=float, default=0.2, help="real seconds per contract s")
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--quick", action="store_true", help="3 lone and 50 briefs at scale 0.1")
    parser.add_argument("--data-dir", type=Path, help="where the app's store lives (temp dir)")
    args = parser.parse_args()
    if args.quick:
        args.briefs = min(args.briefs, 50)
        args.lone = min(args.lone, 3)
        args.scale = min(args.scale, 0.1)
    quiet_logging()
    load_before = load_average()

    if args.data_dir:
        args.data_dir.mkdir(parents=True, exist_ok=True)
        f = measure(args, args.data_dir)
    else:
        with tempfile.TemporaryDirectory(prefix="bench-lag-") as tmp:
            f = measure(args, Path(tmp))
    load_after = load_average()

    goals = [g for name, figures in f.items() for g in _goals(name, figures)]
    rows: list[tuple[str, Any]] = [
        ("time scale (real s per contract s)", args.scale),
        ("load average before / after", f"{load_before} / {load_after}"),
    ]
    for name, figures in f.items():
        rows += _rows(name, figures)
    rows += goal_rows(goals)
    result = {
        "benchmark": "completion_lag",
        "scale": args.scale,
        "window_s": args.window,
        **f,
        "loadavg_before": load_before,
        "loadavg_after": load_after,
        "goals": goals_json(goals),
        "machine": machine(),
    }
    report("completion lag: run succeeded -> posted (contract seconds)", rows, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
