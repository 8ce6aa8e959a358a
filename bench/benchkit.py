"""What the benchmark scripts share: figures, reports, the machine and its load, a
signed-request load generator in its own process, linked users, the sandbox, the app and a bare
Bolt app each in a child process, the run watcher's poll-read recorder, and a small profiler
for ``--profile``.

Not a benchmark itself, except when run as ``python bench/benchkit.py signed-load`` by
:func:`send_signed` (then it reads a job from stdin, sends it and prints the timings) or as
``python bench/benchkit.py bare-app`` by :func:`bare_app_process` (a bare Bolt app).
"""

from __future__ import annotations

import asyncio
import contextlib
import cProfile
import itertools
import json
import logging
import math
import os
import platform
import pstats
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

_LOAD_TIMEOUT_S = 600.0


# ---------------------------------------------------------------- figures


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100): a value that was really measured."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def spread(values: Sequence[float], *, scale: float = 1.0, digits: int = 3) -> dict[str, Any]:
    """Count, p50, p90, p99, max and mean of ``values`` times ``scale``, rounded."""
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "p50": round(percentile(values, 50) * scale, digits),
        "p90": round(percentile(values, 90) * scale, digits),
        "p99": round(percentile(values, 99) * scale, digits),
        "max": round(max(values) * scale, digits),
        "mean": round(statistics.fmean(values) * scale, digits),
    }


