"""Several replicas of the app on one PostgreSQL, behind the loopback balancer.

:class:`ClusterStage` is the end-to-end :class:`~suggestbot.demo.stage.Stage` (sandbox and
Slack emulator in the test process) with the app as ``replicas`` separate
``python -m suggestbot serve`` processes, each on a fixed loopback port of its own and all on
one database, and the Slack driver sending to the :class:`~balancer.Balancer` in front of
them. Each replica is started, stopped (SIGTERM, the operator's way) and killed on its own.

Also here: :class:`RetryingDriver`, the Slack driver that retries an Events API delivery the
way Slack does (slash commands it never retries), and :class:`RandomKills`, which SIGKILLs a
replica picked at random now and then and starts it again, from a seed a failure can replay.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from balancer import Balancer
from reliability_harness import free_port

from suggestbot.demo.stage import SIGNING_SECRET, Stage
from suggestbot.slackapp.http import EVENTS_PATH
from suggestbot.slackemu import SlackDriver
from suggestbot.slackemu.results import AppResponse

START_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 60.0
# Slack's Events API: an event not acknowledged with a 2xx within 3 s is sent again, up to
# three times ("Retries" in Slack's Events API docs: nearly at once, after a minute, after five
# minutes; shortened here, in the same order).
EVENT_ACK_TIMEOUT_S = 3.0
EVENT_RETRY_DELAYS_S = (0.2, 1.0, 3.0)
FAKETIME_HINT = "install it with: apt-get install faketime"


def libfaketime() -> str:
    """The libfaketime library that the ``faketime`` command preloads."""
    if shutil.which("faketime") is None:
        raise RuntimeError(f"faketime is not installed: {FAKETIME_HINT}")
    found = sorted(Path("/usr/lib").glob("*/faketime/libfaketime.so.1")) + sorted(
        Path("/usr/lib/faketime").glob("libfaketime.so.1")
    )
    if not found:
        raise RuntimeError(f"libfaketime.so.1 not found: {FAKETIME_HINT}")
    return str(found[0])


# The app under libfaketime with its monotonic clock left alone. libfaketime 0.9.10 (Debian
# 12) then fails Python's ``time.sleep`` (``clock_nanosleep`` on the monotonic clock with an
# absolute deadline) with EINVAL, while faking the monotonic clock too hangs every lock and
# event wait with a timeout (``sem_clockwait`` is not faked): so ``time.sleep`` waits on an
# event instead, whose timeout is a relative wait the library leaves alone. ``clock`` prints
# ``time.time()`` (to check the offset); anything else is ``suggestbot``'s command line.
UNDER_FAKETIME = """
import sys, threading, time
if sys.argv[1:] == ["clock"]:
    print(time.time())
    raise SystemExit(0)
