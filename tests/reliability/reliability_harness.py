"""The app as a real separate process, started and killed the way an operator's host would.

:class:`ProcessStage` is the end-to-end :class:`~suggestbot.demo.stage.Stage` (sandbox and Slack
emulator served in the test process over loopback) with one difference: the app runs as
``python -m suggestbot serve``, configured only through environment variables, so a SIGKILL
is a real kill — no ``finally`` runs, nothing is flushed, threads die mid-call.

Also here: what the reliability tests read back (database snapshots, the shape of every
secret in play) and the :class:`Evidence` they leave for the secrets scan at the end.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from suggestbot.demo.stage import CHANNEL_LANG, LANGS, SIGNING_SECRET, Stage, wait_for
from suggestbot.sandbox.faults import RunTiming
from suggestbot.slackapp.http import EVENTS_PATH
from suggestbot.slackemu import SlackDriver
from suggestbot.slackemu.results import AppResponse, ViewSubmission
from suggestbot.store import generate_key
from suggestbot.ui.messages import t, tn

DB_FILENAME = "suggestbot.sqlite"
START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 20.0

# Shapes of every secret in play: sandbox access/user tokens and client secrets, Slack tokens,
# and the query string of a signed image URL (its signature is the credential).
SECRET_SHAPES = re.compile(r"sbx_(?:at|ut|cs)_[A-Za-z0-9_-]{6,}|xox[abp]-[A-Za-z0-9-]{6,}|[?&]sig=")
# What must never reach a person: a Python traceback or an exception's class name.
LEAK_SHAPES = re.compile(
    r"Traceback \(most recent call last\)|\b[A-Z][A-Za-z]*(?:Error|Exception)\b|File \"/"
)


def free_port() -> int:
    """A loopback port nobody uses right now, for the app to keep across restarts.

    Taken below the kernel's ephemeral range: a port from that range (what binding port 0
    gives) can be handed to any outgoing connection of the tests between this check and the
    app's bind, or while the app is down between a kill and its restart.
    """
    low = _ephemeral_low()
    candidates = list(range(max(1024, low - 12000), low - 1000))
    random.shuffle(candidates)
    for port in candidates[:200]:
        with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free loopback port below the ephemeral range")


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default


@dataclass(frozen=True)
class StageEvidence:
    """What one stage leaves for the secrets scan, as plain data: where its data directory and
    log are, every secret it used and what it sent Slack that looks like a leak."""

    data_dir: Path
    log_path: Path
    secrets: frozenset[str]
    leaks: tuple[str, ...]

    @classmethod
    def of(cls, stage: ProcessStage) -> StageEvidence:
        secrets = {stage.emu.bot_token, SIGNING_SECRET, stage.demo.client_secret}
        secrets |= {stage.demo.primary.user_token, *stage.user_tokens, *stage.all_keys}
        secrets |= signed_urls(stage)
        return cls(stage.data_dir, stage.log_path, frozenset(secrets), tuple(leaks_to_slack(stage)))

    def dumps(self) -> str:
        return json.dumps(
            {
                "data_dir": str(self.data_dir),
                "log_path": str(self.log_path),
                "secrets": sorted(self.secrets),
                "leaks": list(self.leaks),
            }
        )

    @classmethod
    def loads(cls, text: str) -> StageEvidence:
        raw = json.loads(text)
        return cls(
            Path(raw["data_dir"]),
            Path(raw["log_path"]),
            frozenset(raw["secrets"]),
            tuple(raw["leaks"]),
        )


@dataclass
class Evidence:
    """The stages of the whole reliability run, kept so that the secrets scan at the end can
    read everything they left behind (data directories, app logs) and every secret they used.

    A parallel run spreads the tests over several worker processes, so what a test's stages
    leave is also written to ``shared_dir`` (one directory per run, shared by its workers) when
    the test ends, with a mark that it ended: the scan waits for the marks of every test in
    ``expected`` and reads what all of them left, whichever process ran them.
    """

    shared_dir: Path
    expected: frozenset[str] = frozenset()
    stages: list[ProcessStage] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, stage: ProcessStage) -> None:
        with self._lock:
            if stage not in self.stages:
                self.stages.append(stage)

    def keep(self, stages: list[ProcessStage]) -> None:
        """Write what ``stages`` left (once they are stopped) where every worker can read it."""
        self.shared_dir.mkdir(parents=True, exist_ok=True)
        for stage in stages:
            path = self.shared_dir / f"stage-{_digest(str(stage.data_dir))}.json"
            path.touch(mode=0o600)
            path.write_text(StageEvidence.of(stage).dumps(), "utf-8")

    def ended(self, nodeid: str) -> None:
        """Mark test ``nodeid`` as ended (after :meth:`keep` of its stages)."""
        self.shared_dir.mkdir(parents=True, exist_ok=True)
        self._ended_mark(nodeid).write_text(nodeid, "utf-8")

    def wait_for_every_other_test(self, *, timeout: float) -> None:
        """Until every test in ``expected`` has ended, in this process or another."""

        def missing() -> list[str]:
            return [n for n in sorted(self.expected) if not self._ended_mark(n).exists()]

        deadline = time.monotonic() + timeout
        while missing():
            if time.monotonic() > deadline:
                raise TimeoutError(f"waited {timeout:.0f} s for these tests: {missing()}")
            time.sleep(0.2)

    def _ended_mark(self, nodeid: str) -> Path:
        return self.shared_dir / f"ended-{_digest(nodeid)}"

    def all(self) -> list[StageEvidence]:
        """Every stage of the run: this process's read now, the others' as they were kept."""
        live = [StageEvidence.of(stage) for stage in list(self.stages)]
        mine = {item.data_dir for item in live}
        kept = [
            StageEvidence.loads(path.read_text("utf-8"))
            for path in sorted(self.shared_dir.glob("stage-*.json"))
        ]
        return live + [item for item in kept if item.data_dir not in mine]

    def data_dirs(self) -> list[Path]:
        return [item.data_dir for item in self.all()]

    def log_files(self) -> list[Path]:
        return [item.log_path for item in self.all() if item.log_path.exists()]

    def secrets(self) -> set[str]:
        """Exact values that must appear nowhere: tokens, secrets, keys and signed URLs."""
        found: set[str] = set()
        for item in self.all():
            found |= item.secrets
        return found

    def leaks(self) -> dict[str, list[str]]:
        """What each stage sent Slack that looks like a traceback, by data directory."""
        return {str(item.data_dir): list(item.leaks) for item in self.all() if item.leaks}


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def signed_urls(stage: Stage) -> set[str]:
    """Every signed image URL the app showed in Slack, and its query string (the credential)."""
    urls: set[str] = set()
    for call in stage.emu.calls():
        for url in re.findall(r'"image_url": "([^"]+\?[^"]+)"', json.dumps(call.args)):
            urls |= {url, url.split("?", 1)[1]}
    return urls


class ProcessStage(Stage):
    """The stage with the app as a child process on a fixed loopback port of its own.

    Args:
        data_dir: the app's ``SUGGESTBOT_DATA_DIR``; survives kills and restarts.
        log_path: the app's stdout and stderr (DEBUG logs), appended across restarts.
        time_factor: the sandbox's clock speed-up.
        poll_scale: ``SUGGESTBOT_POLL_SCALE`` of the app.
        run_timing: how long runs wait and run in the sandbox, before ``time_factor``.
    """

    def __init__(
        self,
        *,
        data_dir: Path,
        log_path: Path,
        time_factor: float = 0.01,
        poll_scale: float = 0.01,
        run_timing: RunTiming | None = None,
        slack_gate: bool = True,
    ) -> None:
        super().__init__(
            data_dir=data_dir, time_factor=time_factor, poll_scale=poll_scale, run_timing=run_timing
        )
        # Off only for a test that pours more into one channel than Slack's one post a second
        # lets through in its time, and says so.
        self.slack_gate = slack_gate
        # Crash and fault tests send up to a hundred briefs into one channel within seconds, a
        # hundred times what Slack's one post a second allows: they test exactly-once, not
        # Slack's budget (tests/slack, bench/slack_budget.py), so they need unlimited calls.
        self.emu.rationing.off()
        self.log_path = log_path
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.kills = 0
        self.user_tokens: list[str] = []
        self.all_keys: set[str] = {self.secret_keys}
        # ``SUGGESTBOT_FREEZE_AT`` of the next start: the app's work stops for good at this
        # named point, so that a SIGKILL lands exactly there.
        self.freeze_at: str | None = None
        self._up = threading.Event()
        # One client for every health check across restarts: a new one per start would load
        # the CA bundle again each time (about 0.1 s of CPU), dozens of times in some tests.
        self._http = httpx.Client(timeout=5.0)

    # ------------------------------------------------------------------ the child process

    def app_env(self) -> dict[str, str]:
        """The operator's environment: exactly the documented variables, nothing inherited
        except what finds the interpreter."""
        demo = self.demo
        env = {
            "SLACK_BOT_TOKEN": self.emu.bot_token,
            "SLACK_SIGNING_SECRET": SIGNING_SECRET,
            "SLACK_API_URL": self.emu.api_url,
            "CONTENT_API_URL": self.sandbox_url,
            "CONTENT_CLIENT_ID": demo.client_id,
            "CONTENT_CLIENT_SECRET": demo.client_secret,
            "SUGGESTBOT_SECRET_KEYS": self.secret_keys,
            "SUGGESTBOT_DATA_DIR": str(self.data_dir),
            "SUGGESTBOT_POLL_SCALE": str(self.poll_scale),
            "PORT": str(self.port),
            "LOG_LEVEL": "DEBUG",
        }
        if self.freeze_at:
            env["SUGGESTBOT_FREEZE_AT"] = self.freeze_at
        if not self.slack_gate:
            env["SUGGESTBOT_SLACK_GATE"] = "false"
        for name in ("PATH", "SYSTEMROOT", "TMPDIR", "LANG"):
            if name in os.environ:
                env[name] = os.environ[name]
        return env

    @property
    def app_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start_app(self) -> Any:
        """Start ``suggestbot serve`` and wait until ``/healthz`` says it is up."""
        if self.process is not None and self.process.poll() is None:
            raise RuntimeError("the app is already running")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        # The working directory has no .env: only the variables above configure the app.
        workdir = self.data_dir.parent
        with open(self.log_path, "ab") as log:
            log.write(f"--- start {self.starts + 1}\n".encode())
            log.flush()
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "suggestbot",
                    "serve",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                ],
                env=self.app_env(),
                cwd=workdir,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        self.starts += 1
        self._wait_healthy(self.process)
        if self.driver is None:
            self.driver = SlackDriver(
                self.emu, app_url=self.app_url + EVENTS_PATH, signing_secret=SIGNING_SECRET
            )
        self._up.set()
        return self.process

    def _wait_healthy(self, process: subprocess.Popen[bytes]) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                raise RuntimeError(
                    f"the app exited with {process.returncode} while starting:\n" + self.log_tail()
                )
            try:
                if self._http.get(self.app_url + "/healthz", timeout=2.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"the app did not become healthy:\n{self.log_tail()}")
            time.sleep(0.05)

    def kill_app(self) -> None:
        """SIGKILL: the process gets no chance to finish anything."""
        process = self.process
        if process is None:
            return
        self._up.clear()
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
            self.kills += 1
        process.wait(timeout=STOP_TIMEOUT_S)
        self.process = None

    def stop_app(self, *, graceful: bool = True) -> None:
        if not graceful:
            self.kill_app()
            return
        process = self.process
        if process is None:
            return
        self._up.clear()
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=STOP_TIMEOUT_S)
        self.process = None

    def restart_app(self, *, graceful: bool = True) -> Any:
        self.stop_app(graceful=graceful)
        return self.start_app()

    def wait_until_up(self, timeout: float) -> bool:
        return self._up.wait(timeout)

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log_text(self) -> str:
        return self.log_path.read_text("utf-8", "replace") if self.log_path.exists() else ""

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])

    def health(self) -> int:
        """The HTTP status of ``/healthz`` (0 when nothing answers)."""
        try:
            return self._http.get(self.app_url + "/healthz").status_code
        except httpx.HTTPError:
            return 0

    def stop(self) -> None:
        try:
            super().stop()
        finally:
            self._http.close()

    def rotate_keys(self) -> str:
        """Put a new Fernet key first, keep the old ones listed (``SUGGESTBOT_SECRET_KEYS``
        "<new>,<old>"); takes effect at the next start. Returns the new key."""
        new = generate_key()
        self.secret_keys = f"{new},{self.secret_keys}"
        self.all_keys.add(new)
        return new

    def keep_only_key(self, key: str) -> None:
        self.secret_keys = key

    # ------------------------------------------------------------------ people

    def user_token(self) -> str:
        token = super().user_token()
        self.user_tokens.append(token)
        return token

    def connect_all(self, *users: str) -> None:
        for user in users:
            self.connect(user)


# ---------------------------------------------------------------------- reading back


def database_snapshot(data_dir: Path) -> dict[str, dict[str, str]]:
    """Every table of the app's database, key → stored text, read without locking it for long."""
    path = data_dir / DB_FILENAME
    if not path.exists():
        return {}
    uri = f"file:{path}?mode=ro"
    snapshot: dict[str, dict[str, str]] = {}
    with closing(sqlite3.connect(uri, uri=True, timeout=10.0)) as conn:
        tables = [
            row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        ]
        for table in tables:
            rows = conn.execute(f'SELECT key, value FROM "{table}"').fetchall()
            snapshot[table] = {str(k): _as_text(v) for k, v in rows}
    return snapshot


