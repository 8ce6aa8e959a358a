"""Intake of quick briefs (briefs a second) and CPU per brief: one process on SQLite against
``--replicas`` replicas on one PostgreSQL.

The issue: 3 replicas on PostgreSQL (20 workspaces) took 966 s for 20,000 quick briefs, 21 a
second, where one process on SQLite took 60 s for 5,000 (83 a second); on one machine the
replicas cost more per brief than they add. This script measures both sides the same way and
says where the CPU goes.

A quick brief is ``/suggest brief <text>`` from a linked person whose segment and use case the
app remembers: the app records the brief, posts its root message in Slack and creates its run
at the service, then updates the root to "queued" and starts watching the run. Sides:

- ``one``: one ``suggestbot serve`` on its default store, the SQLite file in
  ``SUGGESTBOT_DATA_DIR``; the commands go straight to it;
- ``replicas``: ``--replicas`` ``suggestbot serve`` processes on one throwaway PostgreSQL 15
  cluster on loopback (``fsync`` and ``synchronous_commit`` on, as in production), behind a
  round-robin TCP proxy in its own process (``benchkit.py rr-proxy``: each new connection to
  the next replica).

Every run builds its stack afresh (sandbox, Slack emulator, store or cluster, app processes)
and takes it down after, so no run inherits another's records or watched runs; the sides take
turns from one repetition to the next (``one, replicas``, then ``replicas, one``...), so a
change in the machine's load falls on both. Each run: ``--workspaces`` workspaces with
``--users-per-workspace`` linked people each, every person in a channel of their own; one
warm-up brief per person (not measured: first calls, caches, the service token), then
``--briefs`` briefs, the people taking turns, sent Slack-signed by the load generator in its
own process with ``--concurrency`` in flight.

Figures, per run:

- intake (briefs a second): briefs whose run was created at the service, over the time from
  the first command sent to the last run created. The last run's creation time is read from
  its id (the sandbox mints UUIDv7 ids from its clock, to the millisecond); the first send is
  the load generator's own start of sending (taken as the moment it answered minus the time
  it says it sent for, so it is late by its exit, a few tens of ms at most, and never later
  than the first brief's record);
- acks: commands answered 200 a second (over the load generator's sending time), and
  commands not answered 200;
- CPU ms per brief: user + system CPU (``/proc/<pid>/stat``, including reaped children) over
  the run, from just before the first command to the moment every run was created, of each
  app process (and their sum), of PostgreSQL (the postmaster and every process under it:
  backends, WAL writer, checkpointer...), of the sandbox, of the proxy and of this process
  (the Slack emulator; also the polling below);
- the machine's 1-minute load average before and after the run.

The end is found by polling the sandbox's request counters (``POST /v1/generation-runs``,
reset before the run) every 0.25 s until every brief has asked for its run, then the store
for briefs still being recorded or sent (``new``, ``sending``, ``delayed``: an indexed query
on PostgreSQL, whose small cost is in PostgreSQL's figure; SQLite is read by this process);
the whole store is read once after the CPU has been taken.

What it holds still, on purpose: runs stay queued for an hour (the sandbox's ``run_timing``,
``queued_s`` 3600), so no run finishes during the measurement and no result is posted: intake
is recording, root post, run creation and the root's update only. The run watcher still polls
the runs on the contract's schedule (first poll 10 s after creation), as it would in
production; that work is in the CPU figures. The emulator's rationing is off, so Slack's one
post a second per channel and its method tiers (answered with 429s) do not set the pace; the
app's own gate stays on, as in production: it keeps each workspace's calls within Slack's
figures (shared out between the replicas, which on PostgreSQL also share each channel's post
slots) and drops decoration (status lines, a root's passing progress) when a workspace's
minute runs short; its warnings are counted from the app's logs (``app log warnings``).

Workspaces: the app is installed by OAuth (``SLACK_CLIENT_ID``...), each workspace with its own
installation record written into the store before the app starts, as an install would leave
it, so each has its own Slack budget and Bolt finds each request's bot token in the store, as
in production. What it cannot see: every installation holds the emulator's one bot token, so
all workspaces post into the one emulated Slack workspace; they all create runs in the one
service tenant with the app's own credentials (per-tenant credentials are not exercised); no
install, token rotation or OAuth page is timed. The emulator runs in this process and is the
same for both sides; the one process is reached without the proxy (its CPU is shown apart,
not counted as the app's). On a machine with fewer cores than processes the sides compete
with themselves: replicas, PostgreSQL, sandbox and emulator share the cores, which is the
issue's point.

Goal (median run): ``--replicas`` replicas' intake >= one process's intake.

Usage: python bench/intake.py [--briefs 2000] [--workspaces 20] [--users-per-workspace 10]
       [--concurrency 20] [--replicas 3] [--repetitions 3] [--sides one,replicas] [--quick]
       [--keep-logs DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import secrets
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from benchkit import (
    Goal,
    ServeReplica,
    bench_pg_cluster,
    child_env,
    cpu_seconds,
    goal_rows,
    goals_json,
    load_average,
    machine,
    quiet_logging,
    report,
    reset_statements,
    round_robin_proxy,
    sandbox_process,
    send_signed_timed,
    sessions_opened,
    spread,
    suggest_command,
    top_statements,
    wait_until,
)
from slack_sdk.oauth.installation_store import Installation

from suggestbot.demo.stage import app_manifest
from suggestbot.installations.store import EncryptedInstallationStore
from suggestbot.sandbox import DEMO, RunTiming
from suggestbot.sandbox.admin import ADMIN_KEY_HEADER
from suggestbot.slackapp.manifest import BOT_SCOPES
from suggestbot.slackemu import SlackEmulator
from suggestbot.slackemu.model import APP_ID
from suggestbot.store import TokenVault, generate_key
from suggestbot.store.backends import open_app_store
from suggestbot.store.postgres import PostgresStore
from suggestbot.store.records import LinkedUser, Preferences, Records, Request, user_key

SIGNING_SECRET = "bench-intake-signing-secret"
SLACK_CLIENT_ID = "1111.2222"  # installed by OAuth: each workspace its own installation
SIDES = ("one", "replicas")
CREATE_RUN = "POST /v1/generation-runs"
# Runs wait an hour in the queue: none finishes (and posts) while intake is measured.
QUEUED_LONG = RunTiming(queued_s=3600.0, running_s=5.0, precompute_s=2.0)
NOT_SENT_YET = ("new", "sending", "delayed")
RUN_CREATED = ("submitted", "posting", "done")
MEASURED = "Intake brief"
WARM_UP = "Warm-up brief"
POLL_S = 0.25
SETTLE_S = 3.0  # after start-up and after the warm-up: heartbeats in, queues quiet
BOLT_TOKEN_NOTE = "As you gave `client` as well"
STORES = {
    "one": "SQLite file (WAL, synchronous=NORMAL)",
    "replicas": "PostgreSQL 15 on loopback (fsync on, synchronous_commit on)",
}


# ---------------------------------------------------------------- people in workspaces


@dataclass(frozen=True)
class Person:
    team_id: str
    team_domain: str
    user_id: str
    channel_id: str


def add_people(emu: SlackEmulator, workspaces: int, per_workspace: int) -> list[Person]:
    """``per_workspace`` people in each of ``workspaces`` workspaces (team ids), each in a
    channel of their own with the bot, all in the one emulated Slack workspace."""
    people = []
    for w in range(workspaces):
        for u in range(per_workspace):
            user_id = emu.add_user(f"U0IN{w:03d}{u:03d}", f"intake{w:03d}-{u:03d}")
            channel_id = emu.add_channel(f"intake-{w:03d}-{u:03d}", members=[user_id])
            emu.invite_bot(channel_id)
            people.append(Person(f"TINTAKE{w:03d}", f"intake{w:03d}", user_id, channel_id))
    return people


def install_workspaces(
    records: Records, people: Sequence[Person], vault: TokenVault, emu: SlackEmulator
) -> None:
    """Each person's workspace installed, as an OAuth install would leave it: its own
    installation record, holding the emulator's one bot token."""
    installations = EncryptedInstallationStore(records.store, vault, client_id=SLACK_CLIENT_ID)
    for team_id in sorted({p.team_id for p in people}):
        installer = next(p.user_id for p in people if p.team_id == team_id)
        installations.save(
            Installation(
                app_id=APP_ID,
                team_id=team_id,
                team_name=team_id.lower(),
                bot_token=emu.bot_token,
                bot_id=emu.bot_id,
                bot_user_id=emu.bot_user_id,
                bot_scopes=list(BOT_SCOPES),
                user_id=installer,
            )
        )