_never = threading.Event()
time.sleep = lambda seconds: _never.wait(max(seconds, 0.0)) and None
from suggestbot.cli import main
raise SystemExit(main(sys.argv[1:]))
"""


class Replica:
    """One ``suggestbot serve`` process; its output goes to ``log_path`` across restarts.

    ``clock_offset_s``: run it under ``faketime`` with its wall clock that far ahead (or
    behind, when negative) of the host's; its monotonic clock is left alone, as a host whose
    clock is off or stepped has it.
    """

    def __init__(
        self,
        *,
        name: str,
        env: dict[str, str],
        workdir: Path,
        log_path: Path,
        clock_offset_s: float = 0.0,
    ) -> None:
        self.name = name
        self.clock_offset_s = clock_offset_s
        self.port = free_port()
        self.env = {**env, "PORT": str(self.port)}
        self.workdir = workdir
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None
        self.pids: list[int] = []  # every process started, in order
        self.starts = 0
        self.exit_codes: list[int] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def command(self, *args: str) -> tuple[list[str], dict[str, str]]:
        """``python -m suggestbot args`` as this replica runs it (under ``faketime`` when its
        clock is off), and its environment."""
        if not self.clock_offset_s:
            return [sys.executable, "-m", "suggestbot", *args], self.env
        # libfaketime preloaded into the interpreter itself, as the ``faketime`` command does,
        # but without that command's process in between: it forks, and a SIGKILL or SIGTERM
        # sent to it would leave the app running.
        env = {
            **self.env,
            "LD_PRELOAD": libfaketime(),
            "FAKETIME": f"{self.clock_offset_s:+.0f}s",
            "DONT_FAKE_MONOTONIC": "1",
        }
        return [sys.executable, "-c", UNDER_FAKETIME, *args], env

    def clock_offset(self) -> float:
        """How far this replica's ``time.time()`` is from this process's, measured with the
        interpreter, wrapper and environment its processes get."""
        if self.clock_offset_s:
            argv, env = self.command("clock")
        else:
            argv, env = [sys.executable, "-c", "import time; print(time.time())"], self.env
        shown = float(subprocess.run(argv, env=env, capture_output=True, check=True).stdout)
        return shown - time.time()  # printed as it exits: read here a few milliseconds later

    def start(self) -> None:
        """Start it and wait until ``/readyz`` says it takes traffic."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as log:
            log.write(f"--- start {self.starts + 1}\n".encode())
            log.flush()
            argv, env = self.command("serve", "--host", "127.0.0.1")
            self.process = subprocess.Popen(
                argv,
                env=env,
                cwd=self.workdir,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        self.starts += 1
        self.pids.append(self.process.pid)
        deadline = time.monotonic() + START_TIMEOUT_S
        with httpx.Client(timeout=2.0) as client:
            while True:
                if self.process.poll() is not None:
                    raise RuntimeError(f"{self.name} exited while starting:\n{self.log_tail()}")
                try:
                    if client.get(self.url + "/readyz").status_code == 200:
                        return
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{self.name} did not become ready:\n{self.log_tail()}")
                time.sleep(0.05)

    def send_sigterm(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)

    def wait(self) -> int:
        """Wait for the exit (after a signal); returns its code and forgets the process."""
        assert self.process is not None
        code = self.process.wait(timeout=STOP_TIMEOUT_S)
        self.exit_codes.append(code)
        self.process = None
        return code

    def terminate(self) -> int:
        self.send_sigterm()
        return self.wait()

    def kill(self) -> int | None:
        """SIGKILL it; the process id it had (None when it was not running)."""
        pid = None
        if self.process is not None and self.process.poll() is None:
            pid = self.process.pid
            os.kill(pid, signal.SIGKILL)
            self.process.wait(timeout=STOP_TIMEOUT_S)
        self.process = None
        return pid

    def log_text(self) -> str:
        return self.log_path.read_text("utf-8", "replace") if self.log_path.exists() else ""

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])