def _as_text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def poll(condition: Callable[[], Any], *, timeout: float) -> Any:
    """Like ``wait_for`` but answers None on time-out: the caller decides what that means."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.02)
    return None


def metadata_of(message: dict[str, Any]) -> dict[str, Any]:
    """The app's own metadata on a message (``request_id``, ``role``, ``variant_no``)."""
    return (message.get("metadata") or {}).get("event_payload") or {}


def buttons_of(message: dict[str, Any]) -> list[str]:
    return [
        e["text"]["text"]
        for b in message.get("blocks") or []
        if b["type"] == "actions"
        for e in b["elements"]
    ]


def roots_by_tag(
    stage: Stage, tags: re.Pattern[str], channel: str | None = None
) -> dict[str, list[dict[str, Any]]]:
    """Top-level messages of a channel by the tags (matches of ``tags``) their blocks quote."""
    found: dict[str, list[dict[str, Any]]] = {}
    for message in stage.emu.messages(channel or stage.channel):
        for tag in set(tags.findall(json.dumps(message.get("blocks") or []))):
            found.setdefault(tag, []).append(message)
    return found


def brief_modal(stage: Stage, user: str) -> dict[str, Any] | None:
    """The brief modal on top of ``user``'s stack once it can be submitted (not "loading")."""
    view = stage.emu.current_view(user) or {}
    ready = view.get("callback_id") == "brief" and view.get("submit") is not None
    return view if ready else None


