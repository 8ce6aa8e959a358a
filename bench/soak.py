"""Soak: three replicas on one PostgreSQL under steady mixed traffic for a chosen time (30 min
by default), sampled every minute, and whether anything grew that should not.

The traffic goes through the Slack emulator and the balancer to ``suggestbot serve`` processes
on a throwaway PostgreSQL 15 cluster (the test suite's own harness: ``tests/reliability/
cluster_harness.py`` and ``soak_harness.py``): quick briefs, thread replies (refinements), 👍 on
variants, App Home opens, briefs written in the Messages tab, one thing every ``--every``
seconds; digests due every ``--digest-every`` minutes in channels of their own; one replica
restarted (SIGTERM, then started again, as a rolling deploy does) every ``--restart-every``
minutes, in turn. Every ``--sample-every`` seconds it records, per replica process, resident
memory, threads and open file descriptors, the rows of every table, and the database's
connections; at the end (after the traffic stopped and the work in flight ended) once more.

Goals, after each process's warm-up (``--warmup`` minutes after it started): memory and
descriptors flat (the fitted slope within two standard errors of zero, or under 0.5 MB/min
and 0.1 fd/min), tables bounded (work held in ``work_leases`` drains to none once the traffic
stops; no heartbeat of a gone replica), no error line in any replica's log.

    .venv/bin/python bench/soak.py                 # 30 minutes
    .venv/bin/python bench/soak.py --minutes 5     # a short run (figures not comparable)
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent / "tests"
sys.path[:0] = [str(HERE), str(TESTS), str(TESTS / "reliability")]

from benchkit import Goal, goal_rows, goals_json, load_average, machine, report  # noqa: E402
from cluster_harness import ClusterStage  # noqa: E402
from soak_harness import Soak, SoakResult, describe, growth  # noqa: E402

from pg_cluster import PgCluster  # noqa: E402
from suggestbot.store.postgres import PostgresStore  # noqa: E402

RSS_FLAT_MB_PER_MIN = 0.5
FD_FLAT_PER_MIN = 0.1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--every", type=float, default=1.5, help="seconds between actions")
    parser.add_argument("--sample-every", type=float, default=60.0, help="seconds")
    parser.add_argument("--restart-every", type=float, default=10.0, help="minutes")
    parser.add_argument("--digest-every", type=int, default=3, help="minutes")
    parser.add_argument("--warmup", type=float, default=3.0, help="minutes after a start")
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument(
        "--arena-max-on",
        metavar="REPLICA",
        help="run this replica (replica-3) with MALLOC_ARENA_MAX=2, to tell glibc's per-thread "
        "arenas from a leak by comparison",
    )
    args = parser.parse_args(argv)

    load_before = load_average()
    with tempfile.TemporaryDirectory(prefix="suggestbot-soak-") as tmp:
        cluster = PgCluster().start()
        try:
            url = cluster.create_database("soak")
            with PostgresStore(url, check_schema=False) as store:
                store.upgrade_schema()
            stage = ClusterStage(
                data_dir=Path(tmp) / "cluster",
                database_url=url,
                replicas=args.replicas,
                log_level="INFO",
                replica_env={args.arena_max_on: {"MALLOC_ARENA_MAX": "2"}}
                if args.arena_max_on
                else None,
            )
            try:
                stage.start()
                result = Soak(
                    stage,
                    seconds=args.minutes * 60,
                    every_s=args.every,
                    sample_every_s=args.sample_every,
                    restart_every_s=args.restart_every * 60,
                    digest_every_min=args.digest_every,
                ).run()
            finally:
                stage.stop()
        finally:
            cluster.remove()
    load_after = load_average()
    return _report(result, args, load_before, load_after)


def _report(
    result: SoakResult, args: argparse.Namespace, before: list[float], after: list[float]
) -> int:
    fits = growth(result, warmup_s=args.warmup * 60)
    rows: list[tuple[str, Any]] = [
        ("run", f"{result.seconds / 60:.1f} min, {len(result.samples)} samples"),
        ("actions", result.actions),
        ("restarts", result.restarts),
        ("load average before / after", f"{before} / {after}"),
    ]
    flat_rss = flat_fds = True
    for (replica, pid), found in sorted(fits.items()):
        for name in ("rss_mb", "threads", "fds"):
            line = found.get(name)
            if line is None:
                continue
            rows.append(
                (
                    f"{replica} pid {pid} {name}",
                    f"{line.first:.1f} → {line.last:.1f}; slope {line.slope:+.3f}/min "
                    f"± {line.stderr:.3f} over {line.minutes:.1f} min ({line.points} samples)",
                )
            )
        rss, fds = found.get("rss_mb"), found.get("fds")
        if rss is not None and not (rss.flat or rss.slope <= RSS_FLAT_MB_PER_MIN):
            flat_rss = False
        if fds is not None and not (fds.flat or fds.slope <= FD_FLAT_PER_MIN):
            flat_fds = False
    last = result.samples[-1]
    held = {
        name: n
        for name, n in last.rows.items()
        if name in ("work_leases/run_polls", "work_leases/run_sends", "work_leases/interactions")
        and n
    }
    goals = [
        Goal("RSS flat after warm-up", flat_rss, "every process"),
        Goal("descriptors flat after warm-up", flat_fds, "every process"),
        Goal("work drains once traffic stops", not held, str(held or "none held")),
        Goal(
            "heartbeats of live replicas only",
            last.rows.get("work_leases/replicas", 0) <= args.replicas,
            str(last.rows.get("work_leases/replicas", 0)),
        ),
        Goal("no error in the logs", not result.log_errors, f"{len(result.log_errors)} lines"),
        Goal("no failed action", not result.action_errors, f"{len(result.action_errors)}"),
    ]
    rows += goal_rows(goals)
    rows += [("tables at the end", json.dumps(last.rows, sort_keys=True))]
    print("\nper sample:")
    for sample in result.samples:
        print("  " + describe(sample))
    for line in result.log_errors[:20] + result.action_errors[:20]:
        print("  !", line[:300])
    report(
        "soak",
        rows,
        {
            "benchmark": "soak",
            "goals": goals_json(goals),
            "machine": machine(),
            "samples": [
                {
                    "at_s": s.at_s,
                    "processes": [p.__dict__ for p in s.processes],
                    "connections": s.connections,
                    "rows": s.rows,
                }
                for s in result.samples
            ],
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
