"""One digest minute at scale: 1,000 subscriptions over 20 (segment, use case) pairs.

The stage (``suggestbot.stage.Stage``: sandbox, Slack emulator, the real app) gets 20 pairs of
ready-made content in the demo tenant (4 new segments x 5 new use cases, one precomputed set
each; every set mixes emails and social posts with images) and ``--channels`` channels, each
subscribed to every pair at 09:00 Europe/Berlin on every weekday, so 1,000 digests fall due in
the same minute, ``1000 / channels`` per channel. The emulator enforces Slack's one post per
second per channel (a faster post gets 429 with Retry-After). One wave of the app's digest job
(``suggestbot.jobs.digest_wave.run_wave``) runs for that minute, in real time.

Figures: ``GET /v1/inspiration`` reads and ``POST /v1/assets/urls`` mint calls (sandbox
counters), Slack calls and 429s (emulator), and the wall time from the wave's start to its last
post. The per-channel limit's floor is ``(digests per channel - 1)`` seconds: the last channel's
last post cannot come sooner.

Goals: reads = 20; mints <= images / 100 rounded up; wall time within 10% of the floor.

Usage: python bench/digest_fanout.py [--channels 50] [--quick]
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from benchkit import Goal, goal_rows, goals_json, machine, quiet_logging, report

from suggestbot.jobs.digest_wave import run_wave
from suggestbot.slackapp.flows.digest_schedule import WEEKDAYS
from suggestbot.slackapp.flows.records import Digest
from suggestbot.slackemu.ids import ts_to_float
from suggestbot.stage import ALICE, Stage

# Monday 7 January 2030, 09:00 in Berlin (08:00 UTC).
NINE_AM = datetime(2030, 1, 7, 8, 0, tzinfo=UTC)
SEGMENTS = 4
USE_CASES = 5
SUBSCRIPTIONS = 1000
LIMIT_PER_S = 1.0
WALL_GOAL = 1.10
MINT_BATCH = 100


def add_pairs(stage: Stage) -> list[tuple[str, str, str, str]]:
    """20 (segment id, segment name, use case id, use case name), each with a ready-made set."""
    demo = stage.sandbox.demo
    assert demo is not None
    tenant = demo.primary.tenant_id
    segments = [
        (stage.sandbox.add_segment(tenant, f"Digest segment {n}", "Benchmark audience"), n)
        for n in range(SEGMENTS)
    ]
    use_cases = [
        (stage.sandbox.add_use_case(tenant, f"Digest use case {n}"), n) for n in range(USE_CASES)
    ]
    pairs = []
    for segment_id, s in segments:
        for use_case_id, u in use_cases:
            stage.sandbox.run_precompute(tenant, segment_id, use_case_id)
            pairs.append((segment_id, f"Digest segment {s}", use_case_id, f"Digest use case {u}"))
    return pairs


def images_in(stage: Stage, pairs: list[tuple[str, str, str, str]]) -> int:
    """Images in the newest set of every pair (what the wave has to show)."""
    state = stage.sandbox.env.state
    wanted = {(p[0], p[2]) for p in pairs}
    newest: dict[tuple[str, str], Any] = {}
    with state.lock:
        for record in state.sets.values():
            key = (record.segment_id, record.use_case_id)
            known = newest.get(key)
            if key in wanted and record.version is not None:
                newest[key] = record if known is None else max(known, record, key=_version)
        return sum(
            1
            for record in newest.values()
            for sid in record.suggestion_ids
            if isinstance(state.suggestions[sid].payload.get("asset"), dict)
        )


def _version(record: Any) -> int:
    return int(record.version or 0)


def measure(args: argparse.Namespace, data_dir: Path) -> dict[str, Any]:
    with Stage(data_dir=data_dir / "app") as stage:
        assert stage.runtime is not None
        deps = stage.runtime.deps
        pairs = add_pairs(stage)
        images = images_in(stage, pairs)
        channels = []
        for n in range(args.channels):
            channel = stage.emu.add_channel(f"digest-{n}", members=[ALICE])
            stage.emu.invite_bot(channel)
            channels.append(channel)
        created = (NINE_AM - timedelta(days=1)).timestamp()
        per_channel: Counter[str] = Counter()
        used: set[str] = set()
        # Subscription n: channel n mod C, pair (n div C) mod 20, so that every channel takes
        # the pairs in turn and (with 1,000 over 50 channels) each channel has all 20.
        for n in range(args.subscriptions):
            channel = channels[n % len(channels)]
            segment_id, segment, use_case_id, use_case = pairs[(n // len(channels)) % len(pairs)]
            digest = Digest(
                team_id=stage.emu.team_id,
                channel_id=channel,
                created_by=ALICE,
                segment_id=segment_id,
                use_case_id=use_case_id,
                segment_name=segment,
                use_case_name=use_case,
                time="09:00",
                tz="Europe/Berlin",
                weekdays=list(WEEKDAYS),
                created_at=created,
                active_since=created,
            )
            deps.records.digests.put(digest.id, digest)
            per_channel[channel] += 1
            used.add(f"{segment_id}|{use_case_id}")
        deps.catalog()  # the token exchange happens before the minute, as in a running app
        stage.emu.faults.enforce_post_rate(LIMIT_PER_S)
        stage.sandbox.counters.reset()
        calls_before = len(stage.emu.calls())

        started = time.time()
        wave = run_wave(deps, now=NINE_AM)
        finished = time.time()

        service = stage.sandbox.counters.snapshot()
        calls = stage.emu.calls()[calls_before:]
        slack = Counter(c.method for c in calls)
        refused = sum(1 for c in calls if c.status == 429)
        posts = [
            ts_to_float(str(c.response["ts"]))
            for c in calls
            if c.method == "chat.postMessage" and c.ok and c.args.get("channel") in per_channel
        ]
        rates = stage.emu.faults.max_post_rates(accepted_only=True)
    most = max(per_channel.values())
    floor = (most - 1) / LIMIT_PER_S
    last_post = (max(posts) - started) if posts else math.nan
    first_post = (min(posts) - started) if posts else math.nan
    return {
        "subscriptions": args.subscriptions,
        "pairs": len(used),
        "channels": args.channels,
        "digests_per_channel_max": most,
        "due": wave.due,
        "posted": wave.posted,
        "lines": wave.lines,
        "failed": wave.failed,
        "posts_seen": len(posts),
        "inspiration_reads": service.get("GET /v1/inspiration", 0),
        "mint_calls": service.get("POST /v1/assets/urls", 0),
        "images": images,
        "service_calls": dict(service),
        "slack_calls": dict(slack),
        "slack_429": refused,
        "max_posts_per_s_one_channel": max((rates.get(c, 0) for c in per_channel), default=0),
        "floor_s": round(floor, 2),
        "wall_to_first_post_s": round(first_post, 2),
        "wall_to_last_post_s": round(last_post, 2),
        "wave_s": round(finished - started, 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--channels", type=int, default=50)
    parser.add_argument("--subscriptions", type=int, default=SUBSCRIPTIONS)
    parser.add_argument("--quick", action="store_true", help="200 subscriptions, 10 channels")
    parser.add_argument("--data-dir", type=Path, help="where the app's store lives (temp dir)")
    args = parser.parse_args()
    if args.quick:
        args.subscriptions = min(args.subscriptions, 200)
        args.channels = min(args.channels, 10)
    quiet_logging()

    if args.data_dir:
        args.data_dir.mkdir(parents=True, exist_ok=True)
        f = measure(args, args.data_dir)
    else:
        with tempfile.TemporaryDirectory(prefix="bench-digest-") as tmp:
            f = measure(args, Path(tmp))

    mint_budget = math.ceil(f["images"] / MINT_BATCH)
    within = f["wall_to_last_post_s"] / f["floor_s"] if f["floor_s"] > 0 else math.inf
    goals = [
        Goal(
            "inspiration reads = pairs",
            f["inspiration_reads"] == f["pairs"],
            f"{f['inspiration_reads']} reads for {f['pairs']} pairs",
        ),
        Goal(
            "mints <= ceil(images / 100)",
            f["mint_calls"] <= mint_budget,
            f"{f['mint_calls']} mint calls, {f['images']} images, budget {mint_budget}",
        ),
        Goal(
            "wall time within 10% of the per-channel floor",
            within <= WALL_GOAL,
            f"{f['wall_to_last_post_s']} s vs floor {f['floor_s']} s ({within:.2f}x)",
        ),
        Goal(
            "every digest posted",
            f["posts_seen"] == f["subscriptions"] and f["failed"] == 0,
            f"{f['posts_seen']} posts for {f['subscriptions']} digests, {f['failed']} failed",
        ),
    ]
    rows: list[tuple[str, Any]] = [
        (
            "subscriptions / pairs / channels",
            f"{f['subscriptions']} / {f['pairs']} / {f['channels']}",
        ),
        ("digests per channel (max)", f["digests_per_channel_max"]),
        (
            "due / posted / lines / failed",
            f"{f['due']} / {f['posted']} / {f['lines']} / {f['failed']}",
        ),
        ("inspiration reads", f["inspiration_reads"]),
        ("mint calls / images", f"{f['mint_calls']} / {f['images']}"),
        ("all service calls", f["service_calls"]),
        ("Slack calls", f["slack_calls"]),
        ("Slack 429 answers", f["slack_429"]),
        ("most posts in 1 s, one channel", f["max_posts_per_s_one_channel"]),
        ("floor (s)", f["floor_s"]),
        ("wall time to first post (s)", f["wall_to_first_post_s"]),
        ("wall time to last post (s)", f["wall_to_last_post_s"]),
        ("whole wave (s)", f["wave_s"]),
        *goal_rows(goals),
    ]
    result = {"benchmark": "digest_fanout", **f, "goals": goals_json(goals), "machine": machine()}
    report("digest fan-out: one minute, 1,000 subscriptions", rows, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
