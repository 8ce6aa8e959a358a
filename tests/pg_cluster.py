"""A throwaway PostgreSQL cluster on loopback, for the tests (a session fixture) and for CI.

``initdb`` and ``pg_ctl`` refuse to run as root, so as root they run as the ``postgres`` user
(``runuser``), in a temporary directory owned by it. The server listens on 127.0.0.1 only, on a
free port, with a random password (scram-sha-256) and no Unix socket outside its directory.
``fsync`` is off for the tests: they kill the app, never the database server's host, and a
commit still waits for the server as in production. ``PgCluster(durable=True)`` keeps
PostgreSQL's own durability settings (``fsync`` and ``full_page_writes`` on), for benchmarks
whose figures must match production's.

As a script (what ``.ci/run`` does before the tests)::

    python tests/pg_cluster.py --check     # start a cluster, run a query, stop and remove it
"""

from __future__ import annotations

import argparse
import os
import pwd
import random
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Self

import psycopg

PG_MAJOR = "15"
SUPERUSER = "postgres"
INSTALL_HINT = "install it with: apt-get install postgresql-15"
# Starts on a newly picked port when another process took the first one meanwhile.
PORT_TRIES = 3


def find_bindir() -> Path:
    """Where PostgreSQL's server programs are (``PG_BINDIR`` overrides)."""
    candidates = [os.environ.get("PG_BINDIR"), f"/usr/lib/postgresql/{PG_MAJOR}/bin"]
    for candidate in candidates:
        if candidate and (Path(candidate) / "initdb").is_file():
            return Path(candidate)
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    raise RuntimeError(f"PostgreSQL {PG_MAJOR} is not installed (no initdb found): {INSTALL_HINT}")


def _free_port() -> int:
    """A loopback port nobody uses right now, below the kernel's ephemeral range.

    Some tests stop the server and start it again on its port; one from that range (what
    binding port 0 gives) could meanwhile be handed to any outgoing connection, of this process
    or of the other workers of a parallel run.
    """
    low = _ephemeral_low()
    candidates = list(range(max(1024, low - 12000), low - 1000))
    random.shuffle(candidates)
    for port in candidates[:200]:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free loopback port below the ephemeral range")


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default


class PgCluster:
    """One cluster; :meth:`start` it, :meth:`remove` it (stops the server, deletes the files)."""

    def __init__(self, *, durable: bool = False) -> None:
        self.durable = durable
        self.bindir = find_bindir()
        self.root = Path(tempfile.mkdtemp(prefix="suggestbot-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = _free_port()
        self.password = secrets.token_urlsafe(18)
        self._as_root = os.geteuid() == 0
        self._running = False

    # ------------------------------------------------------------------ lifecycle

    def _run(self, *args: str) -> None:
        prefix = ["runuser", "-u", SUPERUSER, "--"] if self._as_root else []
        done = subprocess.run(
            [*prefix, *args], capture_output=True, text=True, timeout=120, check=False
        )
        if done.returncode != 0:
            log = self.log.read_text() if self.log.exists() else ""
            raise RuntimeError(
                f"{Path(args[0]).name} failed ({done.returncode}):\n{done.stdout}{done.stderr}"
                f"\n{log[-4000:]}"
            )

    def start(self) -> Self:
        """Create the cluster and start its server (a few seconds)."""
        try:
            pwfile = self.root / "pwfile"
            pwfile.write_text(self.password + "\n")
            if self._as_root:
                owner = pwd.getpwnam(SUPERUSER)
                for path in (self.root, pwfile):
                    os.chown(path, owner.pw_uid, owner.pw_gid)
            os.chmod(self.root, 0o700)
            pwfile.chmod(0o600)
            self._run(
                str(self.bindir / "initdb"),
                "-D", str(self.data),
                "-U", SUPERUSER,
                "--auth=scram-sha-256",
                f"--pwfile={pwfile}",
                "-E", "UTF8",
                "--locale=C.UTF-8",
                "--no-sync",
                "--no-instructions",
            )  # fmt: skip
            pwfile.unlink()
            for _ in range(PORT_TRIES - 1):
                try:
                    self.start_server()
                    break
                except RuntimeError:
                    if not self._port_was_taken():
                        raise
                    self.port = _free_port()  # another process took it since it was picked
            else:
                self.start_server()
        except BaseException:
            self.remove()
            raise
        return self

    def start_server(self) -> None:
        settings = [
            "-c listen_addresses=127.0.0.1",
            f"-p {self.port}",
            f"-c unix_socket_directories={self.root}",
            "-c max_connections=300",
        ]
        if not self.durable:
            settings += ["-c fsync=off", "-c full_page_writes=off"]
        options = " ".join(settings)
        self._run(
            str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.log),
            "-o", options, "-w", "-t", "60", "start",
        )  # fmt: skip
        self._running = True

    def _port_was_taken(self) -> bool:
        log = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "could not bind" in log or "Address already in use" in log

    def stop_server(self) -> None:
        if self._running:
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")
            self._running = False

    def remove(self) -> None:
        try:
            self.stop_server()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    # ------------------------------------------------------------------ databases

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}:{self.password}@127.0.0.1:{self.port}/{database}"

    @contextmanager
    def admin(self) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
        with psycopg.connect(
            host="127.0.0.1",
            port=self.port,
            user=SUPERUSER,
            password=self.password,
            dbname="postgres",
            autocommit=True,
        ) as connection:
            yield connection

    def create_database(self, name: str, *, template: str | None = None) -> str:
        """Create database ``name`` (a copy of ``template`` if given); returns its URL."""
        clause = f' TEMPLATE "{template}"' if template else ""
        with self.admin() as connection:
            connection.execute(f'CREATE DATABASE "{name}"{clause}'.encode())
        return self.url(name)

    def drop_database(self, name: str) -> None:
        with self.admin() as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'.encode())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="start, query, stop and remove")
    parser.parse_args(argv)
    cluster = PgCluster().start()
    try:
        with cluster.admin() as connection:
            row = connection.execute("SHOW server_version").fetchone()
        print(f"PostgreSQL {row[0] if row else '?'} started on 127.0.0.1:{cluster.port}")
    finally:
        cluster.remove()
    print("stopped and removed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
