"""Flows decide values; ui words them. A ``t("…")`` call in a flow would put a sentence back
into the core, where a wording change can no longer be made (and tested) in one place."""

from __future__ import annotations

import ast
from pathlib import Path

FLOWS = Path(__file__).resolve().parents[2] / "src" / "suggestbot" / "flows"


def _wording(path: Path, *, root: Path = FLOWS) -> list[str]:
    """Where ``path`` imports the catalogue's ``t`` or calls a function named ``t``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "suggestbot.ui.messages":
            found += [f"imports {a.name}" for a in node.names if a.name == "t"]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "t":
            found.append(f"calls t() on line {node.lineno}")
    return [f"{path.relative_to(root.parent)}: {what}" for what in found]


def test_no_flow_words_a_sentence() -> None:
    modules = sorted(FLOWS.rglob("*.py"))
    assert modules
    assert [w for path in modules for w in _wording(path)] == []


def test_the_check_finds_a_call(tmp_path: Path) -> None:
    sample = tmp_path / "flows" / "sample.py"
    sample.parent.mkdir()
    sample.write_text('from suggestbot.ui.messages import t\n\nx = t("a.b", "en")\n')
    assert _wording(sample, root=sample.parent) == [
        "flows/sample.py: imports t",
        "flows/sample.py: calls t() on line 3",
    ]
