"""How fast the app acknowledges ``/suggest`` while the service is slow, next to a bare Bolt app.

Slack gives an app 3 seconds to answer a slash command. The app acks first and works after, so
a service that takes 2 s to create a run must not show in the ack. Three series, one run:

- ``bare``: a Bolt app whose only listener acks, configured and served exactly as the real app
  is (same ``App`` options, ``build_http_app``, uvicorn over loopback);
- ``app help``: ``/suggest help`` to the real app (``suggestbot.stage.Stage``);
- ``app brief``: ``/suggest brief <text>`` from linked users whose segment and use case the app
  remembers, so each command goes on to post a root message and create a run, while the
  sandbox takes 2 s for every ``POST /v1/generation-runs``.

The commands are signed like Slack's and sent from a separate process, ``--concurrency`` at a
time, so the client's work does not share the app's interpreter lock. Traffic stays on
127.0.0.1 (ephemeral ports).

Goal: the app's p99 at most 1.5x the bare app's, and every ack far inside 3 s (here: < 1 s).

Usage: python bench/ack_latency.py [--commands 500] [--concurrency 20] [--quick]
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchkit import (
    Goal,
    Sent,
    StackSampler,
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
from slack_bolt import Ack, App
from slack_sdk import WebClient

from suggestbot.serving import BackgroundServer
from suggestbot.slackapp.app import LISTENER_THREADS
from suggestbot.slackapp.http import EVENTS_PATH, build_http_app
from suggestbot.stage import SIGNING_SECRET, Stage

CREATE_RUN_ROUTE = "POST /v1/generation-runs"
FAR_INSIDE_S = 1.0
RATIO_GOAL = 1.5
WARM_UP = 20


def bare_app(*, api_url: str, token: str) -> App:
    """A Bolt app with the real app's options whose only listener acks."""
    app = App(
        client=WebClient(token=token, base_url=api_url),
        signing_secret=SIGNING_SECRET,
        process_before_response=False,
        listener_executor=ThreadPoolExecutor(
            max_workers=LISTENER_THREADS, thread_name_prefix="bare-listener"
        ),
    )

    @app.command("/suggest")
    def only_ack(ack: Ack) -> None:
        ack()

    return app


@dataclass
class Series:
    latencies: list[float]
    not_200: int
    wall_s: float

    def figures(self) -> dict[str, Any]:
        return {
            **spread(self.latencies),
            "not_200": self.not_200,
            "per_s": round(len(self.latencies) / self.wall_s, 1),
        }


def series(url: str, bodies: list[bytes], concurrency: int) -> Series:
    started = time.monotonic()
    sent: list[Sent] = send_signed(
        url=url, signing_secret=SIGNING_SECRET, bodies=bodies, concurrency=concurrency
    )
    return Series(
        latencies=[s.elapsed_s for s in sent],
        not_200=sum(1 for s in sent if s.status != 200),
        wall_s=time.monotonic() - started,
    )