def link_people(records: Records, people: Sequence[Person], vault: TokenVault) -> None:
    """Link every person to the sandbox's demo user, with its first segment and use case
    remembered (so ``/suggest brief <text>`` goes straight to a run), as the connect modal
    and a first brief would leave them."""
    for person in people:
        key = user_key(person.team_id, person.user_id)
        records.users.put(
            key,
            LinkedUser(
                team_id=person.team_id,
                user_id=person.user_id,
                token_enc=vault.encrypt(DEMO.user_token),
                linked_at=time.time(),
            ),
        )
        records.preferences.put(
            key, Preferences(segment_id=DEMO.segment_id, use_case_id=DEMO.use_case_id, variants=1)
        )


def brief_bodies(
    emu: SlackEmulator, people: Sequence[Person], label: str, count: int
) -> list[bytes]:
    """``count`` quick-brief commands as Slack sends them, the people taking turns."""
    turns = [people[n % len(people)] for n in range(count)]
    with emu.ws.lock:
        return [
            suggest_command(
                emu,
                channel_id=person.channel_id,
                user_id=person.user_id,
                text=f"brief {label} number {n} for {person.user_id}",
                team_id=person.team_id,
                team_domain=person.team_domain,
            )
            for n, person in enumerate(turns)
        ]


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name (state is [0], ppid [1])."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _own_and_reaped_cpu_s(fields: list[str]) -> float:
    """utime + stime + cutime + cstime (fields 14-17 of the line): a process's CPU and that of
    its children it has waited for (an exited PostgreSQL backend's, in the postmaster's)."""
    ticks = os.sysconf("SC_CLK_TCK")
    return sum(int(fields[i]) for i in range(11, 15)) / ticks


