"""The whole product on loopback for end-to-end tests: see :mod:`suggestbot.demo.stage`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from suggestbot.demo.stage import Stage


@pytest.fixture
def stage(tmp_path: Path) -> Iterator[Stage]:
    with Stage(data_dir=tmp_path / "data") as running:
        yield running
