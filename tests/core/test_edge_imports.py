"""The edges only convert the engine's plain data (docs/architecture.md): one door.

Every module of an edge directory (`cli/`, `lsp/` and below) imports from the package only the
edge API — `rulemap.host` and its modules, the plain data of `rulemap.model`, the package's
version (`from rulemap import __version__`, `import rulemap`) — and its own edge's modules:
never the engine's (`analysis`, `workspace/`, `profiles/`, `checks/`, `readers/`, …), nor the
other edge (the CLI dispatches `serve` by name). Every import counts — at module level, inside
a function, under `TYPE_CHECKING` (a type hint names the engine's internals just the same). An
underscore name is private to the module or package it is in: a package's `_util` module may
be shared by that package's own modules, `_inside` of `cli/commands.py` by no other module.
And an edge never asks `workspace_of`: the host's own modules go from a snapshot to its
workspace, an edge asks them.

One test per module, so that the modules still past the door are named one by one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "rulemap"

# the directories (under server/rulemap/) that speak only through the edge API
EDGE_DIRS = ("cli", "lsp")

# what an edge may import from the package besides its own edge: the edge API and plain data
ALLOWED = ("rulemap.host", "rulemap.model")
# the package's root: its version (and nothing else lives there)
ROOT_NAMES = ("__version__",)
# the host's own way from a snapshot to its workspace
HOST_ONLY = "workspace_of"


def _edge_modules() -> list[Path]:
    return sorted(
        path
        for directory in EDGE_DIRS
        for path in (PACKAGE / directory).rglob("*.py")
        if "__pycache__" not in path.parts
    )


def _name(path: Path) -> str:
    return ".".join(("rulemap", *path.relative_to(PACKAGE).with_suffix("").parts))


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _edge_of(module: str) -> str:
    """`rulemap.cli` for `rulemap.cli.commands`, `rulemap.lsp` for `rulemap.lsp.features.x`."""
    return ".".join(module.split(".")[:2])


def _past_the_door(target: str, edge: str) -> bool:
    """Whether importing `target` (a module, or a module's attribute) reaches past the door."""
    if target == "rulemap" or target in (f"rulemap.{n}" for n in ROOT_NAMES):
        return False
    return not any(_within(target, allowed) for allowed in (*ALLOWED, edge))


def _private_outside(target: str, package: str) -> str | None:
    """The first underscore name along `target` (a module, or a module's attribute) that is
    private to a package `package` is not in: `_x` belongs to the module or package before it
    (`rulemap.lsp.features._util` is its package's to share, `rulemap.cli.commands._inside`
    is `commands`' own)."""
    parts = target.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not (part.startswith("__") and part.endswith("__")):
            owner = ".".join(parts[:i])
            if package != owner and not package.startswith(owner + "."):
                return part
    return None


def _absolute(node: ast.ImportFrom, package: str) -> str:
    """The module `from ... import` names, relative imports made absolute."""
    if node.level == 0:
        return node.module or ""
    base = package.split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def violations(source: str, module: str, is_package: bool = False) -> list[str]:
    """Every import of `source` (the text of rulemap module `module`) that reaches past the
    edge API, and every use of `workspace_of`, as `line N: what`; every import counts,
    wherever it is."""
    package = module if is_package else module.rpartition(".")[0]
    edge = _edge_of(module)
    found: list[str] = []

    def check(line: int, target: str, said: str) -> None:
        if target.split(".")[0] != "rulemap":
            return
        if _past_the_door(target, edge):
            found.append(f"line {line}: {said}")
        elif (private := _private_outside(target, package)) is not None:
            found.append(f"line {line}: {said} (`{private}` is private to its module)")

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                check(node.lineno, alias.name, f"import {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            source_module = _absolute(node, package)
            if source_module.split(".")[0] != "rulemap":
                continue
            if source_module != "rulemap" and _past_the_door(source_module, edge):
                found.append(f"line {node.lineno}: from {source_module} import ...")
                continue
            for alias in node.names:
                check(node.lineno, f"{source_module}.{alias.name}",
                      f"from {source_module} import {alias.name}")
        elif (isinstance(node, ast.Name) and node.id == HOST_ONLY) or (
            isinstance(node, ast.Attribute) and node.attr == HOST_ONLY
        ):
            found.append(f"line {node.lineno}: {HOST_ONLY} (the host's own way to a workspace)")
    found += [
        f"line {node.lineno}: {HOST_ONLY} (the host's own way to a workspace)"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and not _past_the_door(
            _absolute(node, package), edge) and any(a.name == HOST_ONLY for a in node.names)
    ]
    return found


def test_the_rule_sees_every_import() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "from rulemap import analysis, checks\n"
        "from rulemap.edge.main import UsageError\n"
        "from rulemap.edge.main import _hidden\n"
        "from rulemap.edge._util import fine\n"
        "from . import _sibling\n"
        "from ..other import _elsewhere\n"
        "if TYPE_CHECKING:\n"
        "    from rulemap.workspace import Workspace\n"
        "def f():\n"
        "    import rulemap.profiles.steps\n"
        "    from rulemap.edge.commands import _inside, open_workspace\n"
        "    from rulemap.host.catalog import agents\n"
        "    from rulemap.readers.host import is_dir\n"
        "    from rulemap.lsp.server import run_server\n"
        "    from rulemap.host.snapshot import workspace_of\n"
        "    import rulemap\n"
        "    from rulemap import __version__\n"
        "    from rulemap.model import Finding\n"
        "    host.workspace_of(snap)\n"
        "    return rulemap.__version__\n"
    )
    found = violations(source, "rulemap.edge.mod")
    lines = sorted({int(line.split(":")[0].removeprefix("line ")) for line in found})
    assert lines == [2, 4, 7, 9, 11, 12, 14, 15, 16, 20], found


def test_there_are_edge_modules() -> None:
    assert _edge_modules()


@pytest.mark.parametrize(
    "path", _edge_modules(), ids=lambda p: p.relative_to(PACKAGE).as_posix()
)
def test_an_edge_imports_only_the_edge_api(path: Path) -> None:
    is_package = path.name == "__init__.py"
    module = _name(path).removesuffix(".__init__")
    found = violations(path.read_text(encoding="utf-8"), module, is_package)
    assert not found, (
        f"{path.relative_to(PACKAGE).as_posix()} reaches past the edge API: "
        + "; ".join(found)
        + ". Ask rulemap.host (a host module of the question's domain) for plain data "
        "instead, and make a name another module needs public (docs/architecture.md)"
    )


def private_reads(source: str, module: str) -> list[str]:
    """`name._private` where `name` was imported from another rulemap module (a module or an
    object of one): reaching into what that module keeps to itself."""
    tree = ast.parse(source)
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rulemap"):
            if node.module != module:
                bound.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.Import):
            bound.update(
                (a.asname or a.name).split(".")[0] for a in node.names
                if a.name.startswith("rulemap.")
            )
    return [
        f"line {node.lineno}: {ast.unparse(node)}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and isinstance(node.value, ast.Name) and node.value.id in bound
    ]