class ClusterStage(Stage):
    """The stage with ``replicas`` app processes on ``database_url`` behind a balancer.

    Args:
        data_dir: parent of each replica's working directory (nothing is kept there: the
            state is in the database).
        database_url: a database at the newest schema.
        replicas: how many app processes.
        drain_s: each replica's ``SUGGESTBOT_DRAIN_SECONDS``.
        event_retries: Slack retries events until they are acknowledged
            (:class:`RetryingDriver`).
        log_level: each replica's ``LOG_LEVEL`` (DEBUG shows every Slack call: a test that
            makes thousands of them may keep INFO, to leave the CPU to the work).
        slack_gate: the replicas keep within Slack's rate limits (``SUGGESTBOT_SLACK_GATE``).
            Off for a test whose load is more than Slack lets through in its waits (briefs
            poured into one channel many times faster than one post a second): it says so.
        clock_offsets_s: each replica's wall clock off the host's by this much (the first
            replica the first offset; missing ones 0), under ``faketime``.
        replica_env: more environment for the replica of that name (``replica-2``): what
            the runtime reads, not the app (``MALLOC_ARENA_MAX``), to compare two processes.
        lease_s: each replica's ``SUGGESTBOT_LEASE_SECONDS`` (None: the default, one scaled
            poll interval, 2 s at the stage's schedule).
        options: the rest of :class:`Stage`'s options.
    """

    def __init__(
        self,
        *,
        data_dir: Path,
        database_url: str,
        replicas: int = 2,
        drain_s: float = 1.0,
        event_retries: bool = False,
        log_level: str = "DEBUG",
        slack_gate: bool = True,
        clock_offsets_s: tuple[float, ...] = (),
        lease_s: float | None = None,
        replica_env: dict[str, dict[str, str]] | None = None,
        **options: Any,
    ) -> None:
        super().__init__(data_dir=data_dir, database_url=database_url, **options)
        # Replicas killed at random while briefs pour into one channel: a test of exactly-once
        # that needs unlimited calls (Slack's budget is tested in tests/slack and bench/).
        self.emu.rationing.off()
        self.replica_count = replicas
        self.drain_s = drain_s
        self.event_retries = event_retries
        self.log_level = log_level
        self.slack_gate = slack_gate
        self.clock_offsets_s = clock_offsets_s
        self.lease_s = lease_s
        self.replica_env = replica_env or {}
        self.replicas: list[Replica] = []
        self.balancer: Balancer | None = None

    def app_env(self) -> dict[str, str]:
        """The operator's environment: the documented variables and nothing else but what
        finds the interpreter."""
        demo = self.demo
        assert self.database_url is not None
        env = {
            "SLACK_BOT_TOKEN": self.emu.bot_token,
            "SLACK_SIGNING_SECRET": SIGNING_SECRET,
            "SLACK_API_URL": self.emu.api_url,
            "CONTENT_API_URL": self.sandbox_url,
            "CONTENT_CLIENT_ID": demo.client_id,
            "CONTENT_CLIENT_SECRET": demo.client_secret,
            "SUGGESTBOT_SECRET_KEYS": self.secret_keys,
            "SUGGESTBOT_DATABASE_URL": self.database_url,
            "SUGGESTBOT_POLL_SCALE": str(self.poll_scale),
            "SUGGESTBOT_DRAIN_SECONDS": str(self.drain_s),
            "LOG_LEVEL": self.log_level,
        }
        if not self.slack_gate:
            env["SUGGESTBOT_SLACK_GATE"] = "false"
        if self.lease_s is not None:
            env["SUGGESTBOT_LEASE_SECONDS"] = str(self.lease_s)
        for name in ("PATH", "TMPDIR", "LANG"):
            if name in os.environ:
                env[name] = os.environ[name]
        return env

    def start_app(self) -> Any:
        if not self.replicas:
            env = self.app_env()
            for number in range(1, self.replica_count + 1):
                workdir = self.data_dir / f"replica-{number}"
                self.replicas.append(
                    Replica(
                        name=f"replica-{number}",
                        env={
                            **env,
                            "SUGGESTBOT_DATA_DIR": str(workdir / "data"),
                            **self.replica_env.get(f"replica-{number}", {}),
                        },
                        workdir=workdir,
                        log_path=self.data_dir / f"replica-{number}.log",
                        clock_offset_s=dict(enumerate(self.clock_offsets_s, 1)).get(number, 0.0),
                    )
                )
        for replica in self.replicas:
            if replica.process is None:
                replica.start()
        if self.balancer is None:
            self.balancer = Balancer([r.url for r in self.replicas]).start()
        if self.driver is None:
            driver = RetryingDriver if self.event_retries else SlackDriver
            self.driver = driver(
                self.emu, app_url=self.balancer.url + EVENTS_PATH, signing_secret=SIGNING_SECRET
            )
        return self.replicas

    def stop_app(self, *, graceful: bool = True) -> None:
        for replica in self.replicas:
            if replica.process is None:
                continue
            if graceful:
                replica.send_sigterm()
            else:
                replica.kill()
        for replica in self.replicas:
            if replica.process is not None:
                try:
                    replica.wait()
                except subprocess.TimeoutExpired:
                    replica.kill()
        if self.balancer is not None:
            self.balancer.stop()
            self.balancer = None

    def logs(self) -> str:
        return "\n".join(replica.log_text() for replica in self.replicas)


@dataclass
class EventDelivery:
    """One event as Slack delivered it: the outcome of each attempt (``200``, ``502``,
    ``"http_timeout"``, ``"unknown_error"``), the first attempt first."""

    event_id: str
    attempts: list[int | str] = field(default_factory=list)

    @property
    def acknowledged(self) -> bool:
        return any(isinstance(a, int) and 200 <= a < 300 for a in self.attempts)