def brief_values(stage: Stage, user: str, text: str, variants: int) -> dict[str, str]:
    """What a person fills into the brief modal, by label in their language."""
    lang, demo = LANGS[user], stage.demo.primary
    return {
        t("brief.segment", lang): next(iter(demo.segments)),
        t("brief.use_case", lang): next(iter(demo.use_cases)),
        t("brief.text", lang): text,
        t("brief.variants", lang): str(variants),
    }


def send_brief_by_modal(stage: Stage, user: str, text: str, *, variants: int) -> ViewSubmission:
    """``/suggest brief``, wait for the modal, fill it in and submit (also saves the choices)."""
    stage.slack.slash_command(user, stage.channel, "brief")
    wait_for(lambda: brief_modal(stage, user), what=f"the brief modal for {user}")
    return stage.slack.submit_view(user, brief_values(stage, user, text, variants))


def runs_by_tag(
    stage: Stage, tags: re.Pattern[str], *, status: str | None = None
) -> dict[str, int]:
    """How many runs the service holds per tag quoted in their brief (of ``status``, if given)."""
    state = stage.sandbox.env.state
    with state.lock:
        texts = [
            str(run.request.get("steering_text") or "")
            for run in state.runs.values()
            if status is None or run.status == status
        ]
    counts: dict[str, int] = {}
    for text in texts:
        for tag in tags.findall(text):
            counts[tag] = counts.get(tag, 0) + 1
    return counts