def tree_cpu_seconds(root_pid: int) -> float:
    """CPU seconds of ``root_pid`` and every live process under it, with the reaped ones."""
    children: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        fields = _stat_fields(int(entry.name))
        if fields is None:
            continue
        stats[int(entry.name)] = fields
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    total, todo = 0.0, [root_pid]
    while todo:
        pid = todo.pop()
        if pid in stats:
            total += _own_and_reaped_cpu_s(stats[pid])
        todo += children.get(pid, [])
    return total


def postmaster_pid(cluster: Any) -> int:
    """The cluster's server process (first line of ``postmaster.pid`` in its data folder)."""
    return int((Path(cluster.data) / "postmaster.pid").read_text().split()[0])


class CpuMeter:
    """CPU seconds of named process trees (and of this process), read before and after."""

    def __init__(self, pids: dict[str, int]) -> None:
        self.pids = pids

    def read(self) -> dict[str, float]:
        got = {name: tree_cpu_seconds(pid) for name, pid in self.pids.items()}
        got["bench process (Slack emulator)"] = cpu_seconds()
        return got


# ---------------------------------------------------------------- one side's stack


@dataclass
class Stack:
    """What one run talks to."""

    emu: SlackEmulator
    people: list[Person]
    url: str  # where Slack posts (the proxy for the replicas)
    admin: httpx.Client  # the sandbox's admin API
    records: Records  # the app's store, read by this process
    meter: CpuMeter
    db_url: str | None  # the replicas' database


def replica_env(
    *, emu: SlackEmulator, sandbox_url: str, secret_key: str, data_dir: Path, db_url: str | None
) -> dict[str, str]:
    database = {"SUGGESTBOT_DATABASE_URL": db_url} if db_url else {}
    return child_env(
        database
        | {
            "SLACK_CLIENT_ID": SLACK_CLIENT_ID,
            "SLACK_CLIENT_SECRET": "bench-intake-client-secret",
            "SLACK_STATE_SECRET": "bench-intake-state-secret",
            "SLACK_SIGNING_SECRET": SIGNING_SECRET,
            "SLACK_API_URL": emu.api_url,
            "CONTENT_API_URL": sandbox_url,
            "CONTENT_CLIENT_ID": DEMO.client_id,
            "CONTENT_CLIENT_SECRET": DEMO.client_secret,
            "SUGGESTBOT_SECRET_KEYS": secret_key,
            "SUGGESTBOT_DATA_DIR": str(data_dir),
            "LOG_LEVEL": "INFO",
        }
    )


