"""No module of the product or its stand-ins over 600 lines: a module that grows past that
holds two ideas, and is split by idea, not by line count."""

from __future__ import annotations

from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "suggestbot"
MOST = 600


def test_no_module_is_over_600_lines() -> None:
    long = {
        str(path.relative_to(SRC)): n
        for path in sorted(SRC.rglob("*.py"))
        if (n := len(path.read_text().splitlines())) > MOST
    }
    assert long == {}