def machine() -> dict[str, Any]:
    """Where the figures came from (recorded with every result)."""
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram_gb: float | None = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram_gb = round(int(line.split()[1]) / 1024 / 1024, 1)
                break
    except OSError:
        pass
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "ram_gb": ram_gb,
        "python": platform.python_version(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


@dataclass(frozen=True)
class Goal:
    name: str
    met: bool
    detail: str


def report(title: str, rows: Iterable[tuple[str, Any]], result: dict[str, Any]) -> None:
    """Print ``rows`` as a two-column table, then ``result`` as one JSON line."""
    rows = list(rows)
    width = max([len(k) for k, _ in rows] + [10])
    print()
    print(title)
    print("-" * len(title))
    for key, value in rows:
        print(f"{key:<{width}}  {value}")
    print(json.dumps(result, sort_keys=False))


def goal_rows(goals: Sequence[Goal]) -> list[tuple[str, str]]:
    return [(f"goal: {g.name}", f"{'MET' if g.met else 'NOT MET'} ({g.detail})") for g in goals]


def goals_json(goals: Sequence[Goal]) -> dict[str, Any]:
    return {g.name: {"met": g.met, "detail": g.detail} for g in goals}


def quiet_logging() -> None:
    """Warnings and errors only, on stderr: the app's INFO lines would drown the figures."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")


def wait_until(condition: Callable[[], Any], *, timeout: float, interval: float = 0.05) -> bool:
    """Poll ``condition`` until truthy or ``timeout`` seconds pass; returns whether it held."""
    deadline = time.monotonic() + timeout
    while True:
        if condition():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


# ---------------------------------------------------------------- signed load, in its own process


@dataclass(frozen=True)
class Sent:
    status: int
    elapsed_s: float


def send_signed(
    *,
    url: str,
    signing_secret: str,
    bodies: Sequence[bytes],
    concurrency: int,
    content_type: str = "application/x-www-form-urlencoded",
) -> list[Sent]:
    """POST every body to ``url``, ``concurrency`` at a time, each signed as Slack signs it.

    The sending runs in a child process so that the client's own work does not hold this
    process's interpreter lock while the app under test answers: the timings are the app's.
    Every body is signed when it is sent (Slack rejects timestamps older than 5 minutes).
    """
    sent, _ = send_signed_timed(
        url=url,
        signing_secret=signing_secret,
        bodies=bodies,
        concurrency=concurrency,
        content_type=content_type,
    )
    return sent


def send_signed_timed(
    *,
    url: str,
    signing_secret: str,
    bodies: Sequence[bytes],
    concurrency: int,
    content_type: str = "application/x-www-form-urlencoded",
) -> tuple[list[Sent], float]:
    """:func:`send_signed`, also returning the seconds from the first request sent to the last
    answer (measured in the load generator, so its start-up is not counted)."""
    if not url.startswith("http://127.0.0.1:"):
        raise ValueError("benchmarks only talk to 127.0.0.1")
    job = {
        "url": url,
        "secret": signing_secret,
        "bodies": [b.decode("utf-8") for b in bodies],
        "concurrency": concurrency,
        "content_type": content_type,
    }
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "signed-load"],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        timeout=_LOAD_TIMEOUT_S,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"load generator failed: {done.stderr.strip()[-2000:]}")
    answer = json.loads(done.stdout)
    return [Sent(status=s, elapsed_s=e) for s, e in answer["results"]], answer["wall_s"]


async def _signed_load(job: dict[str, Any]) -> dict[str, Any]:
    import httpx

    from suggestbot.slackemu.signing import signed_headers

    bodies = [b.encode("utf-8") for b in job["bodies"]]
    results: list[tuple[int, float]] = [(0, 0.0)] * len(bodies)
    queue: asyncio.Queue[int] = asyncio.Queue()
    for index in range(len(bodies)):
        queue.put_nowait(index)
    limits = httpx.Limits(max_connections=job["concurrency"])

    async with httpx.AsyncClient(timeout=30.0, limits=limits) as client:

        async def worker() -> None:
            while True:
                try:
                    index = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                body = bodies[index]
                headers = {
                    "Content-Type": job["content_type"],
                    **signed_headers(
                        signing_secret=job["secret"], timestamp=int(time.time()), body=body
                    ),
                }
                started = time.perf_counter()
                try:
                    reply = await client.post(job["url"], content=body, headers=headers)
                    status = reply.status_code
                except httpx.HTTPError:
                    status = 599
                results[index] = (status, time.perf_counter() - started)

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(job["concurrency"])))
        wall_s = time.perf_counter() - started
    return {"results": results, "wall_s": wall_s}


# ---------------------------------------------------------------- people on the stage


def add_linked_users(stage: Any, count: int) -> list[str]:
    """``count`` new people in ``stage.channel``, linked to their own (fresh) service token and
    with a remembered segment, use case and variant count, so ``/suggest brief <text>`` goes
    straight to a run. Written to the app's records directly, as the connect modal and a first
    brief would leave them: setting people up is not what is measured."""
    from suggestbot.store.records import LinkedUser, Preferences, user_key

    deps = stage.runtime.deps
    demo = stage.sandbox.demo.primary
    segment_id = next(iter(demo.segments.values()))
    use_case_id = next(iter(demo.use_cases.values()))
    users = []
    for n in range(count):
        user_id = f"U0BENCH{n:03d}"
        stage.emu.add_user(user_id, f"bench{n:03d}", locale="en-US", tz="Europe/Berlin")
        stage.emu.join(stage.channel, user_id)
        key = user_key(stage.emu.team_id, user_id)
        deps.records.users.put(
            key,
            LinkedUser(
                team_id=stage.emu.team_id,
                user_id=user_id,
                token_enc=deps.vault.encrypt(stage.user_token()),
                linked_at=time.time(),
            ),
        )
        deps.records.preferences.put(
            key, Preferences(segment_id=segment_id, use_case_id=use_case_id, variants=1)
        )
        users.append(user_id)
    deps.catalog(refresh=True)
    return users


def slash_bodies(stage: Any, users: Sequence[str], texts: Sequence[str]) -> list[bytes]:
    """Slash command bodies for ``stage.channel`` (see :func:`slash_bodies_in`)."""
    return slash_bodies_in(stage.emu, stage.channel, users, texts)


def slash_bodies_in(
    emu: Any, channel_id: str, users: Sequence[str], texts: Sequence[str]
) -> list[bytes]:
    """Slash command bodies as Slack would send them, one per text, users taking turns; each
    has its own trigger id and response URL issued by the emulator."""
    ws = emu.ws
    with ws.lock:
        return [
            suggest_command(emu, channel_id=channel_id, user_id=users[n % len(users)], text=text)
            for n, text in enumerate(texts)
        ]


def suggest_command(
    emu: Any,
    *,
    channel_id: str,
    user_id: str,
    text: str,
    team_id: str | None = None,
    team_domain: str | None = None,
) -> bytes:
    """One ``/suggest`` body as Slack sends it, with its own trigger id and response URL
    (issued by the emulator; the caller holds ``emu.ws.lock``). The emulator's own workspace
    unless ``team_id`` says another."""
    from suggestbot.slackemu import payloads

    ws = emu.ws
    channel, user = ws.channel(channel_id), ws.user(user_id)
    return payloads.slash_command_form(
        team_id=team_id or emu.team_id,
        team_domain=team_domain or emu.team_domain,
        channel=channel,
        user=user,
        command="/suggest",
        text=text,
        response_url=ws.issue_response_url(kind="commands", user_id=user.id, channel_id=channel.id),
        trigger_id=ws.issue_trigger(user.id),
    )


def link_users_in_store(
    *,
    data_dir: Path,
    secret_key: str,
    emu: Any,
    channel_id: str,
    token: str,
    count: int,
    database_url: str | None = None,
) -> list[str]:
    """Like :func:`add_linked_users`, for an app that will run in its own process: the people
    are written into the store at ``data_dir`` (or the PostgreSQL database at
    ``database_url``) before the app opens it (all linked to the sandbox's demo user,
    ``token``, with its first segment and use case remembered)."""
    from suggestbot.sandbox import DEMO
    from suggestbot.store import TokenVault
    from suggestbot.store.backends import open_app_store
    from suggestbot.store.records import LinkedUser, Preferences, Records, user_key

    store = open_app_store(data_dir=data_dir, database_url=database_url)
    vault = TokenVault.from_setting(secret_key)
    records = Records(store)
    users = []
    try:
        for n in range(count):
            user_id = f"U0BENCH{n:03d}"
            emu.add_user(user_id, f"bench{n:03d}", locale="en-US", tz="Europe/Berlin")
            emu.join(channel_id, user_id)
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
                Preferences(segment_id=DEMO.segment_id, use_case_id=DEMO.use_case_id, variants=1),
            )
            users.append(user_id)
    finally:
        store.close()
    return users


# ---------------------------------------------------------------- the sandbox in its own process


@contextlib.contextmanager
def sandbox_process(*, admin_key: str, time_factor: float = 1.0) -> Iterator[tuple[int, str]]:
    """``python -m suggestbot sandbox --port 0`` in a child process; yields its pid and URL.

    In its own process the service does not share the app's interpreter lock, as a real
    service would not; its CPU can be read with :func:`child_cpu_seconds`. A SIGTERM to this
    process (``timeout``, Ctrl-C's cousin) still stops the child.
    """
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "suggestbot",
            "sandbox",
            "--port",
            "0",
            "--admin-key",
            admin_key,
            "--time-factor",
            str(time_factor),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = None
        deadline = time.monotonic() + 30
        for line in process.stdout:
            found = re.search(r"http://127\.0\.0\.1:\d+", line)
            if found:
                url = found.group(0)
                break
            if time.monotonic() > deadline:
                break
        if url is None:
            raise RuntimeError("the sandbox did not start")
        # Keep reading its output so that a full pipe never blocks it.
        threading.Thread(target=process.stdout.read, daemon=True).start()
        yield process.pid, url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


# ---------------------------------------------------------------- when the watcher reads a run


class PollReads:
    """For each run whose poll the watcher took out, when its state next reached the app.

    A run's poll is *read* when its listing page arrived or its single read answered (not when
    the sweep that serves it started); lateness is read minus due, negative for a poll read
    early to join a sweep. ``gaps_s`` are the times between successive polls of one run, as
    the service sees them. Fed by :class:`RecordingContent` (reads) and the timers (dues).
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.recording = False
        self._due: dict[str, float] = {}  # run id -> when its pending poll was due
        self._last_read: dict[str, float] = {}
        self.lateness_s: list[float] = []
        self.gaps_s: list[float] = []
        self.single_reads = 0
        self.page_reads = 0
        self.polls_of: dict[str, int] = {}  # run id -> polls read (a page counts as one)

    def taken(self, run_id: str, due_at: float) -> None:
        with self.lock:
            self._due[run_id] = due_at

    def read(self, run_ids: Iterable[str], *, single: bool) -> None:
        now = time.time()
        with self.lock:
            for run_id in run_ids:
                due = self._due.pop(run_id, None)
                if due is None:
                    continue
                last = self._last_read.get(run_id)
                self._last_read[run_id] = now
                if not self.recording:
                    continue
                self.polls_of[run_id] = self.polls_of.get(run_id, 0) + 1
                self.lateness_s.append(now - due)
                if last is not None:
                    self.gaps_s.append(now - last)
                if single:
                    self.single_reads += 1
                else:
                    self.page_reads += 1


class RecordingContent:
    """A service client that tells :class:`PollReads` which runs each listing page or single
    read returned, when it returned; everything else passes through."""

    def __init__(self, client: Any, reads: PollReads) -> None:
        self._client = client
        self._reads = reads

    def list_runs_page(self, **kwargs: Any) -> Any:
        page = self._client.list_runs_page(**kwargs)
        self._reads.read((run.id for run in page.items), single=False)
        return page

    def get_run(self, *, run_id: str) -> Any:
        run = self._client.get_run(run_id=run_id)
        self._reads.read([run.id], single=True)
        return run

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


def note_poll_reads(runtime: Any, reads: PollReads) -> None:
    """Feed ``reads`` from a running app: its timers say when each poll taken out was due, its
    service client when each run's state arrived."""
    timers = runtime.timers
    dispatch = timers._dispatch

    def noting(deps: Any, due: list[Any]) -> None:
        for item in due:
            req = deps.records.requests.get(item.request_id)
            if req is not None and req.run_id is not None:
                reads.taken(req.run_id, item.at)
        dispatch(deps, due)

    timers._dispatch = noting
    runtime.deps.content = RecordingContent(runtime.deps.content, reads)


def create_runs(
    url: str,
    count: int,
    *,
    user_token: str | None = None,
    segment_id: str | None = None,
    use_case_id: str | None = None,
) -> list[str]:
    """``count`` runs, created over HTTP, 16 at a time: of the sandbox's demo user, or of the
    user of ``user_token`` in that user's tenant (its segment and use case)."""
    import httpx

    from suggestbot.sandbox import DEMO

    async def go() -> list[str]:
        body = {
            "type": "steered_generation",
            "segment_id": segment_id or DEMO.segment_id,
            "use_case_id": use_case_id or DEMO.use_case_id,
            "steering_text": "Benchmark brief for the run watcher",
            "variant_count": 1,
        }
        headers = {"Authorization": f"Bearer {user_token or DEMO.user_token}"}
        ids: list[str] = []
        async with httpx.AsyncClient(base_url=url, timeout=30, headers=headers) as client:

            async def one_by_one(n: int) -> None:
                for _ in range(n):
                    for attempt in range(3):
                        try:
                            reply = await client.post("/v1/generation-runs", json=body)
                            break
                        except httpx.TransportError:
                            # A kept-alive connection the server closed meanwhile (a busy
                            # machine): try again. A run created twice is only never watched.
                            if attempt == 2:
                                raise
                    reply.raise_for_status()
                    ids.append(reply.json()["id"])

            workers = 16
            shares = [count // workers + (1 if i < count % workers else 0) for i in range(workers)]
            await asyncio.gather(*(one_by_one(n) for n in shares))
        return ids

    return asyncio.run(go())


def machine_token(url: str) -> str:
    """An access token of the sandbox's demo machine credential."""
    import httpx

    from suggestbot.sandbox import DEMO

    form = {
        "grant_type": "client_credentials",
        "client_id": DEMO.client_id,
        "client_secret": DEMO.client_secret,
    }
    reply = httpx.post(url + "/auth/token", data=form, timeout=10)
    reply.raise_for_status()
    return str(reply.json()["access_token"])


# ------------------------------------------------------------ a throwaway PostgreSQL


_TESTS_DIR = Path(__file__).resolve().parent.parent / "tests"


@contextlib.contextmanager
def postgres_database(*, work_dir: Path, durable: bool = True) -> Iterator[str]:
    """A throwaway PostgreSQL 15 cluster on loopback (the tests' ``pg_cluster.py``) with one
    database brought to the newest schema by ``suggestbot db upgrade``, as an operator would;
    yields its URL. ``durable`` keeps PostgreSQL's own ``fsync`` and ``full_page_writes`` (the
    tests turn them off). The cluster is stopped and its files removed on the way out, also
    after an error, Ctrl-C or SIGTERM."""
    if str(_TESTS_DIR) not in sys.path:
        sys.path.append(str(_TESTS_DIR))
    from pg_cluster import PgCluster

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    cluster = PgCluster(durable=durable).start()
    try:
        url = cluster.create_database("suggestbot_bench")
        work_dir.mkdir(parents=True, exist_ok=True)
        upgrade = subprocess.run(
            [sys.executable, "-m", "suggestbot", "db", "upgrade"],
            env=_child_env({"SUGGESTBOT_DATABASE_URL": url}),
            cwd=work_dir,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if upgrade.returncode != 0:
            raise RuntimeError(f"suggestbot db upgrade failed: {upgrade.stderr[-2000:]}")
        yield url
    finally:
        cluster.remove()


def load_average() -> list[float]:
    """``os.getloadavg()`` (1, 5 and 15 minutes), recorded before and after each benchmark."""
    return [round(x, 2) for x in os.getloadavg()]


# ------------------------------------------------------------ the app and a bare app, each alone


def _child_env(extra: dict[str, str]) -> dict[str, str]:
    """This environment without the app's own settings, plus ``extra``."""
    prefixes = ("SLACK_", "CONTENT_", "SUGGESTBOT_", "LOG_", "PORT")
    env = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    return env | extra


@contextlib.contextmanager
def _serving_child(
    command: list[str], *, env: dict[str, str], log_path: Path, what: str
) -> Iterator[tuple[int, str]]:
    """A child that logs ``http://127.0.0.1:<port>/slack/events`` once it serves; yields its
    pid and that URL, and stops it (SIGTERM, then SIGKILL) on the way out."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("w") as log:
        process = subprocess.Popen(
            command, env=env, cwd=log_path.parent, stdout=log, stderr=subprocess.STDOUT
        )
    try:
        url = None
        deadline = time.monotonic() + 60
        while url is None and time.monotonic() < deadline and process.poll() is None:
            found = re.search(r"http://127\.0\.0\.1:\d+/slack/events", log_path.read_text())
            url = found.group(0) if found else None
            if url is None:
                time.sleep(0.1)
        if url is None:
            tail = log_path.read_text()[-2000:]
            raise RuntimeError(f"{what} did not start: {tail}")
        yield process.pid, url
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@contextlib.contextmanager
def app_process(
    *,
    data_dir: Path,
    secret_key: str,
    signing_secret: str,
    slack_api_url: str,
    bot_token: str,
    service_url: str,
    database_url: str | None = None,
) -> Iterator[tuple[int, str]]:
    """``suggestbot serve`` in its own process, as in production (INFO logs, every background
    job at its production frequency), against the emulator and the sandbox's demo tenant,
    keeping its state in ``data_dir`` or, given ``database_url``, in PostgreSQL.
    Yields its pid and the URL Slack would post to."""
    from suggestbot.sandbox import DEMO

    database = {"SUGGESTBOT_DATABASE_URL": database_url} if database_url else {}
    env = _child_env(
        database
        | {
            "SLACK_BOT_TOKEN": bot_token,
            "SLACK_SIGNING_SECRET": signing_secret,
            "SLACK_API_URL": slack_api_url,
            "CONTENT_API_URL": service_url,
            "CONTENT_CLIENT_ID": DEMO.client_id,
            "CONTENT_CLIENT_SECRET": DEMO.client_secret,
            "SUGGESTBOT_SECRET_KEYS": secret_key,
            "SUGGESTBOT_DATA_DIR": str(data_dir),
            "LOG_LEVEL": "INFO",
        }
    )
    command = [sys.executable, "-m", "suggestbot", "serve", "--host", "127.0.0.1", "--port", "0"]
    with _serving_child(command, env=env, log_path=data_dir / "app.log", what="the app") as got:
        yield got


@contextlib.contextmanager
def bare_app_process(
    *,
    work_dir: Path,
    signing_secret: str,
    slack_api_url: str,
    bot_token: str,
    like_app: bool = False,
) -> Iterator[tuple[int, str]]:
    """A bare Bolt app in its own process (``benchkit.py bare-app``); its only listener acks.
    Yields its pid and URL.

    ``like_app=False`` (the reference): what a Bolt app does at the least — the signature
    check, ``process_before_response=True`` (the listener runs in the request's thread and the
    answer leaves when it returns), Bolt's own ASGI adapter under uvicorn. ``like_app=True``:
    the real app's ``App`` options (``process_before_response=False``, the same listener pool),
    ``build_http_app`` and the same uvicorn server as ``suggestbot serve`` — a reference that
    pays whatever those choices cost, so it cannot show it."""
    env = _child_env(
        {
            "SLACK_BOT_TOKEN": bot_token,
            "SLACK_SIGNING_SECRET": signing_secret,
            "SLACK_API_URL": slack_api_url,
            "BENCH_BARE_LIKE_APP": "1" if like_app else "",
        }
    )
    command = [sys.executable, str(Path(__file__).resolve()), "bare-app"]
    with _serving_child(
        command, env=env, log_path=work_dir / "bare-app.log", what="the bare app"
    ) as got:
        yield got


def _bare_app() -> int:
    """Serve the bare app until SIGTERM (run by :func:`bare_app_process`)."""
    from slack_bolt import Ack, App
    from slack_sdk import WebClient

    from suggestbot.asgi_thread import BackgroundServer
    from suggestbot.installations.scope import ContextExecutor
    from suggestbot.slackapp.app import LISTENER_THREADS
    from suggestbot.slackapp.http import EVENTS_PATH, build_http_app

    like_app = bool(os.environ.get("BENCH_BARE_LIKE_APP"))
    app = App(
        client=WebClient(token=os.environ["SLACK_BOT_TOKEN"], base_url=os.environ["SLACK_API_URL"]),
        signing_secret=os.environ["SLACK_SIGNING_SECRET"],
        request_verification_enabled=True,
        process_before_response=not like_app,
        listener_executor=ContextExecutor(
            max_workers=LISTENER_THREADS, thread_name_prefix="bolt-listener"
        ),
    )

    @app.command("/suggest")
    def only_ack(ack: Ack) -> None:
        ack()

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    if like_app:
        http: Any = build_http_app(app)
    else:
        from slack_bolt.adapter.asgi import SlackRequestHandler

        http = SlackRequestHandler(app, path=EVENTS_PATH)
    server = BackgroundServer(http, host="127.0.0.1", port=0, log_level="warning", name="http")
    with server:
        print(f"serving Slack at http://127.0.0.1:{server.port}{EVENTS_PATH}", flush=True)
        stop.wait()
    return 0


@contextlib.contextmanager
def round_robin_proxy(*, urls: Sequence[str], work_dir: Path) -> Iterator[tuple[int, str]]:
    """A TCP proxy in its own process (``benchkit.py rr-proxy``) handing each new connection to
    the next of ``urls`` in turn, as a load balancer in front of replicas would. Yields its pid
    and the URL Slack would post to."""
    command = [sys.executable, str(Path(__file__).resolve()), "rr-proxy", *urls]
    with _serving_child(
        command, env=dict(os.environ), log_path=work_dir / "proxy.log", what="the proxy"
    ) as got:
        yield got


def _round_robin_proxy(urls: Sequence[str]) -> int:
    """Serve the proxy until SIGTERM (run by :func:`round_robin_proxy`)."""
    from urllib.parse import urlsplit

    backends = [(urlsplit(u).hostname or "127.0.0.1", urlsplit(u).port or 80) for u in urls]
    turn = itertools.count()

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while chunk := await reader.read(65536):
                writer.write(chunk)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        host, port = backends[next(turn) % len(backends)]
        try:
            up_reader, up_writer = await asyncio.open_connection(host, port)
        except OSError:
            writer.close()
            return
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, stop.set)
        loop.add_signal_handler(signal.SIGINT, stop.set)
        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        print(f"serving Slack at http://127.0.0.1:{port}/slack/events", flush=True)
        async with server:
            await stop.wait()

    asyncio.run(main())
    return 0


# ---------------------------------------------------------------- where the time goes


class ThreadProfiles:
    """``cProfile`` in every thread that runs :meth:`call`, merged (``--profile``).

    Each thread's profile counts that thread's CPU time (``time.thread_time``), so time spent
    waiting for a lock, a socket or the interpreter lock is not charged to the function.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._profiles: dict[int, cProfile.Profile] = {}

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        ident = threading.get_ident()
        with self._lock:
            profile = self._profiles.get(ident)
            if profile is None:
                profile = self._profiles[ident] = cProfile.Profile(time.thread_time)
        profile.enable()
        try:
            return fn(*args)
        finally:
            profile.disable()

    def print(self, *, limit: int = 35) -> None:
        """The merged profile, by cumulative CPU seconds, on stderr."""
        profiles = list(self._profiles.values())
        if not profiles:
            return
        stats = pstats.Stats(profiles[0], stream=sys.stderr)
        for profile in profiles[1:]:
            stats.add(profile)
        stats.sort_stats("cumulative").print_stats(limit)


# ---------------------------------------------------------------- process figures


def rss_peak_mb() -> float:
    """Peak resident set size of this process (``ru_maxrss`` is in KiB on Linux)."""
    import resource

    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def cpu_seconds() -> float:
    """User plus system CPU seconds used by this process so far."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def child_cpu_seconds(pid: int) -> float | None:
    """User plus system CPU seconds of a running child (from ``/proc``), or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    # utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
    return (int(fields[11]) + int(fields[12])) / ticks


# ---------------------------------------------------------------- the service's record of reads


class _ReadLog:
    """ASGI middleware around the sandbox: one line per run read it answered (``GET
    /v1/generation-runs`` pages and single reads), with when the answer left and which machine
    credential asked (``<epoch s> <client id> <run id>,<run id>,…``).

    Written in the service's process, when the answer is sent: that is when the service's
    answer about those runs became the caller's to read, whatever the caller measures itself.
    """

    def __init__(self, app: Any, env: Any, path: Path) -> None:
        self._app = app
        self._env = env
        self._file = path.open("a", buffering=1)
        self._lock = threading.Lock()

    def _caller(self, scope: dict[str, Any]) -> str:
        from suggestbot.sandbox.ids import hash_secret

        for name, value in scope.get("headers", []):
            if name == b"authorization":
                token = value.decode("latin-1").partition(" ")[2].strip()
                with self._env.state.lock:
                    access = self._env.state.access_tokens.get(hash_secret(token))
                return access.client_id if access is not None else "-"
        return "-"

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or scope.get("method") != "GET":
            await self._app(scope, receive, send)
            return
        if not path.startswith("/v1/generation-runs"):
            await self._app(scope, receive, send)
            return
        caller = self._caller(scope)
        status = 0
        body: list[bytes] = []

        async def noting(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                body.append(message.get("body", b""))
                if not message.get("more_body") and status == 200:
                    self._note(caller, b"".join(body))
            await send(message)

        await self._app(scope, receive, noting)

    def _note(self, caller: str, raw: bytes) -> None:
        now = time.time()
        data = json.loads(raw)
        if "id" in data:
            ids = [data["id"]]
        else:
            listed = [v for v in data.values() if isinstance(v, list)]
            ids = [item["id"] for item in (listed[0] if listed else [])]
        if ids:
            with self._lock:
                self._file.write(f"{now:.6f} {caller} {','.join(ids)}\n")


@dataclass(frozen=True)
class ServiceRead:
    at: float
    caller: str  # the machine credential's client id


def load_read_log(path: Path) -> dict[str, list[ServiceRead]]:
    """Run id -> every read of it the service answered, in time order (see ``_ReadLog``)."""
    reads: dict[str, list[ServiceRead]] = {}
    with path.open() as lines:
        for line in lines:
            parts = line.split()
            if len(parts) != 3:
                continue  # a line still being written when read
            read = ServiceRead(float(parts[0]), parts[1])
            for run_id in parts[2].split(","):
                reads.setdefault(run_id, []).append(read)
    for runs in reads.values():
        runs.sort(key=lambda r: r.at)
    return reads


@contextlib.contextmanager
def recording_sandbox_process(*, admin_key: str, read_log: Path) -> Iterator[tuple[int, str]]:
    """The sandbox in a child process (as :func:`sandbox_process`), noting every run read it
    answers in ``read_log`` (one line per listing page or single read). Yields pid and URL."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    process = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "recording-sandbox", admin_key],
        env=os.environ | {"BENCH_READ_LOG": str(read_log)},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+", line)
        if found is None:
            raise RuntimeError("the recording sandbox did not start")
        threading.Thread(target=process.stdout.read, daemon=True).start()
        yield process.pid, found.group(0)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _recording_sandbox(admin_key: str) -> int:
    """Serve the sandbox with its read log until SIGTERM (run by
    :func:`recording_sandbox_process`)."""
    from suggestbot.sandbox import Sandbox
    from suggestbot.sandbox.server import SandboxServer

    sandbox = Sandbox(admin_key=admin_key)
    recorded = _ReadLog(sandbox.app, sandbox.env, Path(os.environ["BENCH_READ_LOG"]))

    class Recorded:
        app = recorded

        def start(self) -> Any:
            return sandbox.start()

        def stop(self) -> None:
            sandbox.stop()

        def flush(self) -> None:
            sandbox.flush()

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    with SandboxServer(Recorded(), port=0) as server:
        print(f"sandbox at http://127.0.0.1:{server.port}", flush=True)
        stop.wait()
    return 0


# ---------------------------------------------------------------- PostgreSQL and replicas


def bench_pg_cluster(*, statements: bool = False) -> Any:
    """A throwaway PostgreSQL 15 cluster on loopback (the tests' ``tests/pg_cluster.py``,
    loaded by path), started with ``fsync`` on: every commit reaches the disk, as in
    production (the tests turn it off). ``statements``: with ``pg_stat_statements`` loaded,
    to say which statements the time went to (see :func:`top_statements`)."""
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "tests" / "pg_cluster.py"
    spec = importlib.util.spec_from_file_location("bench_pg_cluster_module", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    class DurableCluster(module.PgCluster):  # type: ignore[name-defined,misc]
        def start_server(self) -> None:
            options = " ".join(
                [
                    "-c listen_addresses=127.0.0.1",
                    f"-p {self.port}",
                    f"-c unix_socket_directories={self.root}",
                    "-c max_connections=300",
                    "-c fsync=on",
                    "-c synchronous_commit=on",
                    *(["-c shared_preload_libraries=pg_stat_statements"] if statements else []),
                ]
            )
            self._run(
                str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.log),
                "-o", options, "-w", "-t", "60", "start",
            )  # fmt: skip
            self._running = True

    return DurableCluster().start()


def reset_statements(db_url: str) -> None:
    """Start counting statements afresh (the extension is created where missing)."""
    import psycopg

    with psycopg.connect(db_url, autocommit=True) as connection:
        connection.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        connection.execute("SELECT pg_stat_statements_reset()")


def sessions_opened(db_url: str) -> int:
    """How many connections PostgreSQL has opened to this database since it started (its
    ``pg_stat_database.sessions``, counted when a session ends or is asked about)."""
    import psycopg

    with psycopg.connect(db_url, autocommit=True) as connection:
        row = connection.execute(
            "SELECT sessions FROM pg_stat_database WHERE datname = current_database()"
        ).fetchone()
    return int(row[0]) if row else 0


def top_statements(db_url: str, *, per: int, limit: int = 25) -> list[dict[str, Any]]:
    """The statements that took the most server time since :func:`reset_statements`, each
    with its calls and milliseconds per ``per`` (a brief, say) and its text's start."""
    import psycopg

    with psycopg.connect(db_url, autocommit=True) as connection:
        rows = connection.execute(
            "SELECT calls, total_exec_time, rows, query FROM pg_stat_statements "
            "WHERE query NOT LIKE '%%pg_stat_statements%%' "
            "ORDER BY total_exec_time DESC LIMIT %s",
            (limit,),
        ).fetchall()
    return [
        {
            "calls_per": round(calls / per, 2),
            "ms_per": round(total_ms / per, 3),
            "rows_per_call": round(n / calls, 1) if calls else 0,
            "query": " ".join(query.split())[:160],
        }
        for calls, total_ms, n, query in rows
    ]


class ServeReplica:
    """One ``suggestbot serve`` process with its own environment; started, SIGKILLed and
    stopped on its own. Its output goes to ``log_path`` across restarts."""

    def __init__(self, *, name: str, env: dict[str, str], log_path: Path) -> None:
        self.name = name
        self.env = env
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def start(self, *, timeout_s: float = 120.0) -> None:
        """Start it and wait until it serves Slack (its log names the URL, after the start-up
        recovery has resumed every unfinished request)."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "suggestbot", "serve", "--host", "127.0.0.1", "--port", "0"],
                env=self.env,
                cwd=self.log_path.parent,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and self.process.poll() is None:
            with self.log_path.open("rb") as log:
                log.seek(offset)
                if re.search(rb"http://127\.0\.0\.1:\d+/slack/events", log.read()):
                    return
            time.sleep(0.1)
        tail = self.log_path.read_text("utf-8", "replace")[-2000:]
        self.stop()
        raise RuntimeError(f"{self.name} did not start: {tail}")

    def kill(self) -> None:
        """SIGKILL: no drain, no release; its leases stay until they run out."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)
        self.process = None

    def stop(self) -> None:
        """SIGTERM (the operator's way), then SIGKILL if it does not exit."""
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None


def child_env(extra: dict[str, str]) -> dict[str, str]:
    """This environment without the app's own settings, plus ``extra``."""
    return _child_env(extra)


def _main(argv: Sequence[str]) -> int:
    if list(argv) == ["bare-app"]:
        return _bare_app()
    if len(argv) == 2 and argv[0] == "recording-sandbox":
        return _recording_sandbox(argv[1])
    if len(argv) >= 2 and argv[0] == "rr-proxy":
        return _round_robin_proxy(argv[1:])
    if list(argv) != ["signed-load"]:
        print(
            "usage: benchkit.py signed-load  (reads a job as JSON on stdin)\n"
            "       benchkit.py bare-app     (serves a bare Bolt app; settings from the env)",
            file=sys.stderr,
        )
        return 2
    job = json.loads(sys.stdin.read())
    print(json.dumps(asyncio.run(_signed_load(job))))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