def served_url(replica: ServeReplica) -> str:
    found = re.findall(r"http://127\.0\.0\.1:\d+/slack/events", replica.log_path.read_text())
    return str(found[-1])


@contextlib.contextmanager
def app_store(data_dir: Path, db_url: str | None) -> Iterator[Records]:
    store = open_app_store(data_dir=data_dir, database_url=db_url)
    try:
        yield Records(store)
    finally:
        store.close()


@contextlib.contextmanager
def postgres_cluster(name: str, *, statements: bool) -> Iterator[tuple[str, int]]:
    """A throwaway cluster with one database at the newest schema; yields its URL and the
    postmaster's pid. Removed on the way out, also on an error or Ctrl-C."""
    cluster = bench_pg_cluster(statements=statements)
    try:
        db_url = cluster.create_database(name)
        with PostgresStore(db_url, check_schema=False) as store:
            store.upgrade_schema()
        yield db_url, postmaster_pid(cluster)
    finally:
        cluster.remove()


@contextlib.contextmanager
def serve_replicas(
    count: int, *, name: str, work: Path, env_for: Any
) -> Iterator[list[ServeReplica]]:
    """``count`` ``suggestbot serve`` processes, started one after the other; all stopped on the
    way out (SIGTERM, then SIGKILL)."""
    replicas: list[ServeReplica] = []
    try:
        for n in range(1, count + 1):
            replica = ServeReplica(
                name=f"{name}-{n}",
                env=env_for(work / f"{name}-{n}"),
                log_path=work / f"{name}-{n}.log",
            )
            replicas.append(replica)
            replica.start()
        yield replicas
    finally:
        for replica in replicas:
            replica.stop()


@contextlib.contextmanager
def side_stack(side: str, args: argparse.Namespace, work: Path) -> Iterator[Stack]:
    """A fresh sandbox, emulator, store (or cluster) and app processes for one run of ``side``."""
    admin_key, secret_key = secrets.token_hex(12), generate_key()
    count = args.replicas if side == "replicas" else 1
    with contextlib.ExitStack() as stack:
        db_url, pg_pid = None, None
        if side == "replicas":
            db_url, pg_pid = stack.enter_context(
                postgres_cluster("bench_intake", statements=args.statements)
            )
        sandbox_pid, sandbox_url = stack.enter_context(sandbox_process(admin_key=admin_key))
        emu = stack.enter_context(SlackEmulator(manifest=app_manifest()))
        emu.rationing.off()
        admin = stack.enter_context(
            httpx.Client(base_url=sandbox_url, headers={ADMIN_KEY_HEADER: admin_key}, timeout=60)
        )
        admin.patch(
            "/sandbox/faults", json={"run_timing": QUEUED_LONG.model_dump()}
        ).raise_for_status()
        people = add_people(emu, args.workspaces, args.users_per_workspace)
        data_dir = work / "data"
        data_dir.mkdir(parents=True, exist_ok=True)
        with app_store(data_dir, db_url) as records:
            vault = TokenVault.from_setting(secret_key)
            install_workspaces(records, people, vault, emu)
            link_people(records, people, vault)

        def env_for(folder: Path) -> dict[str, str]:
            return replica_env(
                emu=emu,
                sandbox_url=sandbox_url,
                secret_key=secret_key,
                data_dir=data_dir if side == "one" else folder / "data",
                db_url=db_url,
            )

        replicas = stack.enter_context(
            serve_replicas(count, name="app", work=work, env_for=env_for)
        )
        pids = {f"app {n}": r.pid for n, r in enumerate(replicas, start=1)}
        url = served_url(replicas[0])
        if pg_pid is not None:
            pids["PostgreSQL"] = pg_pid
        pids["sandbox"] = sandbox_pid
        if side == "replicas":
            proxy_pid, url = stack.enter_context(
                round_robin_proxy(urls=[served_url(r) for r in replicas], work_dir=work / "proxy")
            )
            pids["proxy"] = proxy_pid
        records = stack.enter_context(app_store(data_dir, db_url))
        yield Stack(emu, people, url, admin, records, CpuMeter(pids), db_url)


# ---------------------------------------------------------------- one run


def runs_asked_for(admin: httpx.Client) -> int:
    return int(admin.get("/sandbox/counters").json().get(CREATE_RUN, 0))


def briefs_not_sent(records: Records) -> int:
    return len(records.requests.matching(state=NOT_SENT_YET))


