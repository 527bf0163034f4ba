"""No import circle between the files of `server/rulemap` (docs/architecture.md, invariant 1).

The graph is file-level and counts every import a file spells: at module level, inside a
function, under `if TYPE_CHECKING:` — a circle hidden in any of them still ties the files
together (a helper that names its caller's class, even only in a hint, cannot be read, tested
or moved without it). `from pkg import name` points at the submodule `pkg.name` when there is
one, else at `pkg` itself; relative imports are resolved. A package's `__init__.py` importing
its own submodules (which may import the package back for a re-exported name) is not a
circle of files: that is what the package is.

The layer tests (test_layers.py) hold the circles between layers; this one holds those within
a layer, where the usual circle is a class module that is also the helper library of the
modules that import it back: the helpers move below it, or take what they need as a parameter
or a protocol defined below it.
"""

from __future__ import annotations

import ast
from collections import deque
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "server" / "rulemap"

# importer → imported → the line of its first import there
Graph = dict[str, dict[str, int]]


def module_files(package: Path) -> dict[str, Path]:
    """Every module under the package directory `package`, by dotted name (a package by its
    own name, for its `__init__.py`)."""
    found: dict[str, Path] = {}
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        parts = path.relative_to(package.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _known(name: str, modules: dict[str, Path]) -> str | None:
    """The module `name` names, or the nearest package above it that is one of `modules`."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def imports_of(module: str, modules: dict[str, Path]) -> dict[str, int]:
    """The modules `module` imports, each with the line of its first import of it."""
    path = modules[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: dict[str, int] = {}

    def add(target: str | None, line: int) -> None:
        if target is not None and target != module and target not in out:
            out[target] = line

    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in sorted(
        (n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)),
        key=lambda n: n.lineno,
    ):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(_known(alias.name, modules), node.lineno)
            continue
        if node.level:
            base = package.split(".")
            base = base[: len(base) - node.level + 1]
            source = ".".join([*base, *([node.module] if node.module else [])])
        else:
            source = node.module or ""
        for alias in node.names:
            submodule = f"{source}.{alias.name}"
            add(submodule if submodule in modules else _known(source, modules), node.lineno)
    return out


def import_graph(package: Path) -> Graph:
    """The file-level import graph of every module under the package directory `package`."""
    modules = module_files(package)
    return {module: imports_of(module, modules) for module in modules}


def _components(graph: Graph, nodes: set[str]) -> list[list[str]]:
    """The strongly connected components of `graph` restricted to `nodes` with more than one
    member (Tarjan's algorithm, iteratively: no recursion limit to meet)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(t for t in graph[start] if t in nodes)))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(t for t in graph[target] if t in nodes))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def circles(graph: Graph, nodes: set[str] | None = None) -> list[list[str]]:
    """Every import circle of `graph`: its strongly connected components, less a package's
    `__init__` importing its own submodules. A component that lies wholly in the tree of a
    package it holds is looked at again without the edges from each package in it down to its
    own submodules: what still goes round then is a circle of files."""
    out: list[list[str]] = []
    for component in _components(graph, set(graph) if nodes is None else nodes):
        packages = [m for m in component if any(o.startswith(m + ".") for o in component)]
        own = any(all(o == p or o.startswith(p + ".") for o in component) for p in packages)
        if not own:
            out.append(component)
            continue
        members = set(component)
        pruned: Graph = {
            m: {t: line for t, line in graph[m].items()
                if t in members and not (m in packages and t.startswith(m + "."))}
            for m in component
        }
        out.extend(circles(pruned))
    return out


def _a_way_round(graph: Graph, circle: list[str]) -> list[str]:
    """One shortest way from the circle's first module back to it, for the message."""
    members = set(circle)
    start = circle[0]
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for target in sorted(graph[node]):
            if target not in members:
                continue
            if target == start:
                way = [node]
                while way[-1] != start:
                    way.append(came_from[way[-1]])
                return [start, *reversed(way[:-1]), start]
            if target not in came_from:
                came_from[target] = node
                queue.append(target)
    return [start]


def describe(graph: Graph, circle: list[str], modules: dict[str, Path], top: Path) -> str:
    """The circle's files (relative to `top`), and one way round it, import lines named."""

    def file(module: str) -> str:
        return modules[module].relative_to(top).as_posix()

    way = _a_way_round(graph, circle)
    steps = " → ".join(
        f"{file(a)}:{graph[a][b]}" for a, b in zip(way, way[1:], strict=False)
    )
    return (f"circle of {len(circle)} files: {', '.join(file(m) for m in circle)}\n"
            f"    for one: {steps} → {file(way[-1])}")


def test_no_import_circle_between_files() -> None:
    graph = import_graph(PACKAGE)
    found = circles(graph)
    modules = module_files(PACKAGE)
    assert not found, (
        "import circles (move the helpers below the module that uses them, or have them take "
        "what they need as a parameter or a protocol defined below it; an import inside a "
        "function or under TYPE_CHECKING counts too):\n"
        + "\n".join(describe(graph, circle, modules, REPO) for circle in found)
    )


def _plant(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "planted"


def test_the_graph_finds_planted_circles(tmp_path: Path) -> None:
    package = _plant(tmp_path, {
        # a package importing its own submodule, which imports the package back: allowed
        "planted/__init__.py": "from planted.core import Core\n",
        "planted/base.py": "import planted\n",
        # a class module and its helper, who names the class in a type hint only
        "planted/core.py": "from planted import base, helpers\n\nclass Core: ...\n",
        "planted/helpers.py": (
            "from typing import TYPE_CHECKING\n\n"
            "if TYPE_CHECKING:\n    from .core import Core\n"),
        # a circle through an import inside a function, relative two levels up
        "planted/lazy/__init__.py": "",
        "planted/lazy/a.py": "def late() -> None:\n    from ..lazy import b\n",
        "planted/lazy/b.py": "import planted.lazy.a\n",
        # a package's __init__ in a circle that leaves its tree: a circle
        "planted/sub/__init__.py": "from planted.sub.x import X\n",
        "planted/sub/x.py": "from planted.y import Y\n\nclass X: ...\n",
        "planted/y.py": "from planted.sub import X\n\nclass Y: ...\n",
        # a circle between two submodules of a package whose __init__ they both go through
        "planted/pair/__init__.py": "from planted.pair import left, right\n",
        "planted/pair/left.py": "from planted.pair.right import R\n\nL = 1\n",
        "planted/pair/right.py": "import planted.pair\nfrom planted.pair.left import L\n\nR = 1\n",
    })
    graph = import_graph(package)
    assert graph["planted.core"] == {"planted.base": 1, "planted.helpers": 1}
    assert graph["planted.helpers"] == {"planted.core": 4}
    assert graph["planted.lazy.a"] == {"planted.lazy.b": 2}
    assert sorted(circles(graph)) == [
        ["planted.core", "planted.helpers"],
        ["planted.lazy.a", "planted.lazy.b"],
        ["planted.pair.left", "planted.pair.right"],
        ["planted.sub", "planted.sub.x", "planted.y"],
    ]
    modules = module_files(package)
    message = describe(graph, ["planted.lazy.a", "planted.lazy.b"], modules, tmp_path)
    assert "planted/lazy/a.py:2 → " in message and "planted/lazy/b.py:1" in message
