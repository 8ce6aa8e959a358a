"""Command line entry point: parse arguments, hand over to the part that does the work.

Each part owns its own sub-command parser (``suggestbot.sandbox.cli`` for ``sandbox``), so this
module stays a thin dispatcher.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

# sub-command -> (module with ``main(argv) -> int``, one-line help)
_COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("suggestbot.server.serve", "run the Slack app (HTTP mode, or --socket-mode)"),
    "sandbox": ("suggestbot.sandbox.cli", "run or administer the local Content Suggestion Service"),
    "demo": ("suggestbot.demo", "run a scripted session on the sandbox and Slack emulator"),
    "backup": ("suggestbot.store_backup", "copy the live state file consistently to PATH"),
    "db": (
        "suggestbot.db_commands",
        "PostgreSQL: 'db upgrade' the schema, 'db migrate-from-sqlite PATH'",
    ),
    "rotate-keys": (
        "suggestbot.secret_keys",
        "re-encrypt every stored secret under the first SUGGESTBOT_SECRET_KEYS key",
    ),
}


def _usage() -> str:
    lines = ["usage: suggestbot <command> [options]", "", "commands:"]
    lines += [f"  {name:<11} {help_}" for name, (_, help_) in _COMMANDS.items()]
    lines.append("\nRun 'suggestbot <command> --help' for the options of a command.")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="suggestbot", usage=_usage(), add_help=False)
    parser.add_argument("command", nargs="?")
    parser.add_argument("-h", "--help", action="store_true")
    parser.add_argument("--version", action="store_true")
    known, rest = parser.parse_known_args(args[:1])
    if known.version:
        from suggestbot import __version__

        print(__version__)
        return 0
    if known.command is None or known.help:
        print(_usage())
        return 0
    if known.command not in _COMMANDS:
        print(f"suggestbot: unknown command {known.command!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    module_name, _ = _COMMANDS[known.command]
    entry: Callable[[list[str]], int] = importlib.import_module(module_name).main
    return entry(rest + args[1:])
