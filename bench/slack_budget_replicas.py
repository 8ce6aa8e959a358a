"""Slack's budget shared by replicas: the burst of ``slack_budget.py`` on 3 ``suggestbot
serve`` processes on one PostgreSQL, behind a round-robin balancer.

Every part in its own process but the Slack emulator (here, so that it can note when it took
each call): a PostgreSQL 15 cluster (fsync on), the sandbox (``python -m suggestbot sandbox``,
a run queued 2 s and running 5 s at real speed), and ``--replicas`` replicas. The commands
are sent round-robin over the replicas' addresses, as a round-robin balancer sends them (the
first to the first, the second to the second, ...). Each replica serves its own commands and
claims polls as it does in production; all of them spend one workspace's budget.

Figures and goals as ``slack_budget.py``'s burst (latency over the floor, 429s ≤ 1 % of calls),
plus: the most calls of each method the emulator took within any 60 s, from all replicas
together, never above the method's tier. Modes ``on`` and ``off`` as there (``--modes``).

Usage: python bench/slack_budget_replicas.py [--replicas 3] [--modes on,off] [--quick]
"""

from __future__ import annotations

import argparse
import json
import re
import secrets
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from benchkit import (
    Goal,
    ServeReplica,
    bench_pg_cluster,
    child_env,
    goal_rows,
    goals_json,
    load_average,
    machine,
    quiet_logging,
    report,
    sandbox_process,
    send_signed,
    suggest_command,
    wait_until,
)
from slack_budget import RUN, PostLog, figures

from suggestbot.demo.stage import app_manifest
from suggestbot.sandbox import DEMO
from suggestbot.sandbox.admin import ADMIN_KEY_HEADER
from suggestbot.slackemu import SlackEmulator
from suggestbot.slackemu.rationing import TIER_2, TIERS
from suggestbot.store import TokenVault, generate_key
from suggestbot.store.postgres import PostgresStore
from suggestbot.store.records import LinkedUser, Preferences, Records, user_key

SIGNING_SECRET = "bench-signing-secret"


def url_of(replica: ServeReplica) -> str:
    found = re.findall(r"http://127\.0\.0\.1:\d+/slack/events", replica.log_path.read_text())
    return found[-1]


def command(emu: SlackEmulator, user_id: str, channel_id: str, text: str) -> bytes:
    with emu.ws.lock:
        return suggest_command(emu, channel_id=channel_id, user_id=user_id, text=f"brief {text}")