def is_ready(root: dict[str, Any], *, user: str, variants: int) -> bool:
    return root.get("text") == tn("root.ready", CHANNEL_LANG, user=user, count=variants)


def result_problems(
    stage: Stage, root: dict[str, Any], *, user: str, variants: int, channel: str | None = None
) -> list[str]:
    """What is wrong with a brief's result as people see it: nothing when the root says its
    ``variants`` are ready and its thread holds exactly variants 1..n of it, each once."""
    problems = []
    if not is_ready(root, user=user, variants=variants):
        problems.append(f"root says {root.get('text')!r}")
    request_id = metadata_of(root).get("request_id")
    thread = stage.emu.messages(channel or stage.channel, thread_ts=root["ts"])[1:]
    # Several variants are shown side by side first (the gallery), then each in full.
    galleries = [m for m in thread if metadata_of(m).get("role") == "gallery"]
    if len(galleries) != (1 if variants > 1 else 0):
        problems.append(f"thread holds {len(galleries)} galleries for {variants} variants")
    thread = [m for m in thread if metadata_of(m).get("role") != "gallery"]
    numbers = sorted(metadata_of(m).get("variant_no") or 0 for m in thread)
    owners = {metadata_of(m).get("request_id") for m in thread}
    if numbers != list(range(1, variants + 1)) or owners - {request_id}:
        problems.append(f"thread holds variants {numbers} of {variants}")
    return problems


