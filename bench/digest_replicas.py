"""One digest minute over three replicas on one PostgreSQL: 5,000 channels in 500 workspaces,
timed from the minute they are due.

Real processes: PostgreSQL 15 (a throwaway cluster on loopback, ``fsync`` on), the sandbox,
and ``--replicas`` ``suggestbot serve`` processes on one database URL; the Slack emulator runs
in this process and enforces one post per second per channel (429 + Retry-After otherwise).
Nothing calls the wave: each replica's scheduler fires it on the minute, as in production.

The service's demo tenant gets 20 (segment, use case) pairs with a ready-made set each; each of
``--workspaces`` workspaces uses ``--pairs-per-workspace`` of them, and each of its
``--channels-per-workspace`` channels subscribes to ``--per-channel`` of those pairs, all due at
the next wall-clock minute (at least 20 s after set-up, Europe/Berlin). The subscriptions are
written into the database in bulk before the minute.

Workspaces here are team ids in the store: the replicas run with one bot token (the
single-workspace set-up), so every workspace posts into the one emulated Slack workspace and
reads from the one service tenant. What the wave groups by, reads, claims and posts per
(workspace, segment, use case) is exercised; per-workspace token look-ups (OAuth
installations) and per-tenant credentials are not.

Figures: ``GET /v1/inspiration`` reads (sandbox counters) against the distinct (workspace,
segment, use case) triples; time from second 0 of the minute to the first and the last post
(the emulator's message timestamps); the floor ``(digests per channel - 1)`` seconds that one
post per second per channel imposes; posts per channel against the digests it has (a digest
posted twice shows as one too many); Slack 429s; each replica's CPU over the wave (``/proc``).

Goals: reads = triples; first post <= 2 s after the minute; last post <= 1.1x the floor;
every digest posted exactly once.

Usage: python bench/digest_replicas.py [--workspaces 500] [--channels-per-workspace 10]
       [--per-channel 1] [--replicas 3] [--quick]
"""

from __future__ import annotations

import argparse
import math
import secrets
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
from benchkit import (
    Goal,
    ServeReplica,
    bench_pg_cluster,
    child_cpu_seconds,
    child_env,
    goal_rows,
    goals_json,
    load_average,
    machine,
    quiet_logging,
    report,
    sandbox_process,
    wait_until,
)

from suggestbot.sandbox import ADMIN_KEY_HEADER, DEMO
from suggestbot.slackemu import SlackEmulator
from suggestbot.slackemu.ids import ts_to_float
from suggestbot.store import generate_key
from suggestbot.store.postgres import PostgresStore
from suggestbot.store.records import WEEKDAYS, Digest, Records

TZ = "Europe/Berlin"
SETUP_MARGIN_S = 20.0
SEGMENTS = 4
USE_CASES = 5
LIMIT_PER_S = 1.0
WALL_GOAL = 1.10
FIRST_POST_GOAL_S = 2.0
CREATOR = "U0DIGEST"
SEED_CHUNK = 1000


