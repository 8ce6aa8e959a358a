"""A soak: replicas on one PostgreSQL under steady mixed traffic for a while, sampled every
interval, and what grew.

:class:`Soak` drives a :class:`~cluster_harness.ClusterStage` (replicas behind the balancer, on
the sandbox and the Slack emulator) with what people do all day, one thing every
``every_s``: quick briefs, replies in the threads of ready briefs (refinements), 👍 on
variants, App Home opens and briefs written in the Messages tab; digests fall due every few
minutes in channels of their own; one replica is restarted (SIGTERM, as a deploy does) every
``restart_every_s``, in turn. Every ``sample_every_s`` it records, per replica process, its
resident memory, threads and open file descriptors, the rows of every table (and of each
store table inside ``kv_records``, each queue of ``work_leases``) and the database's
connections. :func:`growth` fits a line through each process's samples after its warm-up.

Used by ``bench/soak.py`` (30 minutes, figures for bench/README.md) and by
``test_reliability_soak.py`` (two minutes in CI, failing on growth of what should not grow).
"""

from __future__ import annotations

import itertools
import math
import random
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
from cluster_harness import ClusterStage, Replica
from reliability_harness import is_ready, metadata_of, roots_by_tag, send_brief_by_modal

from suggestbot.demo.stage import ALICE, BRUNO, wait_for
from suggestbot.store.postgres import PostgresStore
from suggestbot.store.records import WEEKDAYS, Digest, Records

USERS = (ALICE, BRUNO)
TAG = re.compile(r"SK-\d{5}")
# What is done every ``every_s``, drawn with these weights.
MIX = (("brief", 3), ("reply", 2), ("thumbs_up", 2), ("home", 2), ("composer", 1))
# Lines of a replica's log that count as errors.
ERROR_LINE = re.compile(r" (ERROR|CRITICAL) |^Traceback ")


@dataclass(frozen=True)
class ProcessSample:
    replica: str
    pid: int
    rss_mb: float
    threads: int
    fds: int


@dataclass(frozen=True)
class Sample:
    at_s: float  # since the soak began
    processes: list[ProcessSample]
    rows: dict[str, int]  # table (or table/part) -> rows
    connections: int  # the database's, the sampler's own left out


@dataclass
class SoakResult:
    samples: list[Sample]
    restarts: list[tuple[float, str]]
    actions: dict[str, int]
    action_errors: list[str]
    log_errors: list[str]
    seconds: float
    starts_at: dict[int, float] = field(default_factory=dict)  # pid -> when it started (s)


@dataclass(frozen=True)
class Fit:
    """A straight line through one process's samples after its warm-up: ``slope`` per
    minute, ``stderr`` its standard error, over ``minutes`` and ``points`` samples."""

    slope: float
    stderr: float
    minutes: float
    points: int
    first: float
    last: float

    @property
    def flat(self) -> bool:
        """Within noise: the slope is within two standard errors of zero."""
        return abs(self.slope) <= 2 * self.stderr


def fit(points: list[tuple[float, float]]) -> Fit | None:
    """Least squares through ``(minutes, value)``; None with fewer than three points."""
    if len(points) < 3:
        return None
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    n = len(points)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return None
    slope = sum((x - mx) * (y - my) for x, y in points) / sxx
    residuals = [y - (my + slope * (x - mx)) for x, y in points]
    variance = sum(r * r for r in residuals) / max(n - 2, 1)
    return Fit(slope, math.sqrt(variance / sxx), xs[-1] - xs[0], n, ys[0], ys[-1])


def growth(result: SoakResult, *, warmup_s: float) -> dict[tuple[str, int], dict[str, Fit]]:
    """Per replica process: the fits of its RSS (MB), threads and descriptors, over its
    samples taken ``warmup_s`` or more after it started."""
    series: dict[tuple[str, int], list[tuple[Sample, ProcessSample]]] = {}
    for sample in result.samples:
        for proc in sample.processes:
            series.setdefault((proc.replica, proc.pid), []).append((sample, proc))
    fits: dict[tuple[str, int], dict[str, Fit]] = {}
    for key, seen in series.items():
        started = result.starts_at.get(key[1], 0.0)
        warm = [(s, p) for s, p in seen if s.at_s - started >= warmup_s]
        found = {}
        for name, value in (
            ("rss_mb", lambda p: p.rss_mb),
            ("threads", lambda p: float(p.threads)),
            ("fds", lambda p: float(p.fds)),
        ):
            line = fit([(s.at_s / 60, value(p)) for s, p in warm])
            if line is not None:
                found[name] = line
        if found:
            fits[key] = found
    return fits


def process_sample(replica: Replica) -> ProcessSample | None:
    process = replica.process
    if process is None or process.poll() is not None:
        return None
    pid = process.pid
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        fds = len(list(Path(f"/proc/{pid}/fd").iterdir()))
    except OSError:
        return None
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    rss_kb = int(fields["VmRSS"].split()[0])
    return ProcessSample(replica.name, pid, rss_kb / 1024, int(fields["Threads"]), fds)


