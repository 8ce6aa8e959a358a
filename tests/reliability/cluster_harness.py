"""Several replicas of the app on one PostgreSQL, behind the loopback balancer.

:class:`ClusterStage` is the end-to-end :class:`~suggestbot.demo.stage.Stage` (sandbox and
Slack emulator in the test process) with the app as ``replicas`` separate
``python -m suggestbot serve`` processes, each on a fixed loopback port of its own and all on
one database, and the Slack driver sending to the :class:`~balancer.Balancer` in front of
them. Each replica is started, stopped (SIGTERM, the operator's way) and killed on its own.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from balancer import Balancer
from reliability_harness import free_port

from suggestbot.demo.stage import SIGNING_SECRET, Stage
from suggestbot.slackapp.http import EVENTS_PATH
from suggestbot.slackemu import SlackDriver

START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 60.0


class Replica:
    """One ``suggestbot serve`` process; its output goes to ``log_path`` across restarts."""

    def __init__(self, *, name: str, env: dict[str, str], workdir: Path, log_path: Path) -> None:
        self.name = name
        self.port = free_port()
        self.env = {**env, "PORT": str(self.port)}
        self.workdir = workdir
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.exit_codes: list[int] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start it and wait until ``/readyz`` says it takes traffic."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as log:
            log.write(f"--- start {self.starts + 1}\n".encode())
            log.flush()
            self.process = subprocess.Popen(
                [sys.executable, "-m", "suggestbot", "serve", "--host", "127.0.0.1"],
                env=self.env,
                cwd=self.workdir,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        self.starts += 1
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

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=STOP_TIMEOUT_S)
        self.process = None

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
        options: the rest of :class:`Stage`'s options.
    """

    def __init__(
        self,
        *,
        data_dir: Path,
        database_url: str,
        replicas: int = 2,
        drain_s: float = 1.0,
        **options: Any,
    ) -> None:
        super().__init__(data_dir=data_dir, database_url=database_url, **options)
        self.replica_count = replicas
        self.drain_s = drain_s
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
            "LOG_LEVEL": "DEBUG",
        }
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
                        env={**env, "SUGGESTBOT_DATA_DIR": str(workdir / "data")},
                        workdir=workdir,
                        log_path=self.data_dir / f"replica-{number}.log",
                    )
                )
        for replica in self.replicas:
            if replica.process is None:
                replica.start()
        if self.balancer is None:
            self.balancer = Balancer([r.url for r in self.replicas]).start()
        if self.driver is None:
            self.driver = SlackDriver(
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


__all__ = ["ClusterStage", "Replica"]
