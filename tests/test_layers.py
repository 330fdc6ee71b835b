"""The package's layers (casino_coach/__init__.py): every import, at the top of a module or inside a
function, goes down the layers or stays in its own, and no modules import each other in a circle."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx

PACKAGE = Path(__file__).resolve().parents[1] / "casino_coach"
LAYERS = [
    "errors",
    "frozen",
    "core",
    "workers",
    "engine",
    "formats",
    "search",
    "bots",
    "coach",
    "report",
    "services",
    "render",
    "cli",
]
# errors, frozen, core and workers are one base layer: they import nothing of the package but the
# errors (and the native core, which is not Python).
RANK = {name: max(0, i - 3) for i, name in enumerate(LAYERS)}


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that ``path`` imports anywhere in it."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
        else:
            continue
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name and name.startswith("casino_coach"):
                found.add(name)
    return found


def _layer(module: str) -> int:
    parts = module.split(".")
    return RANK[parts[1]] if len(parts) > 1 else -1  # -1: the package itself, its front door


def test_every_module_is_in_a_layer() -> None:
    for module in _modules():
        assert module == "casino_coach" or module.split(".")[1] in RANK, module


def test_imports_go_down_the_layers() -> None:
    modules = _modules()
    up = []
    for module, path in modules.items():
        if module == "casino_coach":
            continue  # the front door re-exports from every layer
        for target in _imports(path, modules):
            if target != "casino_coach" and _layer(target) > _layer(module):
                up.append(f"{module} imports {target}")
    assert not up, "\n".join(sorted(up))


def test_no_import_cycles() -> None:
    modules = _modules()
    graph = nx.DiGraph()
    for module, path in modules.items():
        for target in _imports(path, modules):
            # A package's __init__ is imported with each of its modules; it is not a dependency.
            if target != module and not module.startswith(target + "."):
                graph.add_edge(module, target)
    graph.remove_node("casino_coach")
    cycles = list(nx.simple_cycles(graph))
    assert not cycles, cycles


def test_no_test_loads_an_experiment() -> None:
    """Experiments settled a question once (experiments/README.md): a test that loaded one would
    freeze it in place. Benchmarks and tools may be loaded; experiments may not."""
    root = Path(__file__).resolve().parent
    experiments = {p.stem for p in (root.parent / "experiments").glob("*.py")}
    loading = [
        f"{t.name} loads {name}"
        for t in sorted(root.glob("*.py"))
        for name in sorted(experiments)
        if re.search(rf"""["'/]{name}(\.py)?["']|import {name}\b|experiments""", t.read_text())
        and t.name != "test_layers.py"
    ]
    assert experiments and not loading, loading
