"""The service modules import one another in one direction only: no cycles.

Every import counts, including one inside a function (the usual way a cycle is hidden).
"""

from __future__ import annotations

import ast
from pathlib import Path

import app.services

SERVICES = Path(app.services.__file__).resolve().parent
PACKAGE = "app.services"


def _module_name(path: Path) -> str:
    parts = path.relative_to(SERVICES).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((PACKAGE, *parts))


def _imported(node: ast.AST, module: str, is_package: bool, known: set[str]) -> set[str]:
    """The service modules one import statement loads (most specific known module)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            anchor = module.split(".")
            anchor = anchor if is_package else anchor[:-1]
            anchor = anchor[: len(anchor) - (node.level - 1)]
            base = ".".join([*anchor, base] if base else anchor)
        names = [f"{base}.{alias.name}" for alias in node.names]
        names = [name if name in known else base for name in names]
    else:
        return set()
    found = set()
    for name in names:
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name:
            found.add(name)
    return found


def import_graph() -> dict[str, set[str]]:
    files = {_module_name(path): path for path in SERVICES.rglob("*.py")}
    known = set(files)
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(), filename=str(path))
        targets = set().union(
            *(_imported(node, module, is_package, known) for node in ast.walk(tree))
        )
        graph[module] = {t for t in targets if t != module}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path that ends where it starts, or None."""
    done: set[str] = set()
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return None
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if (cycle := visit(target)) is not None:
                return cycle
        path.pop()
        done.add(node)
        return None

    for start in sorted(graph):
        if (cycle := visit(start)) is not None:
            return cycle
    return None


def test_the_graph_sees_the_services_and_their_imports() -> None:
    graph = import_graph()
    assert {"app.services.builder", "app.services.history", "app.services.transfer"} <= set(graph)
    assert "app.services.history" in graph["app.services.builder"]


def test_find_cycle_reports_an_import_inside_a_function() -> None:
    source = "def f():\n    from app.services.b import x\n"
    tree = ast.parse(source)
    known = {"app.services.a", "app.services.b"}
    edges = set().union(*(_imported(n, "app.services.a", False, known) for n in ast.walk(tree)))
    graph = {"app.services.a": edges, "app.services.b": {"app.services.a"}}
    assert find_cycle(graph) == ["app.services.a", "app.services.b", "app.services.a"]


def test_service_modules_import_without_cycles() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])
