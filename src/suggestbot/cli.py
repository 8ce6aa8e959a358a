"""Command line entry point: parse the command's name, hand the rest to the part that runs it.

Each part owns its own argument parser and a ``main(argv) -> int``; :data:`COMMANDS` below is
the whole list. A part is imported only when its command runs, so ``suggestbot --help`` starts
fast and one broken part cannot stop the others.

The product's commands are imported by statement. The stand-ins (``sandbox``) and the demo stay
apart from the product (``tests/test_layers.py``): they are named by module here and looked up
at run time, and ``tests/test_cli.py`` checks that each name resolves to a ``main``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Main = Callable[[list[str]], int]


@dataclass(frozen=True)
class Command:
    """One sub-command: a line of help and how to reach its ``main``."""

    help: str
    load: Callable[[], Main]


def _serve() -> Main:
    from suggestbot.server.serve import main

    return main


def _backup() -> Main:
    from suggestbot.store_backup import main

    return main


def _db() -> Main:
    from suggestbot.db_commands import main

    return main


def _rotate_keys() -> Main:
    from suggestbot.secret_keys import main

    return main


@dataclass(frozen=True)
class StandIn:
    """A stand-in's entry point, named by module so the product never imports it."""

    module: str

    def __call__(self) -> Main:
        main: Main = importlib.import_module(self.module).main
        return main


COMMANDS: dict[str, Command] = {
    "serve": Command(help="run the Slack app (HTTP mode, or --socket-mode)", load=_serve),
    "sandbox": Command(
        help="run or administer the local Content Suggestion Service",
        load=StandIn("suggestbot.sandbox.cli"),
    ),
    "demo": Command(
        help="run a scripted session on the sandbox and Slack emulator",
        load=StandIn("suggestbot.demo"),
    ),
    "backup": Command(help="copy the live state file consistently to PATH", load=_backup),
    "db": Command(
        help="PostgreSQL: 'db upgrade' the schema, 'db migrate-from-sqlite PATH'", load=_db
    ),
    "rotate-keys": Command(
        help="re-encrypt every stored secret under the first SUGGESTBOT_SECRET_KEYS key",
        load=_rotate_keys,
    ),
}


def _usage() -> str:
    lines = ["usage: suggestbot <command> [options]", "", "commands:"]
    lines += [f"  {name:<11} {command.help}" for name, command in COMMANDS.items()]
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
    command = COMMANDS.get(known.command)
    if command is None:
        print(f"suggestbot: unknown command {known.command!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    return command.load()(rest + args[1:])
