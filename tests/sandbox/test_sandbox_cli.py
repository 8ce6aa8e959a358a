"""``suggestbot sandbox``: starting a seeded server, and the admin sub-commands."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from suggestbot.sandbox import Sandbox, SandboxServer
from suggestbot.sandbox.cli import main


def _read_banner(process: subprocess.Popen[str]) -> list[str]:
    lines: list[str] = []
    assert process.stdout is not None
    for line in process.stdout:
        lines.append(line.rstrip("\n"))
        if line.startswith("Press Ctrl+C"):
            return lines
    raise AssertionError(f"server ended early: {lines}")


def test_cli_starts_a_seeded_server_and_prints_url_and_demo_credentials(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "suggestbot",
            "sandbox",
            "--port",
            "0",
            "--admin-key",
            "cli-key",
            "--data",
            str(tmp_path),
            "--time-factor",
            "0.01",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        banner = _read_banner(process)
        text = "\n".join(banner)
        url = re.search(r"http://127\.0\.0\.1:\d+", text)
        assert url is not None
        client_id = re.search(r"client id:\s+(\S+)", text)
        secret = re.search(r"client secret:\s+(\S+)", text)
        assert client_id and secret
        assert "cli-key" in text
        form = {
            "grant_type": "client_credentials",
            "client_id": client_id.group(1),
            "client_secret": secret.group(1),
        }
        with httpx.Client(base_url=url.group(0)) as http:
            token = http.post("/auth/token", data=form).json()["access_token"]
            segments = http.get("/v1/segments", headers={"Authorization": f"Bearer {token}"})
            assert len(segments.json()["data"]) == 2
    finally:
        process.terminate()
        out, err = process.communicate(timeout=20)
    assert process.returncode == 0, err
    assert "Sandbox stopped." in out
    assert (tmp_path / "sandbox-state.json").exists()


@pytest.fixture
def served() -> Iterator[tuple[Sandbox, SandboxServer]]:
    sandbox = Sandbox(time_factor=0.01, admin_key="cli-test-key")
    with sandbox.serve(worker=False) as server:
        yield sandbox, server


def _cli(server: SandboxServer, *args: str) -> list[str]:
    return [args[0], "--url", server.url, "--admin-key", "cli-test-key", *args[1:]]


def test_cli_user_token_prints_a_working_token(
    served: tuple[Sandbox, SandboxServer], capsys: pytest.CaptureFixture[str]
) -> None:
    sandbox, server = served
    assert sandbox.demo is not None
    user_id = "0190c0de-0000-7000-8000-0000000000aa"
    code = main(_cli(server, "user-token", "--tenant", sandbox.demo.tenant_id, "--user", user_id))
    assert code == 0
    token = capsys.readouterr().out.strip()
    assert token.startswith("sbx_ut_")
    with httpx.Client(base_url=server.url) as http:
        me = http.get("/v1/me", headers={"Authorization": f"Bearer {token}"})
        assert me.json()["active_tenant"]["id"] == sandbox.demo.tenant_id
        runs = http.get(
            "/v1/generation-runs",
            params={"created_by": user_id},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert runs.status_code == 200


def test_cli_admin_sub_commands_wrap_the_admin_surface(
    served: tuple[Sandbox, SandboxServer],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sandbox, server = served
    demo = sandbox.demo
    assert demo is not None
    assert main(_cli(server, "steering", "--tenant", demo.tenant_id, "--off")) == 0
    assert not sandbox.env.state.tenants[demo.tenant_id].steering_enabled
    assert main(_cli(server, "steering", "--tenant", demo.tenant_id, "--on")) == 0
    assert sandbox.env.state.tenants[demo.tenant_id].steering_enabled
    capsys.readouterr()

    assert main(_cli(server, "precompute", "--tenant", demo.tenant_id)) == 0
    assert len(capsys.readouterr().out.split()) == 6

    assert main(_cli(server, "fault", "--set", "short_pages=3", "--set", "stall_next_runs=1")) == 0
    assert (sandbox.faults.short_pages, sandbox.faults.stall_next_runs) == (3, 1)
    assert main(_cli(server, "fault", "--reset")) == 0
    assert sandbox.faults.short_pages == 0
    capsys.readouterr()

    assert main(_cli(server, "credential", "--tenant", demo.tenant_id)) == 0
    printed = dict(line.split("=", 1) for line in capsys.readouterr().out.split())
    assert main(_cli(server, "revoke", "--client-id", printed["client_id"])) == 0
    assert sandbox.env.state.credentials[printed["client_id"]].revoked

    _, token = sandbox.create_user_token(demo.tenant_id)
    monkeypatch.setattr(sys, "stdin", io.StringIO(token + "\n"))
    assert main(_cli(server, "revoke", "--user-token-stdin")) == 0
    with httpx.Client(base_url=server.url) as http:
        me = http.get("/v1/me", headers={"Authorization": f"Bearer {token}"})
        assert me.status_code == 401


def test_cli_reports_admin_errors_with_exit_code_1(
    served: tuple[Sandbox, SandboxServer], capsys: pytest.CaptureFixture[str]
) -> None:
    _, server = served
    code = main(["tenants", "--url", server.url, "--admin-key", "wrong"])
    assert code == 1
    assert "HTTP 401 (unauthorized)" in capsys.readouterr().err
