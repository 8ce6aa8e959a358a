"""20,000 runs watched by three replicas on one PostgreSQL: is each run read on time, what does
a poll cost each replica, how is the work shared, and how soon does a killed replica's work
come back?

Everything is a real process: PostgreSQL 15 (a throwaway cluster on loopback, ``fsync`` on),
the sandbox (holding ``--runs`` runs that stay queued, so every poll is a full one) and
``--replicas`` ``suggestbot serve`` processes configured as an operator would (one database URL;
each replica its own machine credential of the same tenant, so that the service can tell who
asked). The Slack emulator runs in this process; no run changes state, so it is not called.

Once the replicas serve, the app's requests are written into the database in bulk (state
``submitted``, as the brief flow leaves them) with their first polls due over the next 10 s,
each workspace's oldest run first (``--due-order listing``, as briefs arriving over time fall
due; ``random`` spreads them at random), as ``watcher_scale.py`` seeds them; from then on
the replicas claim the polls through the leases and follow the contract's schedule (10 s
apart: ``--runs`` / 10 polls a second).

Lateness is taken when the service's answer is read, from two records kept outside the app:
- *due*: every time a replica writes a run's next poll (``work_leases.due_at``), a trigger in
  the benchmark's database notes the new due time and the lease owner that served the poll
  before (one extra row insert inside the app's own transaction);
- *read*: the sandbox notes every run it returns (listing pages and single reads) with the
  time the answer left and the machine credential that asked.
A poll due at ``d`` served by replica R is read at R's last read of the run before R wrote
the next due time, and no earlier than ``d`` less the early tolerance (10 % of the interval):
R's rolling sweep also meets the run on pages before R has claimed it, and those reads serve
no poll (the last read is the one R acted on; if anything this overstates lateness).
Lateness = read - due (negative for a poll read early to join a sweep).

Takeover (``--kills``): the replica holding the most polls is SIGKILLed; the polls it held
(leases naming it at that moment) are read again by another replica; takeover = that read -
the kill, per poll, and per kill the time until the last of them was read. The victim is then
restarted.

Tenants (``--tenants N``): the runs are spread evenly over N Slack workspaces, each its own
tenant of the service with its own machine credential (kept in the database as an admin would
set it; every replica uses it), so each workspace's run listing holds only its runs. Polls
are claimed by workspace, so one replica walks a workspace's listing at a time: with one
tenant (the default) one replica serves every poll — a true limit of a per-tenant listing —
and with several the replicas split the workspaces. With several tenants the replicas share
each tenant's credential, so a read is attributed to the serving replica by time alone (its
last read of the run before it wrote the next due time), not by credential.

Goals: lateness p99 < 1 s; every poll due in the window served; every held poll taken over
within one lease period plus the interval's early tolerance after its lease ran out (reported
next to the lease period, which is the expectation).

Usage: python bench/watcher_replicas.py [--runs 20000] [--replicas 3] [--tenants 1]
       [--seconds 120] [--kills 3] [--quick] [--explain]
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import os
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psycopg
from benchkit import (
    Goal,
    ServeReplica,
    ServiceRead,
    child_cpu_seconds,
    child_env,
    create_runs,
    goal_rows,
    goals_json,
    load_average,
    load_read_log,
    machine,
    quiet_logging,
    recording_sandbox_process,
    report,
    reset_statements,
    spread,
    top_statements,
)

from suggestbot.jobs.leases import EARLY_SHARE
from suggestbot.jobs.poll_groups import walk_group
from suggestbot.sandbox import ADMIN_KEY_HEADER, DEMO
from suggestbot.slackemu import SlackEmulator
from suggestbot.store import TokenVault, generate_key
from suggestbot.store.postgres import PostgresStore
from suggestbot.store.records import Records, Request
from suggestbot.store.workspaces import ServiceCredentials

INTERVAL_S = 10.0  # the guidance's poll interval in a run's first 3 minutes
HORIZON_S = EARLY_SHARE * INTERVAL_S  # a poll may be read this early to join a sweep
LEASE_S = INTERVAL_S  # the app's lease period: one poll interval
LATENESS_GOAL_S = 1.0
MAX_SECONDS = 150.0  # the window stays inside the schedule's first 3 minutes
SEED_CHUNK = 1000
SETTLE_S = 12.0  # after a (re)start, before measuring or killing
RESTART_TIMEOUT_S = 600.0

DUE_LOG = """
CREATE TABLE bench_poll_dues (
    key text NOT NULL, due_at double precision NOT NULL, served_by text,
    noted_at double precision NOT NULL
);
CREATE FUNCTION bench_note_due() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO bench_poll_dues
    VALUES (NEW.key, NEW.due_at, OLD.owner, extract(epoch FROM clock_timestamp()));
    RETURN NULL;
