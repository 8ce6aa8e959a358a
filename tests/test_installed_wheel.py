"""The package as a user installs it: the wheel built from what the Dockerfile copies, installed
into a fresh virtual environment without extras, run from a directory that is not a checkout.

Nothing at run time may need the source tree (``manifest.yml``) or a test-only dependency
(PyYAML, pytest): every command answers ``--help``, ``suggestbot demo`` works end to end and
``suggestbot db upgrade`` finds the migrations the wheel ships. The Dockerfile runs the same
``--help`` smoke step when the image is built.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from suggestbot.cli import COMMANDS
from suggestbot.store.errors import SchemaNotCurrent
from suggestbot.store.postgres import PostgresStore

ROOT = Path(__file__).resolve().parents[1]
# What the Dockerfile copies into the image before `pip install .`.
BUILD_CONTEXT = ("pyproject.toml", "README.md", "LICENSE", "src")
TEST_ONLY = ("yaml", "pytest", "xdist", "mypy")
IMAGES_LOADED = re.compile(r"Images: (\d+) image URLs the app posted were fetched; all loaded")


class Installed:
    def __init__(self, venv: Path, workdir: Path) -> None:
        self.venv = venv
        self.workdir = workdir

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("PYTHON", "SUGGESTBOT_", "SLACK_", "CONTENT_", "PYTEST"))
            and k != "VIRTUAL_ENV"
        }
        env["PATH"] = f"{self.venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        return env | extra

    def run(self, *args: str, timeout: float = 60, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.venv / "bin" / args[0]), *args[1:]],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=self.workdir,
            env=self.env(**env),
            check=False,
        )


def _checked(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    base = tmp_path_factory.mktemp("wheel")
    context = base / "context"
    context.mkdir()
    for name in BUILD_CONTEXT:
        source = ROOT / name
        if source.is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
            shutil.copytree(source, context / name, ignore=ignore)
        else:
            shutil.copy2(source, context / name)
    dist = base / "dist"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    _checked(
        subprocess.run(
            [*pip, "wheel", str(context), "--no-deps", "--quiet", "-w", str(dist)],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    )
    [wheel] = dist.glob("suggestbot-*.whl")
    venv = base / "venv"
    # A fresh environment: not the one running the tests, no system site-packages.
    _checked(
        subprocess.run(
            [sys.executable, "-m", "venv", str(venv)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    )
    workdir = base / "elsewhere"
    workdir.mkdir()
    found = Installed(venv, workdir)
    _checked(
        found.run(
            "python",
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            str(wheel),
            timeout=600,
        )
    )
    yield found


def test_the_wheel_is_installed_alone_without_test_dependencies(installed: Installed) -> None:
    where = _checked(installed.run("python", "-c", "import suggestbot; print(suggestbot.__file__)"))
    assert Path(where.stdout.strip()).is_relative_to(installed.venv)
    for module in TEST_ONLY:
        probe = installed.run("python", "-c", f"import {module}")
        assert probe.returncode != 0, f"{module} is installed: the test would not see it missing"


def test_no_module_of_the_package_imports_a_test_only_dependency() -> None:
    pattern = re.compile(rf"^\s*(?:import|from)\s+({'|'.join(TEST_ONLY)})\b", re.MULTILINE)
    found = {
        path.relative_to(ROOT).as_posix(): pattern.findall(path.read_text(encoding="utf-8"))
        for path in (ROOT / "src" / "suggestbot").rglob("*.py")
    }
    assert {path: names for path, names in found.items() if names} == {}


def test_every_command_answers_help(installed: Installed) -> None:
    listed = _checked(installed.run("suggestbot", "--help")).stdout
    for command in COMMANDS:
        assert f"  {command} " in listed
        _checked(installed.run("suggestbot", command, "--help"))


def test_the_demo_runs_from_the_installed_package(installed: Installed) -> None:
    done = _checked(installed.run("suggestbot", "demo", timeout=240))
    assert "13 of 13 steps worked." in done.stdout
    fetched = re.search(IMAGES_LOADED, done.stdout)
    assert fetched is not None and int(fetched[1]) >= 5, done.stdout[-2000:]
    assert (installed.workdir / "demo-transcript.html").is_file()


def test_db_upgrade_finds_the_migrations_the_wheel_ships(
    installed: Installed, empty_postgres_url: str
) -> None:
    with pytest.raises(SchemaNotCurrent):
        PostgresStore(empty_postgres_url).close()
    _checked(
        installed.run("suggestbot", "db", "upgrade", SUGGESTBOT_DATABASE_URL=empty_postgres_url)
    )
    PostgresStore(empty_postgres_url).close()  # the schema is this version's now


def test_the_dockerfile_runs_the_same_smoke_step_as_the_image_user() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    copied = re.findall(r"^COPY (.+) \./\S*$", text, re.MULTILINE)
    assert sorted(" ".join(copied).split()) == sorted(BUILD_CONTEXT)
    install = text.index("RUN pip install .")
    user = text.index("USER suggestbot")
    smoke = text.index("RUN suggestbot --help")
    assert install < user < smoke  # installed, then checked as the user the image runs as
    [loop] = re.findall(r"for command in ([a-z -]+); do", text)
    assert loop.split() == list(COMMANDS)
    assert 'suggestbot "$command" --help' in text
