"""5,000 runs watched at once: is each run read on time, what does a poll cost, how big does it
get?

The service is the real sandbox in its own process (``python -m suggestbot sandbox``), holding
``--runs`` runs that stay queued for the whole benchmark, so every poll is a full one. The app
is the real :class:`~suggestbot.server.composition.Runtime` (store, service client, the watch
thread and its sweepers, APScheduler with its worker pool). Requests are written straight into
the store in state ``submitted``, as the brief flow leaves them, and their first polls are
spread over one 10-second interval (as if the briefs had come in over those ten seconds); then
they follow the contract's schedule in real time (10 s apart during the first 3 minutes:
``--runs`` / 10 polls a second).

First polls fall due in the order the runs were created, oldest first (``--due-order
listing``), as they do when briefs arrive over time: a run's first poll is due one interval
after it was created. The contract lists runs newest first, so the runs most due sit on the
last pages of a walk from the first page. ``--due-order random`` spreads them at random instead
(the order an earlier version of this script used, which hid that).

Lateness is taken by the time **the service answered** the read that showed the run: the
sandbox (in its own process) notes every run it returns, listing pages and single reads, with
the time the answer left (``recording-sandbox``). The app notes each next due time it writes
and when it took each poll out; the poll due at ``d`` is served by the first service read of
its run at or after both ``d`` less the early tolerance and the moment it was taken out (a
page read before serves no poll). Lateness = that read - ``d``; a poll read early counts
negative. Every poll due in the window (but its last seconds) must have such a read by the
window's end plus 5 s, else it is counted unserved. Spacing: the time between two serving
reads of one run, as the service sees them; the guidance asks 10 s, the watcher's early
tolerance allows 10 % less. Also shown, for comparison: lateness taken in the app when the
page arrived (after the client parsed it).

Other figures: service requests per 1,000 polls (counted by the sandbox over the window), passes
round the listing and the time between them (a sweep rolls on while polls join it, so it may not
end inside the window), the sweeps that ended and their durations, CPU seconds of the app's
process per 1,000 polls (``resource.getrusage``),
peak RSS (``ru_maxrss``), the sandbox's CPU. Slack is the emulator in this process; it is not
called (no run changes state).

Goals: lateness p99 < 1 s; no two polls of a run closer than 9 s; peak RSS < 300 MB.

Usage: python bench/watcher_scale.py [--runs 5000] [--seconds 120] [--quick]
       [--due-order listing|random]
"""

from __future__ import annotations

import argparse
import bisect
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
    PollReads,
    ThreadProfiles,
    child_cpu_seconds,
    cpu_seconds,
    create_runs,
    goal_rows,
    goals_json,
    load_average,
    load_read_log,
    machine,
    note_poll_reads,
    quiet_logging,
    recording_sandbox_process,
    report,
    rss_peak_mb,
    spread,
)

from suggestbot.config import Settings
from suggestbot.flows.common.deps import Deps
from suggestbot.jobs.lease_engine import SchedulerTimers
from suggestbot.jobs.leases import EARLY_SHARE
from suggestbot.jobs.scheduler import Scheduler
from suggestbot.jobs.watch_list import Due
from suggestbot.sandbox import ADMIN_KEY_HEADER, DEMO
from suggestbot.server.composition import Runtime
from suggestbot.slackemu import SlackEmulator
from suggestbot.store import generate_key
from suggestbot.store.records import Request

FIRST_POLL_S = 10.0
POLL_ROUTE = "GET /v1/generation-runs/{run_id}"
LIST_ROUTE = "GET /v1/generation-runs"
LATENESS_GOAL_S = 1.0
MIN_SPACING_S = FIRST_POLL_S * (1 - EARLY_SHARE)
MAX_SECONDS = 120.0
RSS_GOAL_MB = 300.0
HORIZON_S = EARLY_SHARE * FIRST_POLL_S  # a poll may be read this early
SERVED_GRACE_S = 5.0  # a poll due in the window is served by its end plus this