def run(args: argparse.Namespace, data_dir: Path) -> dict[str, Any]:
    commands, concurrency = args.commands, args.concurrency
    stage = Stage(data_dir=data_dir / "app", time_factor=0.01, poll_scale=0.01)
    with stage:
        users = add_linked_users(stage, args.users)
        assert stage.runtime is not None and stage.driver is not None
        app_url = stage.driver.app_url
        deps = stage.runtime.deps
        reference = bare_app(api_url=stage.emu.api_url, token=stage.emu.bot_token)
        with BackgroundServer(build_http_app(reference), name="bare-app") as bare_server:
            bare_url = bare_server.url + EVENTS_PATH
            help_texts = ["help"] * commands
            brief_texts = [f"brief Benchmark brief number {n}" for n in range(commands)]

            series(bare_url, slash_bodies(stage, users, ["help"] * WARM_UP), concurrency)
            series(app_url, slash_bodies(stage, users, ["help"] * WARM_UP), concurrency)
            time.sleep(1.0)  # let the warm-up's replies settle

            bare = series(bare_url, slash_bodies(stage, users, help_texts), concurrency)
            sampler = StackSampler() if args.profile else None
            with sampler or contextlib.nullcontext():
                helps = series(app_url, slash_bodies(stage, users, help_texts), concurrency)

                stage.sandbox.faults.latency_s = {CREATE_RUN_ROUTE: args.create_latency}
                deps.catalog(refresh=True)  # the brief shortcut needs the catalogue cached
                before = len(list(deps.records.requests.values()))
                created_before = stage.sandbox.counters.get(CREATE_RUN_ROUTE)
                started = time.monotonic()
                briefs = series(app_url, slash_bodies(stage, users, brief_texts), concurrency)

            def finished() -> int:
                return sum(
                    1 for r in deps.records.requests.values() if r.state in ("done", "failed")
                )

            drain_limit = 60 + commands * args.create_latency / 8
            wait_until(lambda: finished() - before >= commands, timeout=drain_limit, interval=0.5)
            drained_after = time.monotonic() - started
            done = sum(1 for r in deps.records.requests.values() if r.state == "done") - before
            created = stage.sandbox.counters.get(CREATE_RUN_ROUTE) - created_before
            stage.sandbox.faults.latency_s = {}
    if sampler is not None:
        sampler.print()

    return {
        "bare": bare.figures(),
        "app_help": helps.figures(),
        "app_brief": briefs.figures(),
        "runs_created": created,
        "briefs_done": done,
        "briefs_drained_s": round(drained_after, 1),
        "over_3s": sum(1 for s in helps.latencies + briefs.latencies if s >= 3.0),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--commands", type=int, default=500, help="per series")
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--users", type=int, default=10, help="linked users taking turns")
    parser.add_argument("--create-latency", type=float, default=2.0, help="seconds per create")
    parser.add_argument("--quick", action="store_true", help="100 commands per series")
    parser.add_argument("--profile", action="store_true", help="sample the app's threads (stderr)")
    parser.add_argument("--data-dir", type=Path, help="where the app's store lives (temp dir)")
    args = parser.parse_args()
    if args.quick:
        args.commands = min(args.commands, 100)
    quiet_logging()

    if args.data_dir:
        args.data_dir.mkdir(parents=True, exist_ok=True)
        figures = run(args, args.data_dir)
    else:
        with tempfile.TemporaryDirectory(prefix="bench-ack-") as tmp:
            figures = run(args, Path(tmp))

    bare_p99 = figures["bare"]["p99"]
    ratios = {
        name: round(figures[name]["p99"] / bare_p99, 2) if bare_p99 else None
        for name in ("app_help", "app_brief")
    }
    worst = max(figures["app_help"]["max"], figures["app_brief"]["max"])
    not_200 = sum(figures[name]["not_200"] for name in ("bare", "app_help", "app_brief"))
    goals = [
        Goal(
            "brief p99 <= 1.5x bare p99",
            ratios["app_brief"] is not None and ratios["app_brief"] <= RATIO_GOAL,
            f"ratio {ratios['app_brief']}",
        ),
        Goal(
            "help p99 <= 1.5x bare p99",
            ratios["app_help"] is not None and ratios["app_help"] <= RATIO_GOAL,
            f"ratio {ratios['app_help']}",
        ),
        Goal(
            "every ack < 1 s (far inside 3 s)",
            worst < FAR_INSIDE_S and not_200 == 0,
            f"slowest {worst:.3f} s, {figures['over_3s']} at 3 s or more, {not_200} not 200",
        ),
    ]
    rows: list[tuple[str, Any]] = [
        ("series (seconds)", "   n     p50     p90     p99     max   cmds/s"),
    ]
    for name in ("bare", "app_help", "app_brief"):
        f = figures[name]
        rows.append(
            (
                name,
                f"{f['n']:>4} {f['p50']:>7.3f} {f['p90']:>7.3f} {f['p99']:>7.3f} "
                f"{f['max']:>7.3f} {f['per_s']:>8}",
            )
        )
    rows += [
        ("p99 ratio help/bare", ratios["app_help"]),
        ("p99 ratio brief/bare", ratios["app_brief"]),
        ("concurrency", args.concurrency),
        ("create-run latency (s)", args.create_latency),
        ("runs created by briefs", figures["runs_created"]),
        ("briefs done", figures["briefs_done"]),
        ("all briefs done after (s)", figures["briefs_drained_s"]),
        *goal_rows(goals),
    ]
    result = {
        "benchmark": "ack_latency",
        "commands_per_series": args.commands,
        "concurrency": args.concurrency,
        "create_latency_s": args.create_latency,
        **figures,
        "p99_ratio": ratios,
        "goals": goals_json(goals),
        "machine": machine(),
    }
    report("ack latency of /suggest (seconds)", rows, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