def send_briefs(stack: Stack, label: str, count: int, concurrency: int) -> tuple[list[Any], float]:
    """Send ``count`` briefs (counters reset first); the acks and the sending time."""
    bodies = brief_bodies(stack.emu, stack.people, label, count)
    stack.admin.delete("/sandbox/counters").raise_for_status()
    return send_signed_timed(
        url=stack.url, signing_secret=SIGNING_SECRET, bodies=bodies, concurrency=concurrency
    )


def wait_for_runs(stack: Stack, count: int, timeout_s: float) -> bool:
    """Until ``count`` runs were asked for and no brief is left unsent (or the time is up)."""
    deadline = time.monotonic() + timeout_s
    asked = wait_until(
        lambda: runs_asked_for(stack.admin) >= count, timeout=timeout_s, interval=POLL_S
    )
    left = max(1.0, deadline - time.monotonic())
    return asked and wait_until(
        lambda: briefs_not_sent(stack.records) == 0, timeout=left, interval=POLL_S
    )


def run_created_at(run_id: str) -> float:
    """When the sandbox created the run: its id is a UUIDv7 (milliseconds in the top 48 bits)."""
    return (uuid.UUID(run_id).int >> 80) / 1000


def warm_up(stack: Stack, timeout_s: float) -> None:
    """One brief per person, every run created, then a few quiet seconds."""
    count = len(stack.people)
    sent, _ = send_briefs(stack, WARM_UP, count, concurrency=10)
    if not wait_for_runs(stack, count, timeout_s):
        acked = sum(1 for s in sent if s.status == 200)
        states = dict(Counter(r.state for r in stack.records.requests.values()))
        raise RuntimeError(f"the warm-up did not finish: {acked} acked, briefs {states}")
    time.sleep(SETTLE_S)


def measure(stack: Stack, args: argparse.Namespace) -> dict[str, Any]:
    """Send ``--briefs`` briefs and wait until each has its run; the run's figures."""
    counting = args.statements and stack.db_url is not None
    if counting:
        reset_statements(stack.db_url)
    load_before = load_average()[0]
    sessions_before = sessions_opened(stack.db_url) if stack.db_url else None
    cpu_before = stack.meter.read()
    sent, wall_s = send_briefs(stack, MEASURED, args.briefs, args.concurrency)
    first_sent = time.time() - wall_s
    complete = wait_for_runs(stack, args.briefs, args.timeout)
    cpu_after = stack.meter.read()
    load_after = load_average()[0]
    sessions = sessions_opened(stack.db_url) - sessions_before if stack.db_url else None
    service = stack.admin.get("/sandbox/counters").json()  # since the measured briefs were sent
    statements = top_statements(stack.db_url, per=args.briefs) if counting else None
    briefs = [r for r in stack.records.requests.values() if r.steering_text.startswith(MEASURED)]
    return {
        **intake_figures(briefs, first_sent, expected=args.briefs, complete=complete),
        **ack_figures(sent, wall_s),
        "cpu_ms_per_brief": cpu_ms_per_brief(cpu_before, cpu_after, args.briefs),
        # Connections to PostgreSQL opened while measured (the two reads here included): each
        # costs PostgreSQL a process start; a pool that keeps its connections opens few.
        **({"pg_connections_opened": sessions} if sessions is not None else {}),
        # The service's requests by kind, per brief: the run watcher's reads of the runs that
        # wait are part of the cost of a brief (each waits in "queued" here).
        "service_requests_per_brief": {
            kind: round(count / args.briefs, 2) for kind, count in sorted(service.items())
        },
        "load_1min_before": load_before,
        "load_1min_after": load_after,
        **({"statements_per_brief": statements} if statements is not None else {}),
    }


def intake_figures(
    briefs: list[Request], first_sent: float, *, expected: int, complete: bool
) -> dict[str, Any]:
    created = [run_created_at(r.run_id) for r in briefs if r.run_id and r.state in RUN_CREATED]
    if briefs:
        first_sent = min(first_sent, min(r.created_at for r in briefs))
    span_s = max(created) - first_sent if created else None
    return {
        "briefs": expected,
        "recorded": len(briefs),
        "runs_created": len(created),
        "states": dict(Counter(r.state for r in briefs)),
        "complete": complete and len(created) == expected,
        "intake_s": round(span_s, 2) if span_s else None,
        "intake_per_s": round(len(created) / span_s, 1) if span_s else None,
    }