def test_the_private_read_rule_can_fail() -> None:
    source = "from rulemap import analysis\nx = analysis._overridden\ny = analysis.explain\n"
    assert private_reads(source, "rulemap.edge.mod") == ["line 2: analysis._overridden"]


@pytest.mark.parametrize(
    "path", _edge_modules(), ids=lambda p: p.relative_to(PACKAGE).as_posix()
)
def test_an_edge_reads_no_private_name_of_another_module(path: Path) -> None:
    found = private_reads(path.read_text(encoding="utf-8"), _name(path))
    assert not found, f"{path.relative_to(PACKAGE)} reaches into another module: {found}"


# ----- the door opens one way: nothing below the edges imports the host ----------------------

# the modules above the engine: the edges, the host itself, and the entry point that picks one
ABOVE_THE_ENGINE = ("rulemap.cli", "rulemap.lsp", "rulemap.host", "rulemap.__main__")


def host_imports(source: str, module: str, is_package: bool = False) -> list[str]:
    """Every import of `rulemap.host` (or one of its modules) in `source`, as `line N: what`:
    wherever it is, inside a function or under TYPE_CHECKING too."""
    package = module if is_package else module.rpartition(".")[0]
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        if any(_within(t, "rulemap.host") for t in targets):
            found.append(f"line {node.lineno}: imports the host")
    return found


def test_the_host_rule_can_fail() -> None:
    planted = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from rulemap.host import Snapshot\n"
        "def f():\n"
        "    from rulemap import host\n"
        "    from ..host.text import printable\n"
        "from rulemap.hosting import x\n"  # a name that only starts like it
    )
    assert host_imports(planted, "rulemap.checks.files") == [
        "line 3: imports the host", "line 5: imports the host", "line 6: imports the host",
    ]


@pytest.mark.parametrize(
    "path",
    [p for p in sorted(PACKAGE.rglob("*.py")) if "__pycache__" not in p.parts
     and not any(_within(_name(p).removesuffix(".__init__"), a) for a in ABOVE_THE_ENGINE)],
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_the_engine_never_imports_the_host(path: Path) -> None:
    """The host is the edges' door into the engine; the engine below it never goes back out
    through it (the host's modules compose the engine's, not the other way round)."""
    module = _name(path).removesuffix(".__init__")
    assert host_imports(path.read_text(encoding="utf-8"), module,
                        path.name == "__init__.py") == []
