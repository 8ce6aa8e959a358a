"""``python -m suggestbot serve`` as a child process, configured by environment variables only,
against the sandbox and the Slack emulator served in the test process.

Imported by name (not a conftest) so the module name cannot clash with other test folders.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Self

SERVING = re.compile(r"serving Slack at http://127\.0\.0\.1:(\d+)/slack/events")


class ServeProcess:
    """One run of ``suggestbot serve``; its stderr is collected line by line.

    Args:
        env: the variables it is configured with (nothing else of the test's environment
            leaks in but ``PATH``).
        cwd: its working directory (no ``.env`` of the repository is read from there).
    """

    def __init__(self, env: dict[str, str], *, cwd: Path) -> None:
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **env}
        self.cwd = cwd
        self.lines: list[str] = []
        self._lock = threading.Lock()
        self._process: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None

    def start(self) -> Self:
        self._process = subprocess.Popen(
            [sys.executable, "-m", "suggestbot", "serve", "--host", "127.0.0.1"],
            env=self.env,
            cwd=self.cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._reader = threading.Thread(target=self._read, name="serve-stderr", daemon=True)
        self._reader.start()
        return self

    def _read(self) -> None:
        assert self._process is not None and self._process.stderr is not None
        for line in self._process.stderr:
            with self._lock:
                self.lines.append(line.rstrip("\n"))

    @property
    def output(self) -> str:
        with self._lock:
            return "\n".join(self.lines)

    def wait_for_output(self, pattern: re.Pattern[str], *, timeout: float = 60.0) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while True:
            found = pattern.search(self.output)
            if found:
                return found
            if self._process is not None and self._process.poll() is not None:
                raise RuntimeError(
                    f"serve exited early ({self._process.returncode}):\n{self.output}"
                )
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {pattern.pattern!r} in:\n{self.output}")
            time.sleep(0.02)

    @property
    def port(self) -> int:
        return int(self.wait_for_output(SERVING).group(1))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self._process is not None
        return self._process.pid

    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def send_sigterm(self) -> None:
        assert self._process is not None
        self._process.send_signal(signal.SIGTERM)

    def terminate(self, *, timeout: float = 60.0) -> int:
        """SIGTERM, then wait for the exit; returns the exit code."""
        self.send_sigterm()
        return self.wait(timeout=timeout)

    def wait(self, *, timeout: float = 60.0) -> int:
        assert self._process is not None
        code = self._process.wait(timeout=timeout)
        if self._reader is not None:
            self._reader.join(timeout=10)
        return code

    def kill(self) -> None:
        """Clean-up after a failed test: no process outlives it."""
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait(timeout=30)
        if self._reader is not None:
            self._reader.join(timeout=10)