def progress(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def add_pairs(admin: httpx.Client) -> list[tuple[str, str, str, str]]:
    """20 (segment id, name, use case id, name) of the demo tenant, each with a ready set."""
    tenant = DEMO.tenant_id
    segments = []
    for n in range(SEGMENTS):
        got = admin.post(
            f"/sandbox/tenants/{tenant}/segments",
            json={"name": f"Digest segment {n}", "description": "Benchmark audience"},
        )
        got.raise_for_status()
        segments.append((got.json()["id"], f"Digest segment {n}"))
    use_cases = []
    for n in range(USE_CASES):
        got = admin.post(f"/sandbox/tenants/{tenant}/use-cases", json={"name": f"Digest uc {n}"})
        got.raise_for_status()
        use_cases.append((got.json()["id"], f"Digest uc {n}"))
    pairs = []
    for segment_id, segment in segments:
        for use_case_id, use_case in use_cases:
            body = {"segment_id": segment_id, "use_case_id": use_case_id}
            admin.post(f"/sandbox/tenants/{tenant}/precompute", json=body).raise_for_status()
            pairs.append((segment_id, segment, use_case_id, use_case))
    return pairs


def measure(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    cluster = bench_pg_cluster()
    replicas: list[ServeReplica] = []
    admin_key = secrets.token_hex(12)
    try:
        db_url = cluster.create_database("bench_digest")
        with PostgresStore(db_url, check_schema=False) as store:
            store.upgrade_schema()
        with sandbox_process(admin_key=admin_key) as (_, url), SlackEmulator() as emu:
            admin = httpx.Client(base_url=url, headers={ADMIN_KEY_HEADER: admin_key}, timeout=60)
            pairs = add_pairs(admin)
            emu.add_user(CREATOR, "digest-owner")
            channels: list[list[str]] = []
            for w in range(args.workspaces):
                ours = []
                for c in range(args.channels_per_workspace):
                    channel = emu.add_channel(f"digest-{w}-{c}", members=[CREATOR])
                    emu.invite_bot(channel)
                    ours.append(channel)
                channels.append(ours)
            progress(
                f"{args.workspaces * args.channels_per_workspace} channels, {len(pairs)} pairs"
            )
            secret_keys = generate_key()
            for number in range(1, args.replicas + 1):
                name = f"replica-{number}"
                env = child_env(
                    {
                        "SLACK_BOT_TOKEN": emu.bot_token,
                        "SLACK_SIGNING_SECRET": "bench-signing-secret",
                        "SLACK_API_URL": emu.api_url,
                        "CONTENT_API_URL": url,
                        "CONTENT_CLIENT_ID": DEMO.client_id,
                        "CONTENT_CLIENT_SECRET": DEMO.client_secret,
                        "SUGGESTBOT_SECRET_KEYS": secret_keys,
                        "SUGGESTBOT_DATABASE_URL": db_url,
                        "SUGGESTBOT_DATA_DIR": str(work / name / "data"),
                        "LOG_LEVEL": "INFO",
                    }
                )
                replica = ServeReplica(name=name, env=env, log_path=work / f"{name}.log")
                replica.start()
                replicas.append(replica)
            progress(f"{len(replicas)} replicas serve")

            # The minute is fixed once the slow set-up is done; subscribed yesterday, so
            # today's occurrence is due.
            now = datetime.now(UTC)
            minute = (now + timedelta(seconds=SETUP_MARGIN_S + 60)).replace(second=0, microsecond=0)
            local = minute.astimezone(ZoneInfo(TZ))
            created = (minute - timedelta(days=1)).timestamp()
            expected: Counter[str] = Counter()
            triples: set[tuple[str, str, str]] = set()
            digests: dict[str, Digest] = {}
            ppw = args.pairs_per_workspace
            for w, ours in enumerate(channels):
                team_id = f"TBENCH{w:05d}"
                mine = [pairs[(w * ppw + k) % len(pairs)] for k in range(ppw)]
                for c, channel in enumerate(ours):
                    for j in range(args.per_channel):
                        segment_id, segment, use_case_id, use_case = mine[(c + j) % ppw]
                        digest = Digest(
                            id=f"bd{len(digests):07d}",
                            team_id=team_id,
                            channel_id=channel,
                            created_by=CREATOR,
                            segment_id=segment_id,
                            use_case_id=use_case_id,
                            segment_name=segment,
                            use_case_name=use_case,
                            time=f"{local.hour:02d}:{local.minute:02d}",
                            tz=TZ,
                            weekdays=list(WEEKDAYS),
                            created_at=created,
                            active_since=created,
                        )
                        digests[digest.id] = digest
                        expected[channel] += 1
                        triples.add((team_id, segment_id, use_case_id))
            started = time.monotonic()
            with PostgresStore(db_url) as store:
                records = Records(store)
                items = list(digests.items())
                for start in range(0, len(items), SEED_CHUNK):
                    records.digests.put_many(dict(items[start : start + SEED_CHUNK]))
            seeded_s = time.monotonic() - started
            due_at = minute.timestamp()
            margin_s = due_at - time.time()
            progress(f"{len(digests)} digests written in {seeded_s:.1f} s; due in {margin_s:.0f} s")
            if margin_s < 2:
                raise RuntimeError("set-up ran past the due minute: raise SETUP_MARGIN_S")
            emu.faults.enforce_post_rate(LIMIT_PER_S)
            admin.delete("/sandbox/counters").raise_for_status()
            calls_before = len(emu.calls())
            time.sleep(max(0.0, due_at - time.time() - 1))
            load_before = load_average()
            cpu0 = {r.name: child_cpu_seconds(r.pid) or 0.0 for r in replicas}

            def posts() -> list[tuple[float, str]]:
                return [
                    (ts_to_float(str(c.response["ts"])), str(c.args.get("channel")))
                    for c in emu.calls()[calls_before:]
                    if c.method == "chat.postMessage" and c.ok and c.args.get("channel") in expected
                ]

            limit_s = args.per_channel * 3 + 240
            wait_until(lambda: len(posts()) >= len(digests), timeout=limit_s, interval=0.5)
            time.sleep(5)  # a digest posted twice would show now
            cpu1 = {r.name: child_cpu_seconds(r.pid) or 0.0 for r in replicas}
            load_after = load_average()
            service = admin.get("/sandbox/counters").json()
            calls = emu.calls()[calls_before:]
            refused = sum(1 for c in calls if c.status == 429)
            posted = posts()
            admin.close()
            for replica in replicas:
                replica.stop()
            replicas = []
    finally:
        for replica in replicas:
            replica.stop()
        cluster.remove()

    per_channel = Counter(channel for _, channel in posted)
    doubled = sum(max(0, per_channel[c] - n) for c, n in expected.items())
    twice = sorted(c for c, n in expected.items() if per_channel[c] > n)[:3]
    doubled_examples = {
        c: sorted(round(t - due_at, 2) for t, ch in posted if ch == c) for c in twice
    }
    missing = sum(max(0, n - per_channel[c]) for c, n in expected.items())
    times = [t for t, _ in posted]
    floor = (max(expected.values()) - 1) / LIMIT_PER_S
    return {
        "workspaces": args.workspaces,
        "channels": sum(len(c) for c in channels),
        "digests": len(digests),
        "digests_per_channel": args.per_channel,
        "triples": len(triples),
        "replicas": args.replicas,
        "due_minute_utc": minute.strftime("%H:%M"),
        "setup_margin_s": round(margin_s, 1),
        "seed_s": round(seeded_s, 1),
        "posts": len(posted),
        "digests_missing": missing,
        "digests_posted_twice": doubled,
        "posted_twice_examples_s_after_minute": doubled_examples,
        "inspiration_reads": service.get("GET /v1/inspiration", 0),
        "service_calls": service,
        "slack_429": refused,
        "floor_s": round(floor, 2),
        "minute_to_first_post_s": round(min(times) - due_at, 2) if times else None,
        "minute_to_last_post_s": round(max(times) - due_at, 2) if times else None,
        "replica_cpu_s": {name: round(cpu1[name] - cpu0[name], 2) for name in sorted(cpu0)},
        "load_before": load_before,
        "load_after": load_after,
        "postgres": "15, fsync on, synchronous_commit on",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workspaces", type=int, default=500)
    parser.add_argument("--channels-per-workspace", type=int, default=10)
    parser.add_argument("--pairs-per-workspace", type=int, default=2)
    parser.add_argument("--per-channel", type=int, default=1, help="digests per channel")
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="20 workspaces, 5 channels each")
    args = parser.parse_args()
    if args.quick:
        args.workspaces, args.channels_per_workspace = min(args.workspaces, 20), 5
    args.pairs_per_workspace = max(1, min(args.pairs_per_workspace, SEGMENTS * USE_CASES))
    quiet_logging()
    with tempfile.TemporaryDirectory(prefix="bench-digest-replicas-") as tmp:
        f = measure(args, Path(tmp))

    first, last, floor = f["minute_to_first_post_s"], f["minute_to_last_post_s"], f["floor_s"]
    if last is None:
        within = math.inf
    else:
        within = last / floor if floor > 0 else (1.0 if last <= 0 else math.inf)
    goals = [
        Goal(
            "inspiration reads = (workspace, segment, use case) triples",
            f["inspiration_reads"] == f["triples"],
            f"{f['inspiration_reads']} reads for {f['triples']} triples",
        ),
        Goal(
            f"first post <= {FIRST_POST_GOAL_S:g} s after the minute",
            first is not None and first <= FIRST_POST_GOAL_S,
            f"{first} s",
        ),
        Goal(
            "last post <= 1.1x the one-post-per-second-per-channel floor",
            within <= WALL_GOAL,
            f"{last} s vs floor {floor} s",
        ),
        Goal(
            "every digest posted exactly once",
            f["digests_missing"] == 0 and f["digests_posted_twice"] == 0,
            f"{f['digests_missing']} missing, {f['digests_posted_twice']} twice",
        ),
    ]
    rows: list[tuple[str, Any]] = [
        (
            "workspaces / channels / digests",
            f"{f['workspaces']} / {f['channels']} / {f['digests']}",
        ),
        ("replicas", f["replicas"]),
        ("PostgreSQL", f["postgres"]),
        (
            "due minute (UTC) / set-up done before it (s)",
            f"{f['due_minute_utc']} / {f['setup_margin_s']}",
        ),
        ("inspiration reads / distinct triples", f"{f['inspiration_reads']} / {f['triples']}"),
        (
            "posts / missing / posted twice",
            f"{f['posts']} / {f['digests_missing']} / {f['digests_posted_twice']}",
        ),
        ("Slack 429 answers", f["slack_429"]),
        ("floor (s)", floor),
        ("minute to first post (s)", first),
        ("minute to last post (s)", last),
        ("replica CPU s over the wave", f["replica_cpu_s"]),
        ("load average before -> after (1 min)", f"{f['load_before'][0]} -> {f['load_after'][0]}"),
        *goal_rows(goals),
    ]
    result = {"benchmark": "digest_replicas", **f, "goals": goals_json(goals), "machine": machine()}
    report(f"digest minute over {f['replicas']} replicas: {f['digests']} digests", rows, result)
    print(
        f"SUMMARY digest_replicas digests={f['digests']} workspaces={f['workspaces']} "
        f"reads={f['inspiration_reads']}/{f['triples']} first={first}s last={last}s "
        f"floor={floor}s missing={f['digests_missing']} twice={f['digests_posted_twice']} "
        f"429={f['slack_429']} load={f['load_before'][0]}->{f['load_after'][0]}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
