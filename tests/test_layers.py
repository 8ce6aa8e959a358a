"""The layers of ``suggestbot``, checked on every import statement in ``src/``.

A rule that nothing enforces erodes within weeks, so the layout the README draws is asserted
here: the service client and the store at the bottom, the core flows in the middle, pure UI
beside them, jobs and the Slack edge on top, and the stand-ins apart. Imports inside functions
count too — a deferred import is still a dependency, only a hidden one.

Inside the flows, each feature is a package (``flows/brief/``, ``flows/refine/`` …) beside the
shared ``flows/common/``. A feature's *internals* are its modules that its package ``__init__``
does not list in ``__all__``; no flow outside the feature (another feature, or ``common``)
imports them — it imports the package itself (the names its ``__init__`` exports) or one of the
public modules named in ``__all__``. The edges (jobs, slackapp) may reach any module.

Run ``python tests/test_layers.py`` to print the import cycles and the imports that run back
up the layers.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
ROOT = "suggestbot"

# Shared foundation every layer and stand-in may use; it imports nothing from the project.
FOUNDATION = {
    "suggestbot",  # the version string
    "suggestbot.logs",  # logging with redaction
    "suggestbot.asgi_thread",  # an ASGI app on a loopback port in a thread
    "suggestbot.metrics",  # the Prometheus registry: every layer records its own figures
}

# The stand-ins and the demo are apart from the product: only these modules start them (the
# command line reaches `sandbox` and `demo` by module name, not by import).
STARTS_STANDINS = {
    "suggestbot.server.builtin_sandbox",  # `serve` with no service configured runs the sandbox
}
STANDINS = ("suggestbot.sandbox", "suggestbot.slackemu", "suggestbot.demo")

# What makes a module do I/O: the store's backends, the service client, the Slack client and
# Bolt, an HTTP client. The typed records are data and may be read by pure code.
IO_MODULES = (
    "suggestbot.store",
    "suggestbot.contentapi",
    "suggestbot.installations",
    "suggestbot.jobs",
    "suggestbot.slackapp",
    "slack_bolt",
    "slack_sdk.web",
    "slack_sdk.oauth",
    "httpx",
)
# Value types pure code may read: the typed records.
PURE_EXCEPTIONS = ("suggestbot.store.records",)

# Layer rank, lower is further down; an import of a higher rank runs back up. Used for the
# printed figures; the assertions below are the rules themselves.
RANKS = (
    ("suggestbot.contentapi", 1),
    ("suggestbot.store", 1),
    ("suggestbot.installations", 2),
    ("suggestbot.slack", 2),
    ("suggestbot.ui", 3),
    ("suggestbot.flows", 4),
    ("suggestbot.jobs", 5),
    ("suggestbot.slackapp", 6),
    ("suggestbot.server", 7),
)
ABOVE_INSTALLATIONS = tuple(p for p, rank in RANKS if rank > 2)


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted((SRC / ROOT).rglob("*.py"))}


def _imports(module: str, path: Path, known: set[str]) -> Iterator[str]:
    """Every module ``module`` imports, at any depth in the file, resolved to absolute names."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                parent = ".".join([*base, node.module] if node.module else base)
            else:
                parent = node.module or ""
            for alias in node.names:
                candidate = f"{parent}.{alias.name}"
                yield candidate if candidate in known else parent


@functools.cache
def import_graph() -> dict[str, set[str]]:
    """Module → the modules it imports (project modules and third-party names alike).

    Cached: callers must not change it in place.
    """
    modules = _modules()
    known = set(modules)
    return {m: set(_imports(m, p, known)) - {m} for m, p in modules.items()}


FLOWS = "suggestbot.flows"


@functools.cache
def feature_public_modules() -> dict[str, frozenset[str]]:
    """Feature package → its public modules: the submodules its ``__all__`` names."""
    features: dict[str, frozenset[str]] = {}
    for init in sorted((SRC / ROOT / "flows").glob("*/__init__.py")):
        package = _module_name(init)
        if package == f"{FLOWS}.common":
            continue
        names: list[str] = []
        for node in ast.parse(init.read_text()).body:
            target: ast.expr
            if isinstance(node, ast.AnnAssign) and node.value is not None:
                target, value = node.target, node.value
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
            else:
                continue
            if isinstance(target, ast.Name) and target.id == "__all__":
                names = list(ast.literal_eval(value))
        modules = {f"{package}.{n}" for n in names}  # digests' __all__ names functions too
        features[package] = frozenset(m for m in modules if m in _modules())
    return features


