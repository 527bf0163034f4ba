"""The architecture's invariants (docs/architecture.md), each asserted over the source tree.

1. Layers: a module imports only its own layer or lower ones (no circle between workspace,
   profiles and checks; the core imports no edge); no circle between files within a layer
   either (test_import_circles.py).
2. No disk access outside `readers/` (and the file watcher, whose job is the disk).
3. No loading logic in handlers or TypeScript: no agent file name or rule directory is spelled
   in `lsp/` or `client-vscode/src/`; they ask the engine.
4. The module table of docs/architecture.md names every module of the tree and nothing else.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "server" / "rulemap"

# lowest first; a module may import from its own layer and any layer before it
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "data",
        (
            "model", "records", "text", "globs", "readers", "config", "derived", "retarget",
            "suggest", "ranges", "documents", "__init__",
        ),
    ),
    ("workspace", ("workspace",)),
    ("profiles", ("profiles",)),
    # `fixes` reads which codes are safe to fix from the check registry
    ("checks", ("checks", "fixes")),
    ("engine", ("analysis", "compare", "graph_export", "session", "diff", "verify", "aliases",
                "reach", "why", "unseen", "repo_map", "host")),
    ("edges", ("cli", "lsp", "__main__")),
]


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts)


def _layer(module: str) -> int:
    top = module.split(".")[0]
    for index, (_, members) in enumerate(LAYERS):
        if top in members:
            return index
    raise AssertionError(f"rulemap.{module} is in no layer of tests/core/test_layers.py")


def _imports(path: Path) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(line, imported rulemap module) of every import of `path`: those that run (at module
    level or inside functions), then those under `if TYPE_CHECKING:` (type hints only)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    hinted: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                hinted.update(id(inner) for inner in ast.walk(child))
    runtime: list[tuple[int, str]] = []
    type_only: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        found = type_only if id(node) in hinted else runtime
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith("rulemap."):
                found.append((node.lineno, node.module[len("rulemap."):]))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("rulemap."):
                    found.append((node.lineno, alias.name[len("rulemap."):]))
    return runtime, type_only


def _runtime_imports(path: Path) -> list[tuple[int, str]]:
    return _imports(path)[0]


def _type_only_imports(path: Path) -> list[tuple[int, str]]:
    return _imports(path)[1]


@pytest.mark.parametrize("path", _modules(), ids=_name)
def test_type_hints_go_down_the_layers_too(path: Path) -> None:
    """No import circle hidden under TYPE_CHECKING either: a type named in a lower layer's
    signature would tie it to the higher one (the workspace would know what a profile is)."""
    module = _name(path)
    own = _layer(module)
    for line, imported in _type_only_imports(path):
        assert _layer(imported) <= own, (
            f"rulemap.{module} (layer {LAYERS[own][0]}) names rulemap.{imported} (layer "
            f"{LAYERS[_layer(imported)][0]}) in a type hint at line {line}"
        )


def test_every_module_is_in_a_layer() -> None:
    for path in _modules():
        _layer(_name(path))


@pytest.mark.parametrize("path", _modules(), ids=_name)
def test_imports_go_down_the_layers(path: Path) -> None:
    module = _name(path)
    own = _layer(module)
    for line, imported in _runtime_imports(path):
        assert _layer(imported) <= own, (
            f"rulemap.{module} (layer {LAYERS[own][0]}) imports rulemap.{imported} "
            f"(layer {LAYERS[_layer(imported)][0]}) at line {line}: move the code to the "
            f"lower layer, or pass the value in (docs/architecture.md)"
        )


# calls that touch the disk; `open(` is Python's built-in (a method such as `.open(` is not)
_DISK = re.compile(
    r"(?<![\w.])(?<!def )open\(|\bos\.(stat|lstat|listdir|scandir|walk|open|readlink|access)\(|"
    r"\bos\.path\.(exists|lexists|isdir|isfile|islink|getsize|realpath)\(|"
    r"\bPath\(|\.read_text\(|\.read_bytes\(\)|\bshutil\."
)
_DISK_ALLOWED = ("readers/", "lsp/watch.py")


@pytest.mark.parametrize("path", _modules(), ids=_name)
def test_no_disk_access_outside_readers(path: Path) -> None:
    relative = path.relative_to(PACKAGE).as_posix()
    if relative.startswith(_DISK_ALLOWED):
        return
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        code = line.split("#", 1)[0]
        assert not _DISK.search(code), (
            f"{relative}:{number} touches the disk ({code.strip()}); go through a reader "
            f"(readers/) or readers/host.py"
        )


# loading facts that belong to a profile; views ask the engine instead
_LOADING_FACTS = re.compile(r"\.claude/rules|CLAUDE\.local\.md|copilot-instructions|\.cursor/rules")


def _edge_sources() -> list[Path]:
    lsp = sorted((PACKAGE / "lsp").rglob("*.py"))
    ts = sorted((REPO / "client-vscode" / "src").rglob("*.ts"))
    return [*lsp, *ts]


@pytest.mark.parametrize("path", _edge_sources(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_no_loading_facts_in_handlers_or_typescript(path: Path) -> None:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith(("#", "//", "*", '"""')):
            continue  # comments may explain what the engine does
        assert not _LOADING_FACTS.search(line), (
            f"{path.relative_to(REPO)}:{number} spells an agent's loading rule: {stripped}; "
            f"ask the engine (rulemap.analysis / a rulemap/* request)"
        )


