"""How fast the app acknowledges ``/suggest`` while the service is slow, next to a bare Bolt app.

Slack gives an app 3 seconds to answer a slash command. The app acks first and works after, so
a service that takes 2 s to create a run must not show in the ack. Every part runs in its own
process, so no two share an interpreter lock:

- ``bare``: a bare Bolt app (``benchkit.py bare-app``) as Bolt serves one at the least: the
  signature check, ``process_before_response=True`` (the listener runs in the request's thread;
  the answer leaves when it returns), Bolt's own ASGI adapter under uvicorn; its only listener
  acks. ``--bare-like-app`` gives it the real app's ``App`` options instead
  (``process_before_response=False``, the same listener pool, ``build_http_app``): a
  reference that pays for those choices too, so it cannot show what they cost;
- the app: ``suggestbot serve`` itself, as in production (INFO logs, the digest wave every
  minute, polls on the contract's schedule, every background job at production frequency);
  series ``help`` (``/suggest help``) and ``brief`` (``/suggest brief <text>`` from linked
  users whose segment and use case the app remembers, so each command posts a root message and
  creates a run, while the sandbox takes ``--create-latency`` seconds per
  ``POST /v1/generation-runs``);
- the sandbox (``python -m suggestbot sandbox``); the Slack emulator lives in this script's
  process, which only waits while a series runs;
- the load generator: each chunk of signed commands is sent by a fresh child process,
  ``--concurrency`` at a time; throughput is commands over the time from its first request to
  its last answer (its start-up not counted).

The three series are interleaved in chunks (``--chunk`` commands, the order rotating from chunk
to chunk), so a change of machine load falls on all three alike; ``--repetitions`` runs of
``--commands`` per series each, reported as min / median / max over the runs. The load average
(``os.getloadavg``) is recorded before and after; the CPU seconds each server process used per
command are read from ``/proc``.

Goals (on the median run): brief ack p99 <= 1.3x bare p99; brief throughput >= 0.8x bare's at
``--concurrency``; every ack < 1 s (far inside 3 s).

``--postgresql``: the app keeps its state in PostgreSQL instead of the SQLite file, as several
replicas would. A throwaway PostgreSQL 15 cluster is started on loopback for the run (with its
production durability settings, ``fsync`` and ``full_page_writes`` on, and
``synchronous_commit`` on: every commit is flushed before the ack), ``suggestbot db upgrade``
creates the schema, the users are linked in that database and the app is served with
``SUGGESTBOT_DATABASE_URL``; the cluster is removed at the end, also on Ctrl-C or an error.
The p99 goal there is issue 15's: brief ack p99 on PostgreSQL <= 1.5x bare p99.

``--replicas N`` (with ``--postgresql``, issue 32): the app as N ``suggestbot serve`` processes
on the one database behind a round-robin TCP proxy in its own process (``benchkit.py
rr-proxy``: each new connection to the next replica), and N bare apps behind another such
proxy; server CPU is summed over each side's processes. Goals there: brief ack p50 <= 0.03 s
and p99 <= 2x bare p99.

Usage: python bench/ack_latency.py [--commands 500] [--repetitions 3] [--quick] [--postgresql]
       [--replicas 3] [--bare-like-app]
"""

from __future__ import annotations

import argparse
import contextlib
import secrets
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from benchkit import (
    Goal,
    Sent,
    app_process,
    bare_app_process,
    child_cpu_seconds,
    goal_rows,
    goals_json,
    link_users_in_store,
    load_average,
    machine,
    postgres_database,
    quiet_logging,
    report,
    round_robin_proxy,
    sandbox_process,
    send_signed_timed,
    slash_bodies_in,
    spread,
)

from suggestbot.sandbox import ADMIN_KEY_HEADER, DEMO
from suggestbot.slackapp.manifest import BOT_SCOPES
from suggestbot.slackemu import SlackEmulator
from suggestbot.store import generate_key