def database_sample(url: str) -> tuple[dict[str, int], int]:
    """Rows of every table (and of each store table in ``kv_records``, each queue of
    ``work_leases``), and the database's connections but this one."""
    rows: dict[str, int] = {}
    with psycopg.connect(url, autocommit=True) as connection:
        tables = [
            name
            for (name,) in connection.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1"
            )
        ]
        for table in tables:
            (count,) = connection.execute(f'SELECT count(*) FROM "{table}"').fetchone() or (0,)
            rows[table] = int(count)
        for tbl, count in connection.execute("SELECT tbl, count(*) FROM kv_records GROUP BY 1"):
            rows[f"kv_records/{tbl}"] = int(count)
        for queue, count in connection.execute(
            "SELECT queue, count(*) FROM work_leases GROUP BY 1"
        ):
            rows[f"work_leases/{queue}"] = int(count)
        (connections,) = connection.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchone() or (0,)
    return rows, int(connections)


class Soak:
    """Drive ``stage`` for ``seconds``; see the module. ``say`` prints a line of the report."""

    def __init__(
        self,
        stage: ClusterStage,
        *,
        seconds: float,
        every_s: float = 1.5,
        sample_every_s: float = 60.0,
        restart_every_s: float = 600.0,
        digest_every_min: int = 3,
        digest_channels: int = 3,
        seed: int = 29,
        say: Callable[[str], None] = print,
    ) -> None:
        self.stage = stage
        self.seconds = seconds
        self.every_s = every_s
        self.sample_every_s = sample_every_s
        self.restart_every_s = restart_every_s
        self.digest_every_min = digest_every_min
        self.digest_channels = digest_channels
        self.rng = random.Random(seed)
        self.say = say
        self._numbers = itertools.count(1)
        self._stop = threading.Event()
        self._began = 0.0
        self._restarting: str | None = None  # a replica being restarted: not sampled
        self.result = SoakResult([], [], dict.fromkeys((name for name, _ in MIX), 0), [], [], 0)

    # -- the run -------------------------------------------------------------------------

    def run(self) -> SoakResult:
        stage = self.stage
        assert stage.database_url is not None
        for user in USERS:
            stage.connect(user)
            send_brief_by_modal(stage, user, f"SK-SETUP-{user} first brief", variants=1)
        wait_ready_brief(stage)
        self._subscribe_digests()
        self._began = time.monotonic()
        for replica in stage.replicas:
            if replica.process is not None:
                self.result.starts_at[replica.process.pid] = 0.0
        sampler = threading.Thread(target=self._sample_loop, name="soak-sampler")
        restarter = threading.Thread(target=self._restart_loop, name="soak-restarts")
        sampler.start()
        restarter.start()
        try:
            self._traffic()
        finally:
            self._stop.set()
            restarter.join(timeout=180)
            sampler.join(timeout=120)
        self.result.seconds = time.monotonic() - self._began
        self._settle()
        last = self._sample()  # once the traffic ended and the work in flight did
        self.result.samples.append(last)
        self.say(describe(last) + "  (settled)")
        self.result.log_errors = [
            f"{replica.name}: {line}"
            for replica in stage.replicas
            for line in replica.log_text().splitlines()
            if ERROR_LINE.search(line)
        ]
        return self.result

    def _settle(self, timeout_s: float = 90.0) -> None:
        """Wait (a while) for the work in flight to end: no poll, send or recorded
        interaction left in ``work_leases``."""
        assert self.stage.database_url is not None
        url = self.stage.database_url
        busy = ("work_leases/run_polls", "work_leases/run_sends", "work_leases/interactions")
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            rows, _ = database_sample(url)
            if not any(rows.get(name) for name in busy):
                return
            time.sleep(1.0)

    def _elapsed(self) -> float:
        return time.monotonic() - self._began

    def _traffic(self) -> None:
        names = [name for name, _ in MIX]
        weights = [weight for _, weight in MIX]
        while self._elapsed() < self.seconds:
            name = self.rng.choices(names, weights)[0]
            user = self.rng.choice(USERS)
            try:
                done = getattr(self, f"_do_{name}")(user)
            except Exception as exc:  # reported: the soak goes on
                self.result.action_errors.append(f"{name}: {exc!r}"[:300])
            else:
                if done:
                    self.result.actions[name] += 1
            time.sleep(self.every_s)

    # -- what people do ------------------------------------------------------------------

    def _do_brief(self, user: str) -> bool:
        tag = f"SK-{next(self._numbers):05d}"
        answer = self.stage.slack.slash_command(user, self.stage.channel, f"brief {tag} soak")
        return bool(answer.status == 200)

    def _ready_roots(self, user: str) -> list[dict[str, Any]]:
        roots = roots_by_tag(self.stage, TAG)
        return [
            found[0]
            for found in roots.values()
            if found and is_ready(found[0], user=user, variants=1)
        ]

    def _do_reply(self, user: str) -> bool:
        ready = self._ready_roots(user)
        if not ready:
            return False
        root = self.rng.choice(ready[-20:])
        self.stage.slack.post_user_message(
            user, self.stage.channel, "SK make it shorter", thread_ts=root["ts"]
        )
        return True

    def _do_thumbs_up(self, user: str) -> bool:
        ready = self._ready_roots(user)
        if not ready:
            return False
        root = self.rng.choice(ready[-20:])
        thread = self.stage.emu.messages(self.stage.channel, thread_ts=root["ts"])[1:]
        variants = [m for m in thread if metadata_of(m).get("role") == "variant"]
        if not variants:
            return False
        answer = self.stage.slack.press_feedback(variants[0], positive=True, user_id=user)
        return bool(answer.status == 200)

    def _do_home(self, user: str) -> bool:
        return bool(self.stage.slack.app_home_opened(user).status == 200)

    def _do_composer(self, user: str) -> bool:
        tag = f"SK-{next(self._numbers):05d}"
        self.stage.slack.message_in_messages_tab(user, f"{tag} a note for the weekend hikers")
        return True

    def _subscribe_digests(self) -> None:
        """``digest_channels`` channels whose digest is due every ``digest_every_min`` minutes
        of the soak (one subscription per channel and due minute)."""
        stage = self.stage
        assert stage.database_url is not None
        now = datetime.now(UTC)
        first = now.replace(second=0, microsecond=0) + timedelta(minutes=1)
        if (first - now).total_seconds() < 15:  # too close to be written before its wave
            first += timedelta(minutes=1)
        demo = stage.demo.primary
        segment_name, segment_id = next(iter(demo.segments.items()))
        use_case_name, use_case_id = next(iter(demo.use_cases.items()))
        channels = []
        for number in range(self.digest_channels):
            channel = stage.emu.add_channel(f"soak-digest-{number}", members=list(USERS))
            stage.emu.invite_bot(channel)
            channels.append(channel)
        waves = max(1, math.ceil(self.seconds / 60 / self.digest_every_min))
        with PostgresStore(stage.database_url) as store:
            records = Records(store)
            for wave in range(waves):
                fire = first + timedelta(minutes=wave * self.digest_every_min)
                for index, channel in enumerate(channels):
                    digest = Digest(
                        team_id=stage.emu.team_id,
                        channel_id=channel,
                        created_by=USERS[index % 2],
                        segment_id=segment_id,
                        use_case_id=use_case_id,
                        segment_name=segment_name,
                        use_case_name=use_case_name,
                        time=fire.strftime("%H:%M"),
                        tz="UTC",
                        weekdays=list(WEEKDAYS),
                    )
                    records.digests.put(digest.id, digest)

    # -- restarts and samples ------------------------------------------------------------

    def _restart_loop(self) -> None:
        turn = 0
        while not self._stop.wait(self.restart_every_s):
            replica = self.stage.replicas[turn % len(self.stage.replicas)]
            turn += 1
            self._restarting = replica.name
            try:
                replica.terminate()
                replica.start()
            except Exception as exc:  # reported: the soak goes on with the others
                self.result.action_errors.append(f"restart {replica.name}: {exc!r}"[:300])
                continue
            finally:
                self._restarting = None
            at = round(self._elapsed(), 1)
            assert replica.process is not None
            self.result.starts_at[replica.process.pid] = at
            self.result.restarts.append((at, replica.name))
            self.say(f"{at / 60:6.1f} min  restarted {replica.name}")

    def _sample_loop(self) -> None:
        while not self._stop.wait(self.sample_every_s):
            sample = self._sample()
            self.result.samples.append(sample)
            self.say(describe(sample))

    def _sample(self) -> Sample:
        assert self.stage.database_url is not None
        processes = [
            p
            for r in self.stage.replicas
            if r.name != self._restarting and (p := process_sample(r)) is not None
        ]
        rows, connections = database_sample(self.stage.database_url)
        return Sample(round(self._elapsed(), 1), processes, rows, connections)


def describe(sample: Sample) -> str:
    """One line per sample: each process's RSS / threads / descriptors, the database."""
    procs = "  ".join(
        f"{p.replica[-1]}:{p.rss_mb:.0f}MB/{p.threads}t/{p.fds}fd" for p in sample.processes
    )
    leases = sample.rows.get("work_leases", 0)
    kv = sum(n for name, n in sample.rows.items() if name.startswith("kv_records/"))
    return (
        f"{sample.at_s / 60:6.1f} min  {procs}  pg conns {sample.connections}  "
        f"work_leases {leases}  kv {kv}  requests {sample.rows.get('requests', 0)}"
    )


def wait_ready_brief(stage: ClusterStage, timeout: float = 120.0) -> None:
    """Until a set-up brief of each user is ready (their choices are kept)."""
    wait_for(
        lambda: all(
            (found := roots_by_tag(stage, re.compile(rf"SK-SETUP-{user}")).get(f"SK-SETUP-{user}"))
            and is_ready(found[0], user=user, variants=1)
            for user in USERS
        ),
        timeout=timeout,
        what="the set-up briefs",
    )