def _module_rows() -> dict[str, str]:
    """docs/architecture.md's module table: each name of a row's first cell → the row."""
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = text.split("## Modules", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, str] = {}
    for row in table.splitlines():
        if row.startswith("| `"):
            for name in re.findall(r"`([^`]+)`", row.split("|")[1]):
                rows[name] = row
    return rows


def _names(text: str, relative: Path) -> bool:
    stem = relative.stem
    return f"`{stem}`" in text or f"`{relative.name}`" in text or f"`{stem}." in text


def _documented(relative: Path, rows: dict[str, str]) -> bool:
    """A top-level module has its own row; a package's module is named (`name` or `name.py`)
    in the package's row; a sub-package's module in what the row says of the sub-package
    (from `sub/` to the next sub-package the row describes, `other/` followed by ` (`)."""
    if len(relative.parts) == 1 or relative.as_posix() in rows:
        return relative.as_posix() in rows
    row = rows.get(relative.parts[0] + "/")
    if row is None:
        return False
    if len(relative.parts) == 2:
        return _names(row, relative)
    mention = f"`{relative.parts[1]}/`"
    start = row.find(mention)
    if start < 0:
        return False
    after = start + len(mention)
    following = re.search(r"`[\w.]+/` \(", row[after:])
    segment = row[start: after + following.start()] if following else row[start:]
    return _names(segment, relative)


def test_a_module_of_a_sub_package_must_be_named_in_its_part_of_the_row() -> None:
    rows = {"pkg/": "| `pkg/` | `a/` (`x.py`, `y`), `b/` (`z.py`) |"}
    assert _documented(Path("pkg/a/x.py"), rows) and _documented(Path("pkg/a/y.py"), rows)
    assert _documented(Path("pkg/b/z.py"), rows)
    assert not _documented(Path("pkg/b/x.py"), rows)  # named, but in a/'s part
    assert not _documented(Path("pkg/c/x.py"), rows)


def test_module_table_matches_the_tree() -> None:
    rows = _module_rows()
    missing = []
    for path in _modules():
        relative = path.relative_to(PACKAGE)
        if relative.name in ("__init__.py", "__main__.py"):
            continue
        if not _documented(relative, rows):
            missing.append(relative.as_posix())
    assert not missing, f"docs/architecture.md's module table does not name: {missing}"
    stale = sorted(
        name for name in rows
        if not (PACKAGE / name.rstrip("/")).exists()
    )
    assert not stale, f"docs/architecture.md's module table names what does not exist: {stale}"


def test_no_module_over_500_lines_without_a_reason() -> None:
    long = []
    for path in _modules():
        lines = path.read_text(encoding="utf-8").splitlines()
        head = "\n".join(lines[:15])
        if len(lines) > 500 and "Why this module is long" not in head:
            long.append(f"{path.relative_to(PACKAGE)} ({len(lines)} lines)")
    assert not long, (
        f"modules over 500 lines without 'Why this module is long' in their docstring: {long}"
    )



def test_every_test_the_architecture_names_exists() -> None:
    """Each invariant names the test that holds it: that test must exist (`file.py` or
    `file.py::test_name`; a bare `test_name` after a file named just before it)."""
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = re.findall(r"(tests/[\w/]+\.py)(?:::\s*(\w+))?", text)
    assert len(named) >= 8
    for path, test in named:
        source = REPO / path
        assert source.is_file(), f"docs/architecture.md names {path}, which does not exist"
        if test:
            assert f"def {test}(" in source.read_text(encoding="utf-8"), (
                f"docs/architecture.md names {path}::{test}, which does not exist")
    for test in re.findall(r"`test_layers\.py::(\w+)`", text):
        assert f"def {test}(" in Path(__file__).read_text(encoding="utf-8"), test
