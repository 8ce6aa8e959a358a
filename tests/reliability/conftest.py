"""Fixtures of the reliability suite: the app as a real process, and what the suite leaves.

Every test here runs the app as ``python -m suggestbot serve`` against the sandbox and the Slack
emulator over loopback (see ``reliability_harness``). Each stage's data directory, DEBUG log
and secrets are collected in one run-wide :class:`Evidence`; the secrets test is moved after
every other reliability test so that its scan covers what the whole suite wrote (in a parallel
run it also waits for the tests other workers are still running, and reads what they left).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from reliability_harness import Evidence, ProcessStage, StageFactory

SECRETS_SCAN_MODULE = "test_reliability_secrets.py"
HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the secrets scan after every other reliability test of the session."""
    last = [item for item in items if item.path.name == SECRETS_SCAN_MODULE]
    if last:
        items[:] = [item for item in items if item.path.name != SECRETS_SCAN_MODULE] + last


@pytest.fixture(scope="session")
def evidence(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Evidence:
    """One per run: the workers of a parallel run each have their own base temporary directory
    inside the run's, which is where they share what they leave."""
    base = tmp_path_factory.getbasetemp()
    run_dir = base.parent if hasattr(request.config, "workerinput") else base
    others = frozenset(
        item.nodeid
        for item in request.session.items
        if item.path.parent == HERE and item.path.name != SECRETS_SCAN_MODULE and not _skipped(item)
    )
    return Evidence(shared_dir=run_dir / "reliability-evidence", expected=others)


def _skipped(item: pytest.Item) -> bool:
    """A test skipped before it starts (a true ``skipif``): it never marks its end."""
    return item.get_closest_marker("skip") is not None or any(
        marker.args and marker.args[0] is True for marker in item.iter_markers("skipif")
    )


@pytest.fixture(autouse=True)
def _marks_its_end(request: pytest.FixtureRequest, evidence: Evidence) -> Iterator[None]:
    """Set up before (so torn down after) the test's stages: its end is marked once what they
    left is kept."""
    yield
    evidence.ended(request.node.nodeid)


@pytest.fixture
def process_stage(tmp_path: Path, evidence: Evidence) -> Iterator[StageFactory]:
    """Starts stages (sandbox, emulator and the app process); stops all of them afterwards."""
    started: list[ProcessStage] = []

    def start(name: str = "app", **options: Any) -> ProcessStage:
        stage = ProcessStage(
            data_dir=tmp_path / name / "data", log_path=tmp_path / f"{name}.log", **options
        )
        (tmp_path / name).mkdir(parents=True, exist_ok=True)
        started.append(stage)
        evidence.add(stage)
        stage.start()
        return stage

    try:
        yield start
    finally:
        try:
            for stage in started:
                stage.stop()
        finally:
            evidence.keep(started)