def _feature_of(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) < 3 or not _within(module, FLOWS) or parts[2] == "common":
        return None
    return ".".join(parts[:3])


def _violations(graph: dict[str, set[str]]) -> list[str]:
    """Each broken rule as ``rule: source -> target``."""
    found = []
    public = feature_public_modules()
    for source, targets in sorted(graph.items()):
        for target in sorted(targets):
            feature = _feature_of(target)
            crosses = _within(source, FLOWS) and feature and _feature_of(source) != feature
            public_modules = public.get(feature, frozenset()) if feature else frozenset()
            allowed = target == feature or any(_within(target, m) for m in public_modules)
            if crosses and not allowed:
                found.append(f"a flow imports no other feature's internals: {source} -> {target}")
            project = _within(target, ROOT) and target not in FOUNDATION
            if source in FOUNDATION and project:
                found.append(f"the foundation imports nothing above it: {source} -> {target}")
            for bottom in ("contentapi", "store"):
                package = f"suggestbot.{bottom}"
                if project and _within(source, package) and not _within(target, package):
                    found.append(f"{bottom} imports only itself: {source} -> {target}")
            if _within(source, "suggestbot.ui"):
                io = any(_within(target, p) for p in IO_MODULES)
                if io and target not in PURE_EXCEPTIONS:
                    found.append(f"ui does no I/O: {source} -> {target}")
                leaf = any(_within(target, p) for p in ("suggestbot.flows", *STANDINS))
                if leaf and target not in PURE_EXCEPTIONS:
                    found.append(f"ui is a leaf: {source} -> {target}")
            for edge in ("suggestbot.flows", "suggestbot.jobs", "suggestbot.installations"):
                if _within(source, edge) and _within(target, "suggestbot.slackapp"):
                    found.append(f"{edge} never imports slackapp: {source} -> {target}")
            above = any(_within(target, p) for p in ABOVE_INSTALLATIONS)
            if _within(source, "suggestbot.installations") and above:
                found.append(f"installations is below the flows: {source} -> {target}")
            if _within(source, "suggestbot.slack") and project:
                below = any(_within(target, p) for p in ("suggestbot.slack", "suggestbot.store"))
                if not below:
                    found.append(f"slack is below the flows: {source} -> {target}")
            if _within(source, "suggestbot.sandbox") and _within(target, "suggestbot.contentapi"):
                found.append(f"sandbox never imports contentapi: {source} -> {target}")
            in_standins = any(_within(source, s) for s in STANDINS)
            to_standins = any(_within(target, s) for s in STANDINS)
            if to_standins and not in_standins and source not in STARTS_STANDINS:
                found.append(f"the product never imports a stand-in: {source} -> {target}")
            apart = in_standins and not _within(source, "suggestbot.demo")
            if apart and project and not to_standins:
                found.append(f"the stand-ins never import the product: {source} -> {target}")
    return found


RULES = [
    "contentapi imports only itself",
    "store imports only itself",
    "ui does no I/O",
    "ui is a leaf",
    "suggestbot.flows never imports slackapp",
    "suggestbot.jobs never imports slackapp",
    "suggestbot.installations never imports slackapp",
    "installations is below the flows",
    "slack is below the flows",
    "sandbox never imports contentapi",
    "the product never imports a stand-in",
    "the stand-ins never import the product",
    "the foundation imports nothing above it",
    "a flow imports no other feature's internals",
]


@pytest.mark.parametrize("rule", RULES)
def test_every_import_respects_the_layers(rule: str) -> None:
    broken = [v for v in _violations(import_graph()) if v.startswith(rule + ":")]
    assert broken == []


def test_every_violation_names_a_rule() -> None:
    assert all(v.split(":")[0] in RULES for v in _violations(import_graph()))


