"""``suggestbot sandbox``: run the sandbox, or administer a running one over ``/sandbox/``.

Without a sub-command it starts a seeded server and prints its URL, the demo credentials and
the admin key. The sub-commands talk to a running sandbox (``--url``, ``--admin-key``, or the
``SUGGESTBOT_SANDBOX_URL`` / ``SUGGESTBOT_SANDBOX_ADMIN_KEY`` environment variables).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import Any

import httpx

from suggestbot.sandbox.admin import ADMIN_KEY_HEADER
from suggestbot.sandbox.core import Sandbox

_URL_ENV = "SUGGESTBOT_SANDBOX_URL"
_KEY_ENV = "SUGGESTBOT_SANDBOX_ADMIN_KEY"


class CliError(Exception):
    """A failed admin call, reported on stderr with exit code 1."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="suggestbot sandbox",
        description="Run the local Content Suggestion Service, or administer a running one.",
    )
    parser.add_argument("--port", type=int, default=8765, help="port to listen on (0 = any free)")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default loopback)")
    parser.add_argument("--data", type=Path, help="directory that keeps state across restarts")
    parser.add_argument("--admin-key", dest="serve_admin_key", help="admin key (random if unset)")
    parser.add_argument("--time-factor", type=float, default=1.0, help="scale run timings")
    parser.add_argument("--no-seed", action="store_true", help="start without the demo data")
    sub = parser.add_subparsers(dest="command", metavar="command")

    def admin_command(name: str, help_: str) -> argparse.ArgumentParser:
        cmd = sub.add_parser(name, help=help_, description=help_)
        cmd.add_argument("--url", default=None, help=f"sandbox base URL (or ${_URL_ENV})")
        cmd.add_argument("--admin-key", default=None, help=f"admin key (or ${_KEY_ENV})")
        return cmd

    admin_command("tenants", "list tenants, segments and use cases")
    cmd = admin_command("tenant", "create a tenant; prints its id")
    cmd.add_argument("--name", required=True)
    cmd.add_argument("--locale", choices=["en", "de"], required=True)
    cmd = admin_command("segment", "add a segment to a tenant; prints its id")
    cmd.add_argument("--tenant", required=True)
    cmd.add_argument("--name", required=True)
    cmd.add_argument("--description", default="")
    cmd.add_argument("--not-set-up", action="store_true", help="not set up for content")
    cmd = admin_command("use-case", "add a use case to a tenant; prints its id")
    cmd.add_argument("--tenant", required=True)
    cmd.add_argument("--name", required=True)
    cmd = admin_command("credential", "create a machine credential; prints id and secret")
    cmd.add_argument("--tenant", required=True)
    cmd.add_argument("--expires-in", type=float, help="seconds until the credential expires")
    cmd = admin_command("user-token", "mint a user token; prints the token")
    cmd.add_argument("--tenant", required=True)
    cmd.add_argument("--user", help="user id (a new one if unset)")
    cmd.add_argument("--json", action="store_true", help="print user_id and token as JSON")
    cmd = admin_command("revoke", "revoke a machine credential or a user token")
    group = cmd.add_mutually_exclusive_group(required=True)
    group.add_argument("--client-id", help="machine credential to revoke")
    group.add_argument(
        "--user-token-stdin", action="store_true", help="read the user token from stdin"
    )
    cmd = admin_command("steering", "switch generation from own instructions on or off")
    cmd.add_argument("--tenant", required=True)
    state = cmd.add_mutually_exclusive_group(required=True)
    state.add_argument("--on", dest="enabled", action="store_true")
    state.add_argument("--off", dest="enabled", action="store_false")
    cmd = admin_command("precompute", "run the overnight generation now")
    cmd.add_argument("--tenant", required=True)
    cmd.add_argument("--segment")
    cmd.add_argument("--use-case")
    cmd = admin_command("fault", "show, set or reset fault knobs")
    cmd.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=JSON",
        help="e.g. --set error_rate_5xx=0.2 --set 'latency_s={\"/v1/*\": 0.5}'",
    )
    cmd.add_argument("--reset", action="store_true", help="back to a well-behaved service")
    cmd = admin_command("counters", "show requests per endpoint")
    cmd.add_argument("--reset", action="store_true")
    return parser


def main(argv: Sequence[str]) -> int:
    """Entry point of ``suggestbot sandbox``; returns the exit code."""
    args = _parser().parse_args(list(argv))
    if args.command is None:
        return _serve(args)
    try:
        _run_admin(args)
    except CliError as exc:
        print(f"suggestbot sandbox {args.command}: {exc}", file=sys.stderr)
        return 1
    return 0