CREATE_RUN_ROUTE = "POST /v1/generation-runs"
SIGNING_SECRET = "bench-ack-signing-secret"
FAR_INSIDE_S = 1.0
P99_GOAL = 1.3
P99_GOAL_POSTGRESQL = 1.5
P99_GOAL_REPLICAS = 2.0  # issue 32: 3 replicas behind one proxy, against bare apps behind one
P50_GOAL_REPLICAS_S = 0.03
THROUGHPUT_GOAL = 0.8
WARM_UP = 20
SERIES = ("bare", "help", "brief")
STORES = {
    False: "SQLite file (WAL, synchronous=NORMAL)",
    True: "PostgreSQL 15 on loopback (fsync on, synchronous_commit on)",
}


@dataclass
class Series:
    """One series of one repetition, summed over its chunks."""

    latencies: list[float] = field(default_factory=list)
    not_200: int = 0
    wall_s: float = 0.0
    cpu_s: float = 0.0

    def add(self, sent: list[Sent], wall_s: float, cpu_s: float) -> None:
        self.latencies += [s.elapsed_s for s in sent]
        self.not_200 += sum(1 for s in sent if s.status != 200)
        self.wall_s += wall_s
        self.cpu_s += cpu_s

    def figures(self) -> dict[str, Any]:
        n = len(self.latencies)
        return {
            **spread(self.latencies),
            "not_200": self.not_200,
            "per_s": round(n / self.wall_s, 1) if self.wall_s else None,
            "server_cpu_ms_per_command": round(self.cpu_s / n * 1000, 2) if n else None,
        }


def _cpu(pid: int) -> float:
    return child_cpu_seconds(pid) or 0.0


def run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    if not args.postgresql:
        return run_on(args, work, database_url=None)
    with postgres_database(work_dir=work / "app") as database_url:
        return run_on(args, work, database_url=database_url)