END $$;
CREATE TRIGGER bench_note_due AFTER UPDATE ON work_leases FOR EACH ROW
WHEN (NEW.queue = 'run_polls' AND NEW.due_at IS DISTINCT FROM OLD.due_at)
EXECUTE FUNCTION bench_note_due();
"""


def explain_late(
    polls: list[tuple[str, float, float, int | None]],
    team_of_run: dict[str, str],
    run_of: dict[str, str],
    replica_of_pid: dict[int, str],
    w0: float,
) -> None:
    """Where the polls read more than the goal late were: by second of the window, by
    workspace and by replica (to tell a stall of everything from one workspace or replica)."""
    late = [p for p in polls if p[2] - p[1] > LATENESS_GOAL_S]
    progress(f"{len(late)} of {len(polls)} polls read more than {LATENESS_GOAL_S} s late")
    by_second = Counter(int(p[1] - w0) for p in late)
    by_team = Counter(team_of_run.get(run_of.get(p[0], ""), "?") for p in late)
    by_replica = Counter(replica_of_pid.get(p[3] or -1, "?") for p in late)
    all_team = Counter(team_of_run.get(run_of.get(p[0], ""), "?") for p in polls)
    print("late polls by second of the window (due):", sorted(by_second.items()), file=sys.stderr)
    print(
        "late polls by workspace (late/all):",
        [(t, c, all_team[t]) for t, c in by_team.most_common(12)],
        file=sys.stderr,
    )
    print("late polls by replica:", by_replica.most_common(), file=sys.stderr)


def explain_reads(read_log: Path, team_of_run: dict[str, str], w0: float, w1: float) -> None:
    """How often each listing page was read in the window, by its place in its listing (the
    first page holds the newest runs): the floor is one read a page an interval, so pages read
    more often show where requests above the floor went."""
    place: dict[str, int] = {}
    per_team: Counter[str] = Counter()
    for run_id, team in team_of_run.items():  # creation order: the listing is newest first
        place[run_id] = per_team[team]
        per_team[team] += 1
    reads: dict[str, list[float]] = {}
    sizes: Counter[int] = Counter()
    with read_log.open() as lines:
        for line in lines:
            parts = line.split()
            if len(parts) != 3 or not w0 <= float(parts[0]) <= w1:
                continue
            ids = parts[2].split(",")
            if len(ids) < 2:
                continue  # a single read
            sizes[len(ids)] += 1
            reads.setdefault(ids[0], []).append(float(parts[0]))
    by_place: dict[int, list[int]] = {}
    gaps: Counter[str] = Counter()
    for first_id, times in reads.items():
        team = team_of_run.get(first_id, "?")
        page = (per_team[team] - 1 - place.get(first_id, 0)) // 100
        by_place.setdefault(page, []).append(len(times))
        times.sort()
        for a, b in itertools.pairwise(times):
            gap = b - a
            gaps["<1" if gap < 1 else "1-5" if gap < 5 else "5-9" if gap < 9 else ">=9"] += 1
    print("listing page sizes read:", sorted(sizes.items())[-6:], file=sys.stderr)
    print(
        "reads a page by place in listing (pages, min/median/max reads):",
        [(k, len(v), min(v), statistics.median(v), max(v)) for k, v in sorted(by_place.items())],
        file=sys.stderr,
    )
    print("gaps between reads of one page (s):", sorted(gaps.items()), file=sys.stderr)


def progress(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


@dataclass
class Kill:
    replica: str
    at: float
    held: dict[str, float]  # request id -> the due time of the poll it held


def pid_of(owner: str | None) -> int | None:
    """The process id inside a lease owner (``host:pid:instance``)."""
    if not owner:
        return None
    parts = owner.split(":")
    return int(parts[-2]) if len(parts) >= 3 and parts[-2].isdigit() else None


def seed(
    url: str, *, team_of_run: dict[str, str], own_tenants: bool, due_order: str = "listing"
) -> tuple[dict[str, str], dict[str, float]]:
    """Requests in state ``submitted`` (each in its run's workspace) and their first polls, due
    over the next interval and filed as the app files them: under their listing's walk groups
    (the workspace's with ``own_tenants``, else the app's own client's one listing), written in
    bulk. Returns request id -> run id and request id -> first due time."""
    import random

    run_of: dict[str, str] = {}
    team_of: dict[str, str] = {}
    run_ids = list(team_of_run)
    with PostgresStore(url) as store:
        records = Records(store)
        for start in range(0, len(run_ids), SEED_CHUNK):
            chunk: dict[str, Request] = {}
            for run_id in run_ids[start : start + SEED_CHUNK]:
                req = Request(
                    team_id=team_of_run[run_id],
                    user_id="U0WATCHER",
                    channel_id="C0WATCHER",
                    body={"type": "steered_generation", "steering_text": "x"},
                    state="submitted",
                    run_id=run_id,
                    run_status="queued",
                    attempt=0,
                    sent_at=time.time(),
                )
                chunk[req.id] = req
                run_of[req.id] = run_id
                team_of[req.id] = req.team_id
            records.requests.put_many(chunk)
    now = time.time()
    if due_order == "random":
        first = {key: now + random.uniform(0, INTERVAL_S) for key in run_of}
    else:
        # Each workspace's runs fall due oldest first (as briefs arriving over time do): the
        # contract lists newest first, so the most due sit on a walk's last pages. UUIDv7
        # ids sort in creation order.
        first = {}
        for team in set(team_of.values()):
            keys = sorted((k for k in run_of if team_of[k] == team), key=run_of.__getitem__)
            for rank, key in enumerate(keys):
                first[key] = now + INTERVAL_S * rank / len(keys)
    copy_in = "COPY work_leases (queue, key, due_at, ready_at, grp) FROM STDIN"
    with (
        psycopg.connect(url) as connection,
        connection.cursor() as cursor,
        cursor.copy(copy_in) as copy,
    ):
        for key, due in first.items():
            # Filed as the brief flow files a new run's poll: under its listing's walk groups.
            listing = team_of[key] if own_tenants else None
            copy.write_row(("run_polls", key, due, due, walk_group(listing, key)))
    return run_of, first


def served_polls(
    *,
    dues: dict[str, list[tuple[float, str | None, float]]],
    first: dict[str, float],
    run_of: dict[str, str],
    reads: dict[str, list[ServiceRead]],
    client_of_pid: dict[int, str],
    by_caller: bool = True,
) -> list[tuple[str, float, float, int | None]]:
    """Every poll that was served: (request id, due, read, serving pid). ``dues`` holds, per
    request, each next due time written, the owner that served the poll before, and when.
    Without ``by_caller`` (replicas sharing a tenant's credential) any read counts."""
    out: list[tuple[str, float, float, int | None]] = []
    for key, written in dues.items():
        written.sort(key=lambda w: w[2])
        due = first.get(key)
        runs = reads.get(run_of.get(key, ""), [])
        times = [r.at for r in runs]
        served_at: float | None = None  # when the poll before was served (its write)
        for next_due, owner, noted in written:
            if due is not None:
                pid = pid_of(owner)
                client = client_of_pid.get(pid) if pid is not None else None
                # The serving read is the replica's last read of the run before it wrote the
                # next due time: a rolling sweep also meets the run on pages before it has
                # claimed it, and those reads serve no poll. A page read serves the polls
                # filed under it that fall due within the next interval, so a poll may be
                # served early: any read after the poll before was served counts.
                start = bisect.bisect_right(
                    times, due - HORIZON_S if served_at is None else served_at
                )
                end = bisect.bisect_right(times, noted)
                for read in reversed(runs[start:end]):
                    if read.caller == client or not by_caller:
                        out.append((key, due, read.at, pid))
                        break
            due, served_at = next_due, noted
    return out


def run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    from benchkit import bench_pg_cluster

    cluster = bench_pg_cluster(statements=args.statements)
    admin_key = secrets.token_hex(12)
    read_log = work / "reads.log"
    replicas: list[ServeReplica] = []
    try:
        db_url = cluster.create_database("bench_watch")
        with PostgresStore(db_url, check_schema=False) as store:
            store.upgrade_schema()
        with psycopg.connect(db_url, autocommit=True) as connection:
            connection.execute(DUE_LOG.encode())
        with (
            recording_sandbox_process(admin_key=admin_key, read_log=read_log) as (sbx_pid, url),
            SlackEmulator() as emu,
        ):
            admin = httpx.Client(base_url=url, headers={ADMIN_KEY_HEADER: admin_key}, timeout=60)
            queued = {"run_timing": {"queued_s": 1e6}}  # every poll sees an unfinished run
            admin.patch("/sandbox/faults", json=queued).raise_for_status()
            secret_keys = generate_key()
            started = time.monotonic()
            team_of_run: dict[str, str] = {}
            if args.tenants == 1:
                team_of_run = dict.fromkeys(create_runs(url, args.runs), emu.team_id)
            else:
                with PostgresStore(db_url) as store:
                    credentials = Records(store).service_credentials
                    vault = TokenVault.from_setting(secret_keys)
                    for number in range(args.tenants):
                        team, tenant = _tenant(admin, url, number, vault, credentials)
                        count = args.runs // args.tenants + (
                            1 if number < args.runs % args.tenants else 0
                        )
                        for run_id in create_runs(url, count, **tenant):
                            team_of_run[run_id] = team
            created_s = time.monotonic() - started
            progress(
                f"created {len(team_of_run)} runs in {args.tenants} tenant(s) in {created_s:.1f} s"
            )

            client_of: dict[str, str] = {}
            for number in range(1, args.replicas + 1):
                got = admin.post(f"/sandbox/tenants/{DEMO.tenant_id}/credentials", json={})
                got.raise_for_status()
                credential = got.json()
                name = f"replica-{number}"
                client_of[name] = credential["client_id"]
                # Several tenants: installed by OAuth (per-workspace service credentials are a
                # multi-workspace install's); no workspace is installed, as nothing posts.
                slack = (
                    {"SLACK_BOT_TOKEN": emu.bot_token}
                    if args.tenants == 1
                    else {
                        "SLACK_CLIENT_ID": "1111.2222",
                        "SLACK_CLIENT_SECRET": "bench-client-secret",
                        "SLACK_STATE_SECRET": "bench-state-secret",
                    }
                )
                env = child_env(
                    {
                        **slack,
                        "SLACK_SIGNING_SECRET": "bench-signing-secret",
                        "SLACK_API_URL": emu.api_url,
                        "CONTENT_API_URL": url,
                        "CONTENT_CLIENT_ID": credential["client_id"],
                        "CONTENT_CLIENT_SECRET": credential["client_secret"],
                        "SUGGESTBOT_SECRET_KEYS": secret_keys,
                        "SUGGESTBOT_DATABASE_URL": db_url,
                        "SUGGESTBOT_DATA_DIR": str(work / name / "data"),
                        "LOG_LEVEL": "INFO",
                    }
                )
                replicas.append(ServeReplica(name=name, env=env, log_path=work / f"{name}.log"))
            client_of_pid: dict[int, str] = {}
            replica_of_pid: dict[int, str] = {}
            for replica in replicas:
                replica.start()
                client_of_pid[replica.pid] = client_of[replica.name]
                replica_of_pid[replica.pid] = replica.name
            progress(f"{len(replicas)} replicas serve")

            started = time.monotonic()
            run_of, first = seed(
                db_url,
                team_of_run=team_of_run,
                own_tenants=args.tenants > 1,
                due_order=args.due_order,
            )
            seeded_s = time.monotonic() - started
            progress(f"seeded {len(run_of)} requests and their polls in {seeded_s:.1f} s")

            time.sleep(INTERVAL_S + 2)  # every run has had its first poll
            load_before = load_average()
            admin.delete("/sandbox/counters").raise_for_status()
            if args.statements:
                reset_statements(db_url)
            cpu0 = {r.name: child_cpu_seconds(r.pid) or 0.0 for r in replicas}
            pg_cpu0 = _postgres_cpu(cluster.data)
            sbx_cpu0 = child_cpu_seconds(sbx_pid) or 0.0
            w0 = time.time()
            time.sleep(args.seconds)
            w1 = time.time()
            cpu1 = {r.name: child_cpu_seconds(r.pid) or 0.0 for r in replicas}
            pg_cpu1 = _postgres_cpu(cluster.data)
            sbx_cpu1 = child_cpu_seconds(sbx_pid) or 0.0
            served = admin.get("/sandbox/counters").json()
            if args.statements:
                for row in top_statements(db_url, per=1000, limit=12):
                    print("statement (per 1,000 of them: calls, ms)", row, file=sys.stderr)
            load_after = load_average()
            progress("window over")

            kills: list[Kill] = []
            restarts_s: list[float] = []
            for number in range(args.kills):
                victim = _busiest(db_url, replicas, fallback=replicas[number % len(replicas)])
                pid = victim.pid
                at = time.time()
                victim.kill()
                with psycopg.connect(db_url) as connection:
                    rows = connection.execute(
                        "SELECT key, due_at FROM work_leases WHERE queue = 'run_polls' "
                        "AND owner LIKE %s",
                        (f"%:{pid}:%",),
                    ).fetchall()
                kills.append(Kill(victim.name, at, {k: d for k, d in rows if k in run_of}))
                progress(f"killed {victim.name}: it held {len(rows)} polls")
                time.sleep(LEASE_S * 2 + 5)
                if number == args.kills - 1:
                    break
                # Its start-up recovery resumes every unfinished request first: with 20,000
                # that takes a while, and is a figure of its own.
                restart_at = time.monotonic()
                try:
                    victim.start(timeout_s=RESTART_TIMEOUT_S)
                except RuntimeError as exc:
                    progress(f"{victim.name} did not restart; no more kills: {exc}")
                    break
                restarts_s.append(round(time.monotonic() - restart_at, 1))
                client_of_pid[victim.pid] = client_of[victim.name]
                replica_of_pid[victim.pid] = victim.name
                progress(f"restarted {victim.name} in {restarts_s[-1]} s")
                time.sleep(SETTLE_S)
        for replica in replicas:
            replica.stop()
        replicas = []
        with psycopg.connect(db_url) as connection:
            rows = connection.execute(
                "SELECT key, due_at, served_by, noted_at FROM bench_poll_dues"
            ).fetchall()
    finally:
        for replica in replicas:
            replica.stop()
        cluster.remove()

    dues: dict[str, list[tuple[float, str | None, float]]] = {}
    for key, due_at, served_by, noted_at in rows:
        dues.setdefault(key, []).append((due_at, served_by, noted_at))
    reads = load_read_log(read_log)
    polls = served_polls(
        dues=dues,
        first=first,
        run_of=run_of,
        reads=reads,
        client_of_pid=client_of_pid,
        by_caller=args.tenants == 1,
    )
    in_window = [p for p in polls if w0 <= p[2] <= w1]
    lateness = [read - due for _, due, read, _ in in_window]
    by_replica = Counter(replica_of_pid.get(pid or -1, "?") for *_, pid in in_window)
    # Every poll due in the window (but its last seconds) should have been served by its end.
    due_in_window = _dues_between(dues, first, w0, w1 - 2 * HORIZON_S - 3)
    served_keys = {(key, round(due, 6)) for key, due, read, _ in polls if read <= w1 + 5}
    unserved = sum(1 for item in due_in_window if item not in served_keys)

    if args.explain:
        explain_late(in_window, team_of_run, run_of, replica_of_pid, w0)
        explain_reads(read_log, team_of_run, w0, w1)
    n = len(in_window)
    requests = served.get("GET /v1/generation-runs", 0) + served.get(
        "GET /v1/generation-runs/{run_id}", 0
    )
    per_replica = {}
    for replica_name in sorted(client_of):
        count = by_replica.get(replica_name, 0)
        cpu = cpu1[replica_name] - cpu0[replica_name]
        per_replica[replica_name] = {
            "polls": count,
            "share": round(count / n, 3) if n else None,
            "cpu_s": round(cpu, 2),
            "cpu_s_per_1000_polls": round(cpu / count * 1000, 3) if count else None,
        }

    served_at = {(key, round(due, 6)): (read, pid) for key, due, read, pid in polls}
    takeovers = []
    for kill in kills:
        victim_pids = {p for p, name in replica_of_pid.items() if name == kill.replica}
        waits: list[float] = []
        late: list[float] = []
        missing = 0
        for key, due in kill.held.items():
            found = served_at.get((key, round(due, 6)))
            if found is None or found[1] in victim_pids or found[0] < kill.at:
                missing += 1
                continue
            waits.append(found[0] - kill.at)
            late.append(found[0] - due)
        takeovers.append(
            {
                "replica": kill.replica,
                "held": len(kill.held),
                "not_taken_over": missing,
                "kill_to_served_s": spread(waits),
                "lateness_of_held_s": spread(late),
                "all_served_s": round(max(waits), 3) if waits else None,
            }
        )
    all_served = [t["all_served_s"] for t in takeovers if t["all_served_s"] is not None]
    return {
        "runs": args.runs,
        "due_order": args.due_order,
        "replicas": args.replicas,
        "tenants": args.tenants,
        "measured_s": round(w1 - w0, 1),
        "polls": n,
        "polls_per_s": round(n / (w1 - w0), 1),
        "lateness_s": spread(lateness),
        # The polls that fell due inside the window, without those due before it (the first
        # round after seeding, when every run is still to be found by a walk) read in it.
        "lateness_due_in_window_s": spread(
            [read - due for _, due, read, _ in in_window if due >= w0]
        ),
        "polls_due_not_served": unserved,
        "polls_due_in_window": len(due_in_window),
        "listing_pages": served.get("GET /v1/generation-runs", 0),
        "single_run_reads": served.get("GET /v1/generation-runs/{run_id}", 0),
        "requests_per_1000_polls": round(requests / n * 1000, 1) if n else None,
        "per_replica": per_replica,
        "sandbox_cpu_s": round(sbx_cpu1 - sbx_cpu0, 2),
        "postgres_cpu_s": round(pg_cpu1 - pg_cpu0, 2) if pg_cpu0 is not None else None,
        "lease_s": LEASE_S,
        "takeovers": takeovers,
        "takeover_all_served_s": {
            "min": min(all_served),
            "median": round(statistics.median(all_served), 3),
            "max": max(all_served),
        }
        if all_served
        else None,
        "restart_s": restarts_s,
        "load_before": load_before,
        "load_after": load_after,
        "setup_create_runs_s": round(created_s, 1),
        "setup_seed_s": round(seeded_s, 1),
        "postgres": "15, fsync on, synchronous_commit on",
    }


def _busiest(db_url: str, replicas: list[ServeReplica], *, fallback: ServeReplica) -> ServeReplica:
    """The replica holding the most polls now (polls are claimed by workspace, so with few
    workspaces a replica may hold none, and killing it would show no takeover)."""
    with psycopg.connect(db_url) as connection:
        owners = connection.execute(
            "SELECT owner, count(*) FROM work_leases WHERE queue = 'run_polls' "
            "AND owner IS NOT NULL GROUP BY owner"
        ).fetchall()
    held = Counter({pid_of(owner): count for owner, count in owners})
    return max(replicas, key=lambda r: (held.get(r.pid, 0), r is fallback))


def _tenant(
    admin: httpx.Client, url: str, number: int, vault: TokenVault, credentials: Any
) -> tuple[str, dict[str, str]]:
    """A tenant of the service with a segment, a use case and a user (who creates its runs),
    and a Slack workspace that uses it: its machine credential kept in the database as an
    admin of the workspace would set it. Returns the team id and how to create its runs."""
    name = f"bench-{number + 1:03}"
    tenant_id = admin.post("/sandbox/tenants", json={"name": name, "locale": "en"}).json()["id"]
    base = f"/sandbox/tenants/{tenant_id}"
    segment_id = admin.post(f"{base}/segments", json={"name": "Shoppers"}).json()["id"]
    use_case_id = admin.post(f"{base}/use-cases", json={"name": "Newsletter"}).json()["id"]
    user_token = admin.post(f"{base}/user-tokens", json={}).json()["token"]
    machine = admin.post(f"{base}/credentials", json={}).json()
    team = f"T0BENCH{number + 1:03}"
    credentials.put(
        team,
        ServiceCredentials(
            team_id=team,
            base_url=url,
            client_id=machine["client_id"],
            client_secret_enc=vault.encrypt(machine["client_secret"]),
            set_by="U0BENCH",
        ),
    )
    runs = {"user_token": user_token, "segment_id": segment_id, "use_case_id": use_case_id}
    return team, runs


def _dues_between(
    dues: dict[str, list[tuple[float, str | None, float]]],
    first: dict[str, float],
    start: float,
    end: float,
) -> list[tuple[str, float]]:
    out = []
    for key, first_due in first.items():
        for due in [first_due, *(d for d, _, _ in dues.get(key, []))]:
            if start <= due <= end:
                out.append((key, round(due, 6)))
    return out


def _postgres_cpu(data_dir: Path) -> float | None:
    """CPU seconds of this cluster's server so far (from ``/proc``): the postmaster with the
    children it has reaped, plus its live children (the backends of the app's pools)."""
    try:
        postmaster = int((data_dir / "postmaster.pid").read_text().split()[0])
        fields = Path(f"/proc/{postmaster}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, ValueError, IndexError):
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    total = sum(int(x) for x in fields[11:15]) / ticks
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if stat[1] == str(postmaster):
            total += (int(stat[11]) + int(stat[12])) / ticks
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20000)
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument(
        "--tenants", type=int, default=1, help="workspaces (service tenants) the runs spread over"
    )
    parser.add_argument("--seconds", type=float, default=120.0, help="measured window")
    parser.add_argument("--kills", type=int, default=3, help="takeover repetitions")
    parser.add_argument("--quick", action="store_true", help="600 runs, 20 s, one kill")
    parser.add_argument(
        "--due-order",
        choices=("listing", "random"),
        default="listing",
        help="each workspace's first polls due oldest run first (default), or at random",
    )
    parser.add_argument(
        "--explain", action="store_true", help="where the late polls were (time, workspace)"
    )
    parser.add_argument("--keep-logs", help="copy the replicas' and the reads' logs here")
    parser.add_argument(
        "--statements",
        action="store_true",
        help="load pg_stat_statements and print the statements that took the window's time",
    )
    args = parser.parse_args()
    if args.quick:
        args.runs, args.seconds, args.kills = min(args.runs, 600), 20.0, 1
    args.seconds = min(args.seconds, MAX_SECONDS)
    quiet_logging()
    with tempfile.TemporaryDirectory(prefix="bench-replicas-") as tmp:
        try:
            f = run(args, Path(tmp))
        finally:
            if args.keep_logs:
                kept = Path(args.keep_logs)
                kept.mkdir(parents=True, exist_ok=True)
                for log in Path(tmp).glob("*.log"):
                    shutil.copy(log, kept / log.name)

    late = f["lateness_s"]
    takeover = f["takeover_all_served_s"]
    goals = [
        Goal(
            "lateness p99 < 1 s (read - due)",
            late.get("n", 0) > 0 and late["p99"] < LATENESS_GOAL_S,
            f"p99 {late.get('p99')} s",
        ),
        Goal(
            "every poll due in the window served",
            f["polls_due_not_served"] == 0,
            f"{f['polls_due_not_served']} of {f['polls_due_in_window']} not served",
        ),
        Goal(
            "a killed replica's polls all served again within 2 lease periods",
            takeover is not None
            and takeover["max"] <= 2 * LEASE_S
            and all(t["not_taken_over"] == 0 for t in f["takeovers"]),
            f"max {takeover['max'] if takeover else None} s (lease {LEASE_S:g} s)",
        ),
    ]
    rows: list[tuple[str, Any]] = [
        ("runs watched / replicas / tenants", f"{f['runs']} / {f['replicas']} / {f['tenants']}"),
        ("PostgreSQL", f["postgres"]),
        ("measured window (s)", f["measured_s"]),
        ("polls served in the window", f["polls"]),
        ("polls per second", f["polls_per_s"]),
        ("lateness p50 / p90 / p99 / max (s)", _quad(late)),
        ("  of polls due in the window (not before it)", _quad(f["lateness_due_in_window_s"])),
        ("service requests per 1,000 polls", f["requests_per_1000_polls"]),
        ("  listing pages / single reads", f"{f['listing_pages']} / {f['single_run_reads']}"),
    ]
    for name, share in f["per_replica"].items():
        rows.append(
            (
                f"{name}: share / polls / CPU s per 1,000 polls",
                f"{share['share']} / {share['polls']} / {share['cpu_s_per_1000_polls']}",
            )
        )
    rows += [
        ("sandbox / PostgreSQL CPU s (window)", f"{f['sandbox_cpu_s']} / {f['postgres_cpu_s']}"),
        ("lease period (s)", f["lease_s"]),
    ]
    for t in f["takeovers"]:
        rows.append(
            (
                f"takeover of {t['replica']}: held / kill->all served (s)",
                f"{t['held']} / {t['all_served_s']} (p50 {t['kill_to_served_s'].get('p50')})",
            )
        )
    if takeover:
        rows.append(
            (
                "takeover kill->all served min / median / max (s)",
                f"{takeover['min']} / {takeover['median']} / {takeover['max']}",
            )
        )
    rows += [
        ("victim restart until it serves (s; recovery of every request)", f["restart_s"]),
        ("load average before -> after (1 min)", f"{f['load_before'][0]} -> {f['load_after'][0]}"),
        ("setup: create runs / seed (s)", f"{f['setup_create_runs_s']} / {f['setup_seed_s']}"),
        *goal_rows(goals),
    ]
    result = {
        "benchmark": "watcher_replicas",
        **f,
        "goals": goals_json(goals),
        "machine": machine(),
    }
    report(f"{f['runs']} runs watched by {f['replicas']} replicas on PostgreSQL", rows, result)
    shares = " ".join(f"{s['share']}" for s in f["per_replica"].values())
    cpus = " ".join(f"{s['cpu_s_per_1000_polls']}" for s in f["per_replica"].values())
    print(
        f"SUMMARY watcher_replicas runs={f['runs']} tenants={f['tenants']} p99={late.get('p99')}s "
        f"req/1000polls={f['requests_per_1000_polls']} cpu/1000polls={cpus} shares={shares} "
        f"takeover={_triple(takeover)}s lease={LEASE_S:g}s "
        f"load={f['load_before'][0]}->{f['load_after'][0]}"
    )
    return 0


def _quad(s: dict[str, Any]) -> str:
    return f"{s.get('p50')} / {s.get('p90')} / {s.get('p99')} / {s.get('max')}"


def _triple(t: dict[str, Any] | None) -> str:
    return f"{t['min']}/{t['median']}/{t['max']}" if t else "n/a"


if __name__ == "__main__":
    sys.exit(main())