class MeasuredTimers(SchedulerTimers):
    """The app's timers, noting how long sweeps took."""

    def __init__(self, scheduler: Scheduler, reads: PollReads) -> None:
        super().__init__(scheduler)
        self.reads = reads
        self._noted = threading.Lock()
        self.sweep_s: list[float] = []
        self.sweep_sizes: list[int] = []
        self.profiles: ThreadProfiles | None = None
        self.dues: dict[str, list[float]] = {}  # request id -> every due time written
        self.taken: dict[tuple[str, float], float] = {}  # (request id, due) -> taken out at
        # (request id, due) -> when a page read took it ahead of its time (it served it)
        self.adopted: dict[tuple[str, float], float] = {}

    def watch_run(self, request_id: str, *, delay_s: float) -> None:
        with self._noted:
            self.dues.setdefault(request_id, []).append(time.time() + max(delay_s, 0.0))
        super().watch_run(request_id, delay_s=delay_s)

    def watch_runs(self, delays: Any, *, groups: Any = None) -> None:
        now = time.time()
        with self._noted:
            for request_id, delay_s in delays.items():
                self.dues.setdefault(request_id, []).append(now + max(delay_s, 0.0))
        super().watch_runs(delays, groups=groups)

    def _dispatch(self, deps: Deps, due: list[Due]) -> None:
        now = time.time()
        with self._noted:
            for item in due:
                self.taken[(item.request_id, item.at)] = now
        super()._dispatch(deps, due)

    def _adopt(self, deps: Deps, listing: str | None, cursor: str | None) -> list[Due]:
        taken = super()._adopt(deps, listing, cursor)
        now = time.time()
        with self._noted:
            for item in taken:
                self.adopted[(item.request_id, item.at)] = now
        return taken

    def _sweep(self, deps: Deps, team: str | None, due: list[Due]) -> None:
        started = time.time()
        if self.profiles is not None and self.reads.recording:
            self.profiles.call(super()._sweep, deps, team, due)
        else:
            super()._sweep(deps, team, due)
        if self.reads.recording:
            with self._noted:
                self.sweep_s.append(time.time() - started)
                self.sweep_sizes.append(len(due))


