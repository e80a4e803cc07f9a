"""The package's import graph (ast, every import statement, lazy ones inside functions included):
no circle, and no module imports one from a higher layer."""

from __future__ import annotations

import ast
from pathlib import Path

import harness

ROOT = Path(harness.__file__).resolve().parent

# Lowest first. A module may import modules of its own layer or of lower ones.
LAYERS: list[set[str]] = [
    {"errors", "atomic", "paths", "yamlfile", "provenance", "ui", "search", "model_refs", "model_sources", "cache", "names", "jsonfile"},
    {"run_context", "results", "sidecar", "runs", "stats", "metrics", "data", "simmap_nets"},
    {"scorers", "surface"},
    {"submissions", "suites"},
    {"runner", "leaderboard", "compare", "export_mteb", "finetune", "tables", "costs", "fusion"},
    {"executors"},
    {"commands"},
    {"cli"},
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph() -> dict[str, set[str]]:
    files = {module_name(p): p for p in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for mod, path in files.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names]
            for name in names:
                while name and name not in files:  # harness.x.y -> the module that defines it
                    name = name.rpartition(".")[0]
                if name and name != mod and name != "harness":
                    targets.add(name)
        graph[mod] = targets
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def layer(mod: str) -> int:
    if mod == "harness":  # the package's lazy public names (harness.NearMissEvaluator, ...) sit on top
        return len(LAYERS)
    top = mod.split(".")[1] if "." in mod else mod
    for i, names in enumerate(LAYERS):
        if top in names:
            return i
    raise AssertionError(f"{mod}: add its top-level name to LAYERS in this test")


def test_the_graph_sees_lazy_imports():
    graph = import_graph()
    assert "harness.submissions" in graph["harness.cli"]  # imported inside a function
    assert "harness.scorers.registry" in graph["harness.submissions.registry"]


def test_no_import_circle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle)


def test_no_import_from_a_lower_layer_to_a_higher_one():
    bad = [f"{a} -> {b}" for a, targets in import_graph().items() for b in sorted(targets) if layer(b) > layer(a)]
    assert bad == []


def test_a_circle_is_found():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