def ack_figures(sent: list[Any], wall_s: float) -> dict[str, Any]:
    return {
        "ack_s": round(wall_s, 2),
        "acks_per_s": round(sum(1 for s in sent if s.status == 200) / wall_s, 1)
        if wall_s
        else None,
        "not_200": sum(1 for s in sent if s.status != 200),
        "ack_latency_s": spread([s.elapsed_s for s in sent]),
    }


def cpu_ms_per_brief(
    before: dict[str, float], after: dict[str, float], briefs: int
) -> dict[str, float]:
    """CPU ms per brief of each process tree, the app's processes also summed (first)."""
    used = {name: after[name] - before[name] for name in before}
    apps = sum(seconds for name, seconds in used.items() if name.startswith("app "))
    return {
        name: round(seconds / briefs * 1000, 2)
        for name, seconds in {"app (sum)": apps, **used}.items()
    }


def log_warnings(folder: Path) -> dict[str, int]:
    """WARNING and ERROR lines of the app's logs over the whole run (start to stop), by level
    and logger; Bolt's one line at start about the client's token left out."""
    found: Counter[str] = Counter()
    for log in sorted(folder.glob("app-*.log")):
        for line in log.read_text("utf-8", "replace").splitlines():
            parts = line.split(" ", 3)
            if len(parts) < 4 or parts[1] not in ("WARNING", "ERROR", "CRITICAL"):
                continue
            if not parts[3].startswith(BOLT_TOKEN_NOTE):
                found[f"{parts[1]} {parts[2].rstrip(':')}"] += 1
    return dict(found)