class CountedPasses:
    """The service client, noting when each walk round the run listing began (a page asked for
    without a cursor); a rolling sweep makes many such passes."""

    def __init__(self, client: Any, reads: PollReads) -> None:
        self._client = client
        self._reads = reads
        self.starts: list[float] = []

    def list_runs_page(self, **kwargs: Any) -> Any:
        if kwargs.get("cursor") is None and self._reads.recording:
            self.starts.append(time.time())
        return self._client.list_runs_page(**kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def periods_s(self) -> list[float]:
        return [b - a for a, b in zip(self.starts, self.starts[1:], strict=False)]


def progress(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def served_reads(
    timers: MeasuredTimers, run_of: dict[str, str], read_log: Path, w0: float, w1: float
) -> tuple[list[float], list[float], int, int]:
    """Lateness of every poll due in ``[w0, w1)`` by the service's answer, the spacing of the
    serving reads, the polls due by ``w1`` less a margin that no read served, and those due."""
    reads = load_read_log(read_log)
    lateness: list[float] = []
    gaps: list[float] = []
    unserved = due_count = 0
    for request_id, dues in timers.dues.items():
        times = [r.at for r in reads.get(run_of.get(request_id, ""), [])]
        last: float | None = None
        for due in sorted(dues):
            taken = timers.taken.get((request_id, due))
            adopted = timers.adopted.get((request_id, due))
            if adopted is not None:
                # Served ahead of its time by the page read just before it was taken.
                i = bisect.bisect_right(times, adopted) - 1
                read = times[i] if i >= 0 else None
            else:
                start = due - HORIZON_S if taken is None else max(due - HORIZON_S, taken)
                i = bisect.bisect_left(times, start)
                read = times[i] if i < len(times) else None
            counted = w0 <= due < w1 - 2 * HORIZON_S - 3
            if counted:
                due_count += 1
            if read is None or read > w1 + SERVED_GRACE_S:
                unserved += counted
                continue
            if counted:
                lateness.append(read - due)
                if last is not None:
                    gaps.append(read - last)
            last = read
    return lateness, gaps, unserved, due_count


def run(args: argparse.Namespace, data_dir: Path) -> dict[str, Any]:
    admin_key = secrets.token_hex(12)
    read_log = data_dir / "reads.log"
    with (
        recording_sandbox_process(admin_key=admin_key, read_log=read_log) as (sandbox_pid, url),
        SlackEmulator() as emu,
    ):
        admin = httpx.Client(base_url=url, headers={ADMIN_KEY_HEADER: admin_key}, timeout=30)
        # Runs stay queued far longer than the benchmark: every poll sees an unfinished run.
        admin.patch("/sandbox/faults", json={"run_timing": {"queued_s": 1e6}}).raise_for_status()
        started = time.monotonic()
        # UUIDv7: sorting the ids puts the runs in the order the service created them.
        run_ids = sorted(create_runs(url, args.runs))
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
        reads = PollReads()
        timers = MeasuredTimers(runtime.scheduler, reads)
        timers.profiles = ThreadProfiles() if args.profile else None
        timers.deps = runtime.deps
        runtime.deps.timers = timers
        runtime.timers = timers
        note_poll_reads(runtime, reads)
        passes = CountedPasses(runtime.deps.content, reads)
        runtime.deps.content = passes
        runtime.start()
        try:
            # Stored first (one committed write each), then watched: first polls spread over
            # 10 s, then every 10 s by the contract's schedule. ``sent_at`` is the time of
            # storing, so a run's elapsed time at its first poll is 10-40 s, well inside the
            # schedule's first 3 minutes (10 s apart) for any window up to MAX_SECONDS.
            admin.delete("/sandbox/counters").raise_for_status()
            started = time.monotonic()
            request_ids = []
            run_of: dict[str, str] = {}
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
                run_of[req.id] = run_id
            for number, request_id in enumerate(request_ids):
                # Oldest run first due (as when briefs come in over time), or at random.
                if args.due_order == "listing":
                    delay_s = FIRST_POLL_S * number / len(request_ids)
                else:
                    delay_s = random.uniform(0, FIRST_POLL_S)
                timers.watch_run(request_id, delay_s=delay_s)
            stored_s = time.monotonic() - started
            progress(f"stored and scheduled {len(run_ids)} requests in {stored_s:.1f} s")
            rss_before_mb = rss_peak_mb()
            # Measure once every run has had its first poll.
            time.sleep(FIRST_POLL_S)
            load_before = load_average()
            admin.delete("/sandbox/counters").raise_for_status()
            cpu0, sandbox_cpu0, wall0 = cpu_seconds(), child_cpu_seconds(sandbox_pid), time.time()
            reads.recording = True
            time.sleep(args.seconds)
            reads.recording = False
            progress(f"measured {len(reads.lateness_s)} polls; stopping")
            cpu1, sandbox_cpu1, wall1 = cpu_seconds(), child_cpu_seconds(sandbox_pid), time.time()
            served = admin.get("/sandbox/counters").json()
            singles, pages = served.get(POLL_ROUTE, 0), served.get(LIST_ROUTE, 0)
            load_after = load_average()
            time.sleep(SERVED_GRACE_S)  # the reads that serve the window's last polls
        finally:
            runtime.stop()
        admin.close()
    if timers.profiles is not None:
        timers.profiles.print()

    lateness, gaps, unserved, due_count = served_reads(timers, run_of, read_log, wall0, wall1)
    polls = len(lateness)
    sandbox_cpu = (
        round(sandbox_cpu1 - sandbox_cpu0, 2)
        if sandbox_cpu0 is not None and sandbox_cpu1 is not None
        else None
    )
    early = [-s for s in lateness if s < 0]
    return {
        "runs": args.runs,
        "due_order": args.due_order,
        "load_before": load_before,
        "load_after": load_after,
        "measured_s": round(wall1 - wall0, 1),
        "polls": polls,
        "polls_per_s": round(polls / (wall1 - wall0), 1),
        "polls_read_from_pages": reads.page_reads,
        "polls_read_alone": reads.single_reads,
        "single_run_reads": singles,
        "listing_pages": pages,
        "requests_per_1000_polls": round((singles + pages) / polls * 1000, 1) if polls else None,
        "polls_due": due_count,
        "polls_unserved": unserved,
        "lateness_s": spread(lateness),
        "lateness_in_app_s": spread(reads.lateness_s),
        "polls_read_early": len(early),
        "earliness_s": spread(early),
        "spacing_s": spread(gaps),
        "spacing_min_s": round(min(gaps), 3) if gaps else None,
        "polls_closer_than_allowed": sum(1 for g in gaps if g < MIN_SPACING_S),
        "listing_passes": len(passes.starts),
        "pass_period_s": spread(passes.periods_s()),
        "sweeps": len(timers.sweep_s),
        "sweep_size": spread([float(n) for n in timers.sweep_sizes]),
        "sweep_s": spread(timers.sweep_s),
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
    parser.add_argument(
        "--due-order",
        choices=("listing", "random"),
        default="listing",
        help="first polls due oldest run first (as briefs arriving over time), or at random",
    )
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
            "every poll due in the window served",
            f["polls_unserved"] == 0,
            f"{f['polls_unserved']} of {f['polls_due']} unserved",
        ),
        Goal(
            "lateness p99 < 1 s (service's answer - due)",
            late.get("n", 0) > 0 and late["p99"] < LATENESS_GOAL_S,
            f"p99 {late.get('p99')} s",
        ),
        Goal(
            f"no two polls of a run closer than {MIN_SPACING_S:g} s",
            f["spacing_min_s"] is not None and f["polls_closer_than_allowed"] == 0,
            f"closest {f['spacing_min_s']} s, {f['polls_closer_than_allowed']} too close",
        ),
        Goal("peak RSS < 300 MB", f["peak_rss_mb"] < RSS_GOAL_MB, f"{f['peak_rss_mb']} MB"),
    ]
    rows: list[tuple[str, Any]] = [
        ("runs watched", f["runs"]),
        ("first polls due", f"{f['due_order']} order"),
        ("load average before / after", f"{f['load_before']} / {f['load_after']}"),
        ("measured window (s)", f["measured_s"]),
        ("polls due in the window / unserved", f"{f['polls_due']} / {f['polls_unserved']}"),
        ("polls measured", f["polls"]),
        (
            "  read from a listing page / alone",
            f"{f['polls_read_from_pages']} / {f['polls_read_alone']}",
        ),
        ("polls per second", f["polls_per_s"]),
        ("lateness p50 (s)", late.get("p50")),
        ("lateness p90 (s)", late.get("p90")),
        ("lateness p99 (s)", late.get("p99")),
        ("lateness max (s)", late.get("max")),
        (
            "  in the app, page arrived: p50 / p99 / max (s)",
            f"{f['lateness_in_app_s'].get('p50')} / {f['lateness_in_app_s'].get('p99')} / "
            f"{f['lateness_in_app_s'].get('max')}",
        ),
        ("polls read early (negative lateness)", f["polls_read_early"]),
        (
            "  how early p50 / max (s)",
            f"{f['earliness_s'].get('p50')} / {f['earliness_s'].get('max')}",
        ),
        (
            "spacing of a run's polls min / p50 (s)",
            f"{f['spacing_min_s']} / {f['spacing_s'].get('p50')}",
        ),
        ("service requests: listing pages", f["listing_pages"]),
        ("service requests: single run reads", f["single_run_reads"]),
        ("service requests per 1,000 polls", f["requests_per_1000_polls"]),
        ("passes round the listing", f["listing_passes"]),
        (
            "time between passes p50 / max (s)",
            f"{f['pass_period_s'].get('p50')} / {f['pass_period_s'].get('max')}",
        ),
        ("sweeps ended (a sweep rolls on while polls join it)", f["sweeps"]),
        (
            "runs a sweep began with p50 / max",
            f"{f['sweep_size'].get('p50')} / {f['sweep_size'].get('max')}",
        ),
        ("sweep duration p50 / p99 (s)", f"{f['sweep_s'].get('p50')} / {f['sweep_s'].get('p99')}"),
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