def run_on(args: argparse.Namespace, work: Path, *, database_url: str | None) -> dict[str, Any]:
    admin_key = secrets.token_hex(12)
    secret_key = generate_key()
    with (
        sandbox_process(admin_key=admin_key) as (_, service_url),
        SlackEmulator(scopes=BOT_SCOPES) as emu,
    ):
        with httpx.Client(base_url=service_url, headers={ADMIN_KEY_HEADER: admin_key}) as admin:
            admin.patch(
                "/sandbox/faults", json={"latency_s": {CREATE_RUN_ROUTE: args.create_latency}}
            ).raise_for_status()
        channel = emu.add_channel("marketing")
        emu.invite_bot(channel)
        users = link_users_in_store(
            data_dir=work / "app",
            secret_key=secret_key,
            emu=emu,
            channel_id=channel,
            token=DEMO.user_token,
            count=args.users,
            database_url=database_url,
        )
        with contextlib.ExitStack() as stack:
            apps = [
                stack.enter_context(
                    app_process(
                        data_dir=work / ("app" if n == 0 else f"app{n}"),
                        secret_key=secret_key,
                        signing_secret=SIGNING_SECRET,
                        slack_api_url=emu.api_url,
                        bot_token=emu.bot_token,
                        service_url=service_url,
                        database_url=database_url,
                    )
                )
                for n in range(args.replicas)
            ]
            bares = [
                stack.enter_context(
                    bare_app_process(
                        work_dir=work / f"bare{n}",
                        signing_secret=SIGNING_SECRET,
                        slack_api_url=emu.api_url,
                        bot_token=emu.bot_token,
                        like_app=args.bare_like_app,
                    )
                )
                for n in range(args.replicas)
            ]
            app_pids, bare_pids = [pid for pid, _ in apps], [pid for pid, _ in bares]
            app_url, bare_url = apps[0][1], bares[0][1]
            if args.replicas > 1:
                # Both behind the same kind of proxy, each its own: a new connection goes to
                # the next replica in turn.
                _, app_url = stack.enter_context(
                    round_robin_proxy(urls=[url for _, url in apps], work_dir=work / "app-proxy")
                )
                _, bare_url = stack.enter_context(
                    round_robin_proxy(urls=[url for _, url in bares], work_dir=work / "bare-proxy")
                )
            target = {
                "bare": (bare_url, bare_pids, "help"),
                "help": (app_url, app_pids, "help"),
                "brief": (app_url, app_pids, "brief Benchmark brief number {n}"),
            }

            def chunk(name: str, count: int, into: Series | None) -> None:
                url, pids, text = target[name]
                texts = [text.format(n=n) for n in range(count)]
                bodies = slash_bodies_in(emu, channel, users, texts)
                cpu0 = sum(_cpu(pid) for pid in pids)
                sent, wall_s = send_signed_timed(
                    url=url,
                    signing_secret=SIGNING_SECRET,
                    bodies=bodies,
                    concurrency=args.concurrency,
                )
                if into is not None:
                    into.add(sent, wall_s, sum(_cpu(pid) for pid in pids) - cpu0)

            for name in SERIES:  # warm-up, not measured
                chunk(name, WARM_UP, None)
            time.sleep(2.0)
            runs: list[dict[str, Series]] = []
            chunks = max(1, -(-args.commands // args.chunk))
            for rep in range(args.repetitions):
                got = {name: Series() for name in SERIES}
                for k in range(chunks):
                    size = min(args.chunk, args.commands - k * args.chunk)
                    order = SERIES[k % 3 :] + SERIES[: k % 3]
                    for name in order:
                        chunk(name, size, got[name])
                runs.append(got)
                print(f"repetition {rep + 1} of {args.repetitions} done", file=sys.stderr)
    return {"runs": [{name: s.figures() for name, s in got.items()} for got in runs]}


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 2) if a is not None and b else None


def _across(values: list[float | None]) -> dict[str, float | None]:
    present = [v for v in values if v is not None]
    if not present:
        return {"min": None, "median": None, "max": None}
    return {
        "min": min(present),
        "median": round(statistics.median(present), 3),
        "max": max(present),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--commands", type=int, default=500, help="per series and repetition")
    parser.add_argument("--chunk", type=int, default=100, help="commands per interleaved chunk")
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--users", type=int, default=10, help="linked users taking turns")
    parser.add_argument("--create-latency", type=float, default=2.0, help="seconds per create")
    parser.add_argument("--quick", action="store_true", help="100 commands, 2 repetitions")
    parser.add_argument("--work-dir", type=Path, help="where the app's store and logs go (temp)")
    parser.add_argument(
        "--postgresql",
        action="store_true",
        help="keep the app's state in a throwaway PostgreSQL 15 cluster (fsync on)",
    )
    parser.add_argument(
        "--replicas",
        type=int,
        default=1,
        help="serve the app as this many replicas on PostgreSQL behind a round-robin proxy "
        "(and as many bare apps behind another)",
    )
    parser.add_argument(
        "--bare-like-app",
        action="store_true",
        help="the bare app with the real app's App options and HTTP layer (the old reference)",
    )
    args = parser.parse_args()
    if args.replicas > 1 and not args.postgresql:
        parser.error("--replicas needs --postgresql (replicas share one database)")
    if args.quick:
        args.commands = min(args.commands, 100)
        args.chunk = min(args.chunk, 50)
        args.repetitions = min(args.repetitions, 2)
    quiet_logging()
    load_before = load_average()
    if args.work_dir:
        args.work_dir.mkdir(parents=True, exist_ok=True)
        figures = run(args, args.work_dir)
    else:
        with tempfile.TemporaryDirectory(prefix="bench-ack-") as tmp:
            figures = run(args, Path(tmp))
    load_after = load_average()

    runs = figures["runs"]
    per_run = [
        {
            "brief_p99_ratio": _ratio(r["brief"]["p99"], r["bare"]["p99"]),
            "help_p99_ratio": _ratio(r["help"]["p99"], r["bare"]["p99"]),
            "brief_throughput_ratio": _ratio(r["brief"]["per_s"], r["bare"]["per_s"]),
        }
        for r in runs
    ]
    summary: dict[str, Any] = {
        f"{name}_{figure}": _across([r[name][figure] for r in runs])
        for name in SERIES
        for figure in ("p50", "p99", "max", "per_s", "server_cpu_ms_per_command")
    }
    summary |= {key: _across([r[key] for r in per_run]) for key in per_run[0]}
    worst = max(r[name]["max"] for r in runs for name in ("help", "brief"))
    not_200 = sum(r[name]["not_200"] for r in runs for name in SERIES)
    p99_ratio = summary["brief_p99_ratio"]["median"]
    throughput_ratio = summary["brief_throughput_ratio"]["median"]
    p99_goal = P99_GOAL_POSTGRESQL if args.postgresql else P99_GOAL
    if args.replicas > 1:
        p99_goal = P99_GOAL_REPLICAS
    store = "PostgreSQL" if args.postgresql else "SQLite"
    goals = [
        Goal(
            f"brief p99 on {store} <= {p99_goal}x bare p99 (median run)",
            p99_ratio is not None and p99_ratio <= p99_goal,
            f"ratio {p99_ratio} (runs: {[r['brief_p99_ratio'] for r in per_run]})",
        ),
        Goal(
            f"brief throughput >= {THROUGHPUT_GOAL}x bare (median run)",
            throughput_ratio is not None and throughput_ratio >= THROUGHPUT_GOAL,
            f"ratio {throughput_ratio} (runs: {[r['brief_throughput_ratio'] for r in per_run]})",
        ),
        *(
            [
                Goal(
                    f"brief p50 <= {P50_GOAL_REPLICAS_S} s over {args.replicas} replicas "
                    "(median run)",
                    (summary["brief_p50"]["median"] or 1e9) <= P50_GOAL_REPLICAS_S,
                    f"p50 {summary['brief_p50']['median']} s",
                )
            ]
            if args.replicas > 1
            else []
        ),
        Goal(
            "every ack < 1 s (far inside 3 s)",
            worst < FAR_INSIDE_S and not_200 == 0,
            f"slowest {worst:.3f} s, {not_200} not 200",
        ),
    ]

    def mmm(key: str, digits: int = 3) -> str:
        v = summary[key]
        if v["median"] is None:
            return "-"
        return f"{v['min']:.{digits}f} / {v['median']:.{digits}f} / {v['max']:.{digits}f}"

    rows: list[tuple[str, Any]] = [
        ("over runs", "min / median / max"),
    ]
    for name in SERIES:
        rows += [
            (f"{name}: ack p50 (s)", mmm(f"{name}_p50")),
            (f"{name}: ack p99 (s)", mmm(f"{name}_p99")),
            (f"{name}: slowest ack (s)", mmm(f"{name}_max")),
            (f"{name}: commands per s", mmm(f"{name}_per_s", 1)),
            (f"{name}: server CPU ms per command", mmm(f"{name}_server_cpu_ms_per_command", 2)),
        ]
    rows += [
        ("brief / bare p99", mmm("brief_p99_ratio", 2)),
        ("help / bare p99", mmm("help_p99_ratio", 2)),
        ("brief / bare throughput", mmm("brief_throughput_ratio", 2)),
        (
            "runs x commands per series, chunk",
            f"{args.repetitions} x {args.commands}, {args.chunk}",
        ),
        ("concurrency", args.concurrency),
        ("the app's store", STORES[args.postgresql]),
        ("create-run latency (s)", args.create_latency),
        ("bare app", "like the app" if args.bare_like_app else "Bolt's least (ASGI adapter)"),
        ("replicas (each side behind its own round-robin proxy if > 1)", args.replicas),
        ("load average before / after", f"{load_before} / {load_after}"),
        *goal_rows(goals),
    ]
    result = {
        "benchmark": "ack_latency",
        "commands_per_series": args.commands,
        "chunk": args.chunk,
        "repetitions": args.repetitions,
        "concurrency": args.concurrency,
        "store": STORES[args.postgresql],
        "create_latency_s": args.create_latency,
        "bare_like_app": args.bare_like_app,
        "replicas": args.replicas,
        "summary": summary,
        "per_run": per_run,
        "runs": runs,
        "loadavg_before": load_before,
        "loadavg_after": load_after,
        "goals": goals_json(goals),
        "machine": machine(),
    }
    title = f"ack latency of /suggest on {store} (seconds), each part in its own process"
    report(title, rows, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