@contextmanager
def held_back(stage: Stage) -> Iterator[list[tuple[bytes, dict[str, Any]]]]:
    """Let the driver build and sign requests exactly like Slack, but keep them instead of
    sending: the test then delivers each body itself, as often and as altered as it likes."""
    bodies: list[tuple[bytes, dict[str, Any]]] = []

    def hold(body: bytes, **kwargs: Any) -> AppResponse:
        bodies.append((body, kwargs))
        return AppResponse(200, "", {}, 0.0)

    stage.slack.send = hold  # type: ignore[method-assign]
    try:
        yield bodies
    finally:
        del stage.slack.send


def requests_in_store(stage: ProcessStage) -> list[dict[str, Any]]:
    """The app's request records as stored (read from its database file)."""
    table = database_snapshot(stage.data_dir).get("requests", {})
    return [json.loads(value) for value in table.values()]


def leaks_to_slack(stage: Stage) -> list[str]:
    """Anything the app sent to Slack that looks like a traceback or an exception's name."""
    found = []
    for call in stage.emu.calls():
        shown = json.dumps({k: call.args.get(k) for k in ("text", "blocks", "view", "attachments")})
        found += [f"{call.method}: {m}" for m in LEAK_SHAPES.findall(shown)]
    return found


def generic_errors(stage: Stage) -> list[str]:
    """Ephemeral "something went wrong" notes: an unexpected error reached a person."""
    generic = re.compile(
        "|".join(
            re.escape(t("error.generic", lang, ref="@").split("@")[0]) for lang in ("en", "de")
        )
    )
    return [
        line
        for user in LANGS
        for line in stage.emu.ephemeral_transcript(user).splitlines()
        if generic.search(line)
    ]


def files_under(directory: Path) -> Iterator[Path]:
    return (p for p in sorted(directory.rglob("*")) if p.is_file())


def wait_quiet(
    read: Callable[[], Any], *, settle_s: float = 0.5, timeout: float = 10.0, what: str = "it"
) -> Any:
    """Wait until ``read()`` returns the same value for ``settle_s`` (the app acks first and
    works after, so "nothing happened" needs a moment of nothing happening)."""
    deadline = time.monotonic() + timeout
    last = read()
    since = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.05)
        now = read()
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= settle_s:
            return last
    raise TimeoutError(f"{what} kept changing for {timeout:.0f} s")


__all__ = [
    "DB_FILENAME",
    "LEAK_SHAPES",
    "SECRET_SHAPES",
    "Evidence",
    "ProcessStage",
    "StageEvidence",
    "brief_modal",
    "brief_values",
    "buttons_of",
    "database_snapshot",
    "files_under",
    "free_port",
    "generic_errors",
    "held_back",
    "is_ready",
    "leaks_to_slack",
    "metadata_of",
    "poll",
    "requests_in_store",
    "result_problems",
    "roots_by_tag",
    "runs_by_tag",
    "send_brief_by_modal",
    "signed_urls",
    "wait_for",
    "wait_quiet",
]


# What the ``process_stage`` fixture gives a test: a call that starts a stage (see conftest).
StageFactory = Callable[..., ProcessStage]
