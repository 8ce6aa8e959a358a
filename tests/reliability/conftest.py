"""Fixtures of the reliability suite: the app as a real process, and what the suite leaves.

Every test here runs the app as ``python -m suggestbot serve`` against the sandbox and the Slack
emulator over loopback (see ``reliability_harness``). Each stage's data directory, DEBUG log
and secrets are collected in one session-wide :class:`Evidence`; the secrets test is moved to
the end of the session so that its scan covers what the whole suite wrote.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from reliability_harness import Evidence, ProcessStage, StageFactory

SECRETS_SCAN_MODULE = "test_reliability_secrets.py"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the secrets scan after every other reliability test of the session."""
    last = [item for item in items if item.path.name == SECRETS_SCAN_MODULE]
    if last:
        items[:] = [item for item in items if item.path.name != SECRETS_SCAN_MODULE] + last


@pytest.fixture(scope="session")
def evidence() -> Evidence:
    return Evidence()


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
        for stage in started:
            stage.stop()