class RetryingDriver(SlackDriver):
    """The Slack driver with Slack's retries of Events API deliveries.

    An event whose delivery is not answered with a 2xx within :data:`EVENT_ACK_TIMEOUT_S` (an
    error status, a refused or cut connection, a slow answer) is sent again with the same
    ``event_id`` and ``X-Slack-Retry-Num``/``X-Slack-Retry-Reason``, up to three times; then
    Slack gives up. Each event's attempts are kept in :attr:`deliveries`. Slash commands are
    never retried (as in Slack: the user sees ``dispatch_failed``).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.deliveries: list[EventDelivery] = []
        self._deliveries_lock = threading.Lock()

    def event(
        self,
        event: dict[str, Any],
        *,
        event_id: str | None = None,
        retry_num: int | None = None,
        retry_reason: str | None = None,
    ) -> AppResponse:
        if retry_num is not None:  # the caller sends a retry of its own
            return super().event(
                event, event_id=event_id, retry_num=retry_num, retry_reason=retry_reason
            )
        delivery = EventDelivery(event_id or self.new_event_id())
        with self._deliveries_lock:
            self.deliveries.append(delivery)
        body = self.event_body(event, event_id=delivery.event_id)
        last: AppResponse | None = None
        headers: dict[str, str] = {}
        with httpx.Client(timeout=EVENT_ACK_TIMEOUT_S) as client:
            for attempt in range(len(EVENT_RETRY_DELAYS_S) + 1):
                if attempt:
                    time.sleep(EVENT_RETRY_DELAYS_S[attempt - 1])
                try:
                    last = self.send(
                        body, content_type="application/json", headers=headers, client=client
                    )
                except httpx.TimeoutException:
                    delivery.attempts.append("http_timeout")
                except httpx.TransportError:
                    delivery.attempts.append("unknown_error")
                else:
                    delivery.attempts.append(last.status)
                    if 200 <= last.status < 300:
                        return last
                reason = delivery.attempts[-1]
                headers = {
                    "X-Slack-Retry-Num": str(attempt + 1),
                    "X-Slack-Retry-Reason": reason if isinstance(reason, str) else "http_error",
                }
        return last if last is not None else AppResponse(0, "", {}, EVENT_ACK_TIMEOUT_S)


@dataclass(frozen=True)
class Kill:
    """One SIGKILL: which replica, when (seconds since the kills started), the process it
    ended and when on this host's wall clock (0 and 0.0 when it was not running)."""

    replica: str
    at_s: float
    pid: int = 0
    at: float = 0.0


class RandomKills:
    """SIGKILLs a replica picked at random every ``every_s`` (a random span within it), keeps
    it down for ``down_s`` (likewise) and starts it again, until :meth:`stop`.

    One replica is down at a time, so the others keep taking traffic. Every choice comes from
    ``rng``: the same seed kills the same replicas in the same order.
    """

    def __init__(
        self,
        stage: ClusterStage,
        *,
        rng: random.Random,
        every_s: tuple[float, float] = (3.0, 6.0),
        down_s: tuple[float, float] = (0.1, 1.5),
    ) -> None:
        self.stage = stage
        self.rng = rng
        self.every_s = every_s
        self.down_s = down_s
        self.kills: list[Kill] = []
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="random-kills")
        self._started = 0.0

    def start(self) -> RandomKills:
        self._started = time.monotonic()
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.rng.uniform(*self.every_s)):
            replica = self.rng.choice(self.stage.replicas)
            pid = replica.kill()
            at_s = round(time.monotonic() - self._started, 1)
            self.kills.append(Kill(replica.name, at_s, pid or 0, time.time()))
            time.sleep(self.rng.uniform(*self.down_s))
            try:
                replica.start()
            except (RuntimeError, TimeoutError) as exc:  # the test fails on it, with the log
                self.errors.append(f"{replica.name} did not start again: {exc}")
                return

    def stop(self, *, at_least: int = 0, timeout: float = 300.0) -> None:
        """Stop after at least ``at_least`` kills (waiting for them if needed); every replica
        is running again when this returns."""
        deadline = time.monotonic() + timeout
        while len(self.kills) < at_least and self._thread.is_alive():
            if time.monotonic() > deadline:
                break
            time.sleep(0.1)
        self._stop.set()
        self._thread.join(timeout=timeout)


__all__ = ["ClusterStage", "EventDelivery", "Kill", "RandomKills", "Replica", "RetryingDriver"]
