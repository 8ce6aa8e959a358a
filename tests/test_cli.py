"""``suggestbot``: the command table, as a user at a shell sees it."""

from __future__ import annotations

import inspect

import pytest

from suggestbot import __version__, cli

USAGE = """\
usage: suggestbot <command> [options]

commands:
  serve       run the Slack app (HTTP mode, or --socket-mode)
  sandbox     run or administer the local Content Suggestion Service
  demo        run a scripted session on the sandbox and Slack emulator
  backup      copy the live state file consistently to PATH
  db          PostgreSQL: 'db upgrade' the schema, 'db migrate-from-sqlite PATH'
  rotate-keys re-encrypt every stored secret under the first SUGGESTBOT_SECRET_KEYS key

Run 'suggestbot <command> --help' for the options of a command.
"""


@pytest.mark.parametrize("argv", [[], ["--help"], ["-h"]])
def test_help_lists_every_command(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(argv) == 0
    assert capsys.readouterr().out == USAGE


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out == f"{__version__}\n"


def test_an_unknown_command_is_named_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["translate"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("suggestbot: unknown command 'translate'\n\n")
    assert err.endswith(USAGE)


@pytest.mark.parametrize("name", list(cli.COMMANDS))
def test_each_command_hands_its_arguments_to_its_own_parser(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main([name, "--help"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: suggestbot {name}")


@pytest.mark.parametrize("name", list(cli.COMMANDS))
def test_each_entry_point_is_a_main_of_argv(name: str) -> None:
    """Stand-ins are named by module: a renamed module or ``main`` fails here, not in a shell."""
    main = cli.COMMANDS[name].load()
    assert callable(main)
    assert list(inspect.signature(main).parameters) == ["argv"]
