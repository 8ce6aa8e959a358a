"""Fixtures of the deployment tests: a multi-workspace world (see ``deploy_helpers``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from deploy_helpers import OAuthWorld


@pytest.fixture
def world(tmp_path: Path) -> Iterator[OAuthWorld]:
    running = OAuthWorld(tmp_path / "data").start()
    try:
        yield running
    finally:
        running.stop()