def test_the_check_sees_a_forbidden_import() -> None:
    """The rules are live: each forbidden import, even one deferred into a function, is caught."""
    forbidden = {
        "suggestbot.flows.x": {"suggestbot.slackapp.app"},
        "suggestbot.jobs.x": {"suggestbot.slackapp.http"},
        "suggestbot.installations.x": {"suggestbot.slackapp.manifest"},
        "suggestbot.installations.y": {"suggestbot.flows.common.deps"},
        "suggestbot.ui.x": {
            "slack_bolt",
            "suggestbot.store.sqlite",
            "suggestbot.flows.brief.sending",
        },
        "suggestbot.store.x": {"suggestbot.flows.brief.sending"},
        "suggestbot.contentapi.x": {"suggestbot.config"},
        "suggestbot.sandbox.x": {"suggestbot.contentapi.models"},
        "suggestbot.slackapp.x": {"suggestbot.slackemu.driver"},
        "suggestbot.slack.x": {"suggestbot.flows.common.deps", "suggestbot.installations.scope"},
        "suggestbot.flows.brief.modal": {"suggestbot.flows.refine.turns"},
        "suggestbot.flows.common.x": {"suggestbot.flows.inspiration.polling"},
    }
    assert _violations({**import_graph(), **forbidden}) != []
    assert len(_violations(forbidden)) == 17
    allowed = {
        "suggestbot.ui.x": {"suggestbot.store.records", "slack_sdk.models.blocks"},
        "suggestbot.server.builtin_sandbox": {"suggestbot.sandbox.server"},
        "suggestbot.demo.stage": {"suggestbot.slackemu", "suggestbot.server.composition"},
        "suggestbot.store.x": {"suggestbot.logs"},
        "suggestbot.slack.x": {"suggestbot.store.records", "suggestbot.metrics", "slack_sdk"},
        "suggestbot.flows.x": {"suggestbot.slack.gate"},
        "suggestbot.flows.brief.modal": {
            "suggestbot.flows.refine.replies",
            "suggestbot.flows.digests",
        },
        "suggestbot.flows.refine.again": {"suggestbot.flows.refine.turns"},
        "suggestbot.flows.common.x": {"suggestbot.flows.linking.accounts"},
        "suggestbot.jobs.x": {"suggestbot.flows.inspiration.polling"},
    }
    assert _violations(allowed) == []


def test_every_feature_package_says_what_it_does() -> None:
    """Each feature's ``__init__`` has a docstring; ``common`` is no feature."""
    features = feature_public_modules()
    assert f"{FLOWS}.common" not in features
    assert {f"{FLOWS}.brief", f"{FLOWS}.refine", f"{FLOWS}.digests"} <= set(features)
    for package in features:
        init = SRC / Path(*package.split(".")) / "__init__.py"
        assert ast.get_docstring(ast.parse(init.read_text())), package


def test_no_module_imports_itself_through_others() -> None:
    """A loop between modules means neither can be read, tested or moved without the other;
    the flows' brief ⇄ refine ⇄ threads loop and the sandbox's core ⇄ admin/seed/server loop
    were the two this rule was written after. Deferred imports count."""
    assert cycles(import_graph()) == []


def test_the_cycle_check_sees_a_loop() -> None:
    loop = {
        "suggestbot.sandbox.a": {"suggestbot.sandbox.b"},
        "suggestbot.sandbox.b": {"suggestbot.sandbox.c"},
        "suggestbot.sandbox.c": {"suggestbot.sandbox.a"},
        "suggestbot.flows.x": {"suggestbot.flows.y"},
        "suggestbot.flows.y": {"suggestbot.flows.x"},
        "suggestbot.flows.z": {"suggestbot.flows.x"},
    }
    assert sorted(cycles(loop)) == [
        ["suggestbot.flows.x", "suggestbot.flows.y"],
        ["suggestbot.sandbox.a", "suggestbot.sandbox.b", "suggestbot.sandbox.c"],
    ]


def test_imports_inside_functions_are_seen(tmp_path: Path) -> None:
    module = tmp_path / "mod.py"
    module.write_text("def f():\n    from .sibling import thing\n    import slack_bolt\n")
    assert set(_imports("pkg.mod", module, {"pkg.sibling"})) == {"pkg.sibling", "slack_bolt"}


# -- figures for the notes: cycles and imports that run back up ------------------------------


def _rank(module: str) -> int | None:
    for package, rank in RANKS:
        if _within(module, package):
            return rank
    return None


def upward_imports(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Imports from a module to one of a higher layer, plus any import into a stand-in."""
    up = []
    for source, targets in sorted(graph.items()):
        for target in sorted(t for t in targets if t in graph):
            low, high = _rank(source), _rank(target)
            if low is not None and high is not None and high > low:
                up.append((source, target))
    return up


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(t for t in graph[start] if t in graph)))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(t for t in graph[child] if t in graph))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return groups


if __name__ == "__main__":
    graph = import_graph()
    groups = cycles(graph)
    print(f"import cycles: {len(groups)} groups, {sum(len(g) for g in groups)} modules")
    for group in groups:
        print("  ", " ⇄ ".join(group))
    up = upward_imports(graph)
    print(f"imports back up the layers: {len(up)}")
    for source, target in up:
        print(f"   {source} -> {target}")
    print("rule violations:", len(_violations(graph)))
    for line in _violations(graph):
        print("  ", line)