def _serve(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    sandbox = Sandbox(
        admin_key=args.serve_admin_key,
        time_factor=args.time_factor,
        data_dir=args.data,
        seed=not args.no_seed,
    )
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    with sandbox.serve(args.port, host=args.host) as server:
        lines = [f"Sandbox running at {server.url}", f"  admin key:       {sandbox.admin_key}"]
        if sandbox.demo is not None:
            for tenant in sandbox.demo.tenants:
                lines += [
                    f"  tenant:          {tenant.name} ({tenant.locale}) {tenant.tenant_id}",
                    f"    client id:     {tenant.client_id}",
                    f"    client secret: {tenant.client_secret}",
                    f"    user token:    {tenant.user_token} (user {tenant.user_id})",
                ]
        if args.data is not None:
            lines.append(f"  state kept in:   {args.data}")
        lines.append("Press Ctrl+C to stop.")
        print("\n".join(lines), flush=True)
        while not stop.wait(0.5):
            pass
    print("Sandbox stopped.", flush=True)
    return 0


def _client(args: argparse.Namespace) -> httpx.Client:
    url = args.url or os.environ.get(_URL_ENV)
    key = args.admin_key or os.environ.get(_KEY_ENV)
    if not url or not key:
        raise CliError(f"--url and --admin-key (or ${_URL_ENV} and ${_KEY_ENV}) are required")
    return httpx.Client(base_url=url, headers={ADMIN_KEY_HEADER: key}, timeout=10.0)


def _call(client: httpx.Client, method: str, path: str, body: Any = None) -> Any:
    try:
        response = client.request(method, path, json=body)
    except httpx.HTTPError as exc:
        raise CliError(f"cannot reach the sandbox ({type(exc).__name__})") from None
    if response.status_code >= 400:
        try:
            codes = ", ".join(e["code"] for e in response.json()["errors"])
        except (ValueError, KeyError, TypeError):
            codes = "no error body"
        raise CliError(f"HTTP {response.status_code} ({codes})")
    return response.json() if response.content else None


def _parse_setting(text: str) -> tuple[str, Any]:
    name, sep, raw = text.partition("=")
    if not sep or not name:
        raise CliError(f"--set expects NAME=JSON, got {text!r}")
    try:
        return name, json.loads(raw)
    except ValueError:
        return name, raw


def _run_admin(args: argparse.Namespace) -> None:
    with _client(args) as client:
        command = args.command
        if command == "tenants":
            _print_json(_call(client, "GET", "/sandbox/tenants")["data"])
        elif command == "tenant":
            body = {"name": args.name, "locale": args.locale}
            print(_call(client, "POST", "/sandbox/tenants", body)["id"])
        elif command == "segment":
            body = {
                "name": args.name,
                "description": args.description,
                "set_up": not args.not_set_up,
            }
            print(_call(client, "POST", f"/sandbox/tenants/{args.tenant}/segments", body)["id"])
        elif command == "use-case":
            print(
                _call(
                    client, "POST", f"/sandbox/tenants/{args.tenant}/use-cases", {"name": args.name}
                )["id"]
            )
        elif command == "credential":
            body = {"expires_in_s": args.expires_in}
            made = _call(client, "POST", f"/sandbox/tenants/{args.tenant}/credentials", body)
            print(f"client_id={made['client_id']}\nclient_secret={made['client_secret']}")
        elif command == "user-token":
            body = {"user_id": args.user}
            made = _call(client, "POST", f"/sandbox/tenants/{args.tenant}/user-tokens", body)
            if args.json:
                _print_json(made)
            else:
                print(made["token"])
                print(f"user id: {made['user_id']}", file=sys.stderr)
        elif command == "revoke":
            if args.client_id:
                _call(client, "POST", f"/sandbox/credentials/{args.client_id}/revoke")
            else:
                token = sys.stdin.readline().strip()
                _call(client, "POST", "/sandbox/user-tokens/revoke", {"token": token})
            print("revoked")
        elif command == "steering":
            body = {"enabled": args.enabled}
            done = _call(client, "PUT", f"/sandbox/tenants/{args.tenant}/steering", body)
            print(
                f"steering {'on' if done['enabled'] else 'off'}; failed runs: {done['failed_runs']}"
            )
        elif command == "precompute":
            body = {"segment_id": args.segment, "use_case_id": args.use_case}
            done = _call(client, "POST", f"/sandbox/tenants/{args.tenant}/precompute", body)
            print("\n".join(done["suggestion_set_ids"]))
        elif command == "fault":
            if args.reset:
                _call(client, "DELETE", "/sandbox/faults")
            if args.set:
                changes = dict(_parse_setting(item) for item in args.set)
                _call(client, "PATCH", "/sandbox/faults", changes)
            _print_json(_call(client, "GET", "/sandbox/faults"))
        elif command == "counters":
            _print_json(_call(client, "GET", "/sandbox/counters"))
            if args.reset:
                _call(client, "DELETE", "/sandbox/counters")


def _print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))
