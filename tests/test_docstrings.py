"""Every public function of the flows, of the service client and of the store's interfaces says
what it does: a reader of a call site should not need to open the body.

The store's backends (SQLite, PostgreSQL, memory and their helpers) are left out: they
implement the interface documented in ``store/base.py``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "suggestbot"
BACKENDS = {
    "backends.py",
    "lease_book.py",
    "local.py",
    "memory.py",
    "pg_connections.py",
    "pg_leases.py",
    "pg_migrations.py",
    "pg_records.py",
    "pg_schema.py",
    "pg_sql.py",
    "postgres.py",
    "sqlite.py",
    "sqlite_copy.py",
}


def _modules() -> Iterator[Path]:
    yield from sorted((SRC / "flows").rglob("*.py"))
    yield from sorted((SRC / "contentapi").rglob("*.py"))
    yield from (p for p in sorted((SRC / "store").glob("*.py")) if p.name not in BACKENDS)


def undocumented(path: Path, *, root: Path = SRC) -> Iterator[str]:
    """``path:line name`` of each public function or method (of a public class) without a
    docstring."""

    def visit(body: list[ast.stmt], prefix: str) -> Iterator[str]:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if not node.name.startswith("_") and not ast.get_docstring(node):
                    yield f"{path.relative_to(root)}:{node.lineno} {prefix}{node.name}"
            elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                yield from visit(node.body, f"{prefix}{node.name}.")

    yield from visit(ast.parse(path.read_text()).body, "")


def test_public_functions_say_what_they_do() -> None:
    assert [found for path in _modules() for found in undocumented(path)] == []


def test_the_check_sees_a_function_without_a_docstring(tmp_path: Path) -> None:
    module = tmp_path / "mod.py"
    module.write_text(
        "def shown(x):\n    '''Says.'''\n\ndef bare(x):\n    return x\n\n"
        "class Thing:\n    def act(self):\n        pass\n    def _hidden(self):\n        pass\n"
    )
    found = undocumented(module, root=tmp_path)
    assert [f.split(" ")[1] for f in found] == ["bare", "Thing.act"]