def run_side(side: str, rep: int, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    folder = work / f"{side}-{rep}"
    with side_stack(side, args, folder) as stack:
        time.sleep(SETTLE_S)  # every replica's heartbeat is in: each knows its share
        warm_up(stack, args.timeout)
        figures = measure(stack, args)
    print(f"{side}, repetition {rep}: {figures['intake_per_s']} briefs/s", file=sys.stderr)
    for row in figures.get("statements_per_brief", []):
        print(
            f"  {row['ms_per']:8.3f} ms {row['calls_per']:6.2f} calls {row['rows_per_call']:7.1f}"
            f" rows/call  {row['query']}",
            file=sys.stderr,
        )
    return {"side": side, "repetition": rep, **figures, "app_log_warnings": log_warnings(folder)}


# ---------------------------------------------------------------- summary and report


def across(values: Sequence[float | None]) -> dict[str, float | None]:
    present = [v for v in values if v is not None]
    if not present:
        return {"min": None, "median": None, "max": None}
    return {
        "min": min(present),
        "median": round(statistics.median(present), 2),
        "max": max(present),
    }


def mmm(v: dict[str, float | None], digits: int) -> str:
    if v["median"] is None:
        return "-"
    return f"{v['min']:.{digits}f} / {v['median']:.{digits}f} / {v['max']:.{digits}f}"


def summarise(runs: list[dict[str, Any]], side: str) -> dict[str, Any]:
    mine = [r for r in runs if r["side"] == side]
    cpu_names = list(mine[0]["cpu_ms_per_brief"]) if mine else []
    return {
        "intake_per_s": across([r["intake_per_s"] for r in mine]),
        "acks_per_s": across([r["acks_per_s"] for r in mine]),
        "not_200": sum(r["not_200"] for r in mine),
        "incomplete_runs": sum(1 for r in mine if not r["complete"]),
        "app_log_warnings": dict(sum((Counter(r["app_log_warnings"]) for r in mine), Counter())),
        "cpu_ms_per_brief": {
            n: across([r["cpu_ms_per_brief"][n] for r in mine]) for n in cpu_names
        },
        "run_reads_per_brief": across([run_reads(r) for r in mine]),
        "pg_connections_opened": across([r.get("pg_connections_opened") for r in mine]),
    }


def run_reads(run: dict[str, Any]) -> float:
    """The service's reads of runs per brief (listing pages and single reads together)."""
    kinds = run["service_requests_per_brief"]
    return round(
        sum(n for kind, n in kinds.items() if kind.startswith("GET /v1/generation-runs")), 2
    )


def side_rows(side: str, summary: dict[str, Any]) -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = [
        (f"{side}: intake (briefs/s)", mmm(summary["intake_per_s"], 1)),
        (f"{side}: acks (commands/s)", mmm(summary["acks_per_s"], 1)),
        (
            f"{side}: not 200, incomplete runs",
            f"{summary['not_200']}, {summary['incomplete_runs']}",
        ),
        (f"{side}: app log warnings (all runs)", json.dumps(summary["app_log_warnings"])),
    ]
    for name, v in summary["cpu_ms_per_brief"].items():
        rows.append((f"{side}: CPU ms/brief, {name}", mmm(v, 2)))
    rows.append((f"{side}: service run reads per brief", mmm(summary["run_reads_per_brief"], 2)))
    if summary["pg_connections_opened"]["median"] is not None:
        rows.append(
            (f"{side}: PostgreSQL connections opened", mmm(summary["pg_connections_opened"], 0))
        )
    return rows


def intake_goal(summaries: dict[str, dict[str, Any]], replicas: int) -> Goal:
    name = f"{replicas} replicas intake >= one process intake (median run)"
    if set(summaries) != set(SIDES):
        return Goal(name, False, "needs both sides (--sides one,replicas)")
    one = summaries["one"]["intake_per_s"]["median"]
    many = summaries["replicas"]["intake_per_s"]["median"]
    if not one or not many:
        return Goal(name, False, f"replicas {many}/s, one {one}/s")
    return Goal(name, many >= one, f"replicas {many}/s, one {one}/s, ratio {many / one:.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--briefs", type=int, default=2000, help="measured briefs per run")
    parser.add_argument("--workspaces", type=int, default=20)
    parser.add_argument("--users-per-workspace", type=int, default=10, help="a channel each")
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--sides", default=",".join(SIDES), help="one, replicas or both")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds for a run's intake")
    parser.add_argument("--quick", action="store_true", help="300 briefs, 3 people a workspace")
    parser.add_argument(
        "--statements",
        action="store_true",
        help="replicas: which PostgreSQL statements the time went to (pg_stat_statements)",
    )
    parser.add_argument("--keep-logs", type=Path, help="keep the app's logs and stores here")
    args = parser.parse_args()
    sides = [s.strip() for s in args.sides.split(",") if s.strip()]
    if not sides or any(s not in SIDES for s in sides):
        parser.error(f"--sides takes {', '.join(SIDES)}")
    if args.quick:
        args.briefs, args.users_per_workspace = 300, min(args.users_per_workspace, 3)
    quiet_logging()
    runs = []
    with tempfile.TemporaryDirectory(prefix="bench-intake-") as tmp:
        work = args.keep_logs or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for rep in range(1, args.repetitions + 1):
            for side in sides if rep % 2 else sides[::-1]:
                runs.append(run_side(side, rep, args, work))
    summaries = {side: summarise(runs, side) for side in sides}
    goal = intake_goal(summaries, args.replicas)
    rows: list[tuple[str, Any]] = [("over runs", "min / median / max")]
    for side in sides:
        rows += side_rows(side, summaries[side])
    rows += [
        (
            f"run {r['repetition']} {r['side']}: load 1-min before / after",
            f"{r['load_1min_before']} / {r['load_1min_after']}",
        )
        for r in runs
    ]
    rows += [
        ("briefs per run, concurrency", f"{args.briefs}, {args.concurrency}"),
        ("workspaces x people (a channel each)", f"{args.workspaces} x {args.users_per_workspace}"),
        ("repetitions, replicas", f"{args.repetitions}, {args.replicas}"),
        ("stores", "; ".join(f"{s}: {STORES[s]}" for s in sides)),
        ("runs", f"queued {QUEUED_LONG.queued_s:.0f} s (none finishes while measured)"),
        ("Slack rationing", "off"),
        *goal_rows([goal]),
    ]
    result = {
        "benchmark": "intake",
        "briefs": args.briefs,
        "workspaces": args.workspaces,
        "users_per_workspace": args.users_per_workspace,
        "concurrency": args.concurrency,
        "replicas": args.replicas,
        "repetitions": args.repetitions,
        "stores": {s: STORES[s] for s in sides},
        "summary": summaries,
        "runs": runs,
        "goals": goals_json([goal]),
        "machine": machine(),
    }
    report(f"intake of quick briefs: one process against {args.replicas} replicas", rows, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