def run_mode(mode: str, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    cluster = bench_pg_cluster()
    replicas: list[ServeReplica] = []
    admin_key = secrets.token_hex(12)
    try:
        db_url = cluster.create_database(f"bench_budget_{mode}")
        with PostgresStore(db_url, check_schema=False) as store:
            store.upgrade_schema()
        with (
            sandbox_process(admin_key=admin_key) as (_, sandbox_url),
            SlackEmulator(manifest=app_manifest()) as emu,
        ):
            if mode == "off":
                emu.rationing.off()
            admin = httpx.Client(
                base_url=sandbox_url, headers={ADMIN_KEY_HEADER: admin_key}, timeout=60
            )
            admin.patch("/sandbox/faults", json={"run_timing": RUN.model_dump()}).raise_for_status()
            tenant = DEMO.tenants[0]
            token = tenant.user_token
            segment_id = next(iter(tenant.segments.values()))
            use_case_id = next(iter(tenant.use_cases.values()))
            secret_key = generate_key()
            vault = TokenVault.from_setting(secret_key)
            pairs = []
            with PostgresStore(db_url) as store:
                records = Records(store)
                for n in range(args.people):
                    user_id = f"U0BUDGET{n:03d}"
                    emu.add_user(user_id, f"budget{n:03d}", locale="en-US", tz="Europe/Berlin")
                    channel = emu.add_channel(f"budget-{n:03d}", members=[user_id])
                    emu.invite_bot(channel)
                    key = user_key(emu.team_id, user_id)
                    records.users.put(
                        key,
                        LinkedUser(
                            team_id=emu.team_id,
                            user_id=user_id,
                            token_enc=vault.encrypt(token),
                            linked_at=time.time(),
                        ),
                    )
                    records.preferences.put(
                        key,
                        Preferences(segment_id=segment_id, use_case_id=use_case_id, variants=3),
                    )
                    pairs.append((user_id, channel))
            for number in range(1, args.replicas + 1):
                name = f"{mode}-replica-{number}"
                env = child_env(
                    {
                        "SLACK_BOT_TOKEN": emu.bot_token,
                        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
                        "SLACK_API_URL": emu.api_url,
                        "CONTENT_API_URL": sandbox_url,
                        "CONTENT_CLIENT_ID": tenant.client_id,
                        "CONTENT_CLIENT_SECRET": tenant.client_secret,
                        "SUGGESTBOT_SECRET_KEYS": secret_key,
                        "SUGGESTBOT_DATABASE_URL": db_url,
                        "SUGGESTBOT_DATA_DIR": str(work / name / "data"),
                        "LOG_LEVEL": "INFO",
                    }
                )
                replica = ServeReplica(name=name, env=env, log_path=work / f"{name}.log")
                replica.start()
                replicas.append(replica)
            urls = [url_of(r) for r in replicas]
            time.sleep(3)  # every replica's heartbeat is in: each knows its share
            log = PostLog.on(emu)
            load_before = load_average()
            gap = args.burst_s / max(1, args.rounds - 1)
            started = time.time()
            bad = 0
            n = 0
            for r in range(args.rounds):
                time.sleep(max(0.0, started + r * gap - time.time()))
                by_replica: dict[str, list[bytes]] = {u: [] for u in urls}
                for user_id, channel in pairs:
                    body = command(emu, user_id, channel, f"Burst round {r} for {user_id}")
                    by_replica[urls[n % len(urls)]].append(body)  # round-robin
                    n += 1
                for url, bodies in by_replica.items():
                    sent = send_signed(
                        url=url, signing_secret=SIGNING_SECRET, bodies=bodies, concurrency=10
                    )
                    bad += sum(1 for s in sent if s.status != 200)
            briefs = args.people * args.rounds

            def mine() -> list[Any]:
                with PostgresStore(db_url) as store:
                    return [
                        q
                        for q in Records(store).requests.values()
                        if (q.steering_text or "").startswith("Burst")
                    ]

            def finished() -> bool:
                reqs = mine()
                return len(reqs) >= briefs and all(q.state in ("done", "failed") for q in reqs)

            done = wait_until(finished, timeout=args.timeout, interval=1.0)
            time.sleep(args.settle)
            burst = figures(mine(), log.snapshot(), briefs, attempts={}, bad=bad, complete=done)
            load_after = load_average()
            peaks = emu.rationing.peaks()
            refused = dict(emu.rationing.refused)
            admin.close()
    finally:
        for replica in replicas:
            replica.stop()
        cluster.remove()
    return {
        "mode": mode,
        "replicas": args.replicas,
        "burst": burst,
        "peaks": peaks,
        "refused": refused,
        "load_before": load_before,
        "load_after": load_after,
    }


def goals(result: dict[str, Any]) -> list[Goal]:
    burst, mode = result["burst"], result["mode"]
    ratio = burst["latency_over_floor"]
    share = burst["calls_429"] / max(1, burst["calls"])
    over = {m: n for m, n in result["peaks"].items() if n > TIERS.get(m, TIER_2)}
    return [
        Goal(
            f"{mode} burst: every result",
            burst["complete"],
            f"{burst['results']}/{burst['briefs']}",
        ),
        Goal(f"{mode} burst p50 <= 1.3x floor", ratio.get("p50", 99) <= 1.3, str(ratio.get("p50"))),
        Goal(f"{mode} burst p99 <= 2x floor", ratio.get("p99", 99) <= 2.0, str(ratio.get("p99"))),
        Goal(f"{mode} burst 429s <= 1% of calls", share <= 0.01, f"{share:.2%}"),
        Goal(
            f"{mode}: replicas' calls per method per minute within the tier",
            not over,
            json.dumps(over),
        ),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", default="on,off")
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--people", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--burst-s", type=float, default=5.0)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--settle", type=float, default=5.0)
    parser.add_argument("--quick", action="store_true", help="6 people, 2 rounds")
    parser.add_argument("--keep-logs", type=Path, help="keep the replicas' logs in this folder")
    args = parser.parse_args()
    if args.quick:
        args.people, args.rounds = 6, 2
    quiet_logging()
    results = []
    with tempfile.TemporaryDirectory(prefix="slack-budget-replicas-") as tmp:
        work = args.keep_logs or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for mode in args.modes.split(","):
            results.append(run_mode(mode.strip(), args, work))
    all_goals: list[Goal] = []
    rows: list[tuple[str, Any]] = []
    for r in results:
        all_goals += goals(r)
        b = r["burst"]
        rows += [
            (f"{r['mode']}: load before/after", f"{r['load_before']} / {r['load_after']}"),
            (f"{r['mode']} burst latency s", json.dumps(b["latency_s"])),
            (f"{r['mode']} burst latency/floor", json.dumps(b["latency_over_floor"])),
            (f"{r['mode']} burst stages", json.dumps(b["stages"])),
            (f"{r['mode']} burst calls, 429s", f"{b['calls']}, {b['calls_429']}"),
            (f"{r['mode']} burst calls/brief", json.dumps(b["per_brief_by_method"])),
            (f"{r['mode']} peak calls per method in 60 s", json.dumps(r["peaks"])),
        ]
    rows += goal_rows(all_goals)
    report(
        f"Slack's budget on {args.replicas} replicas (burst, rationing on/off)",
        rows,
        {
            "benchmark": "slack_budget_replicas",
            "goals": goals_json(all_goals),
            "machine": machine(),
            "runs": results,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
