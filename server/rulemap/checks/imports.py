"""Import checks: broken, suspicious, outside the workspace, cycles, too deep, duplicates."""

from __future__ import annotations

import posixpath
from collections import deque
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from rulemap import suggest
from rulemap.derived import IMPORT_GRAPH, MISSING, Key, KeyFamily
from rulemap.model import Finding, Fix, Hint, ImportRef, ImportStatus, Related, Span
from rulemap.records import record
from rulemap.suggest import NameIndex, close_matches

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

TRAILING = ",:;.)!?'\"]>"
NEAR_PATH: Final = "near-path"  # a broken import's closest existing file (`near_path`)

_IMPORT_FINDINGS: Final = KeyFamily[list[Finding]]("import-findings")  # document
_GRAPH_FINDINGS: Final[Key[list[Finding]]] = KeyFamily[list[Finding]](
    "import-graph-findings"
).key()
_CLOSEST_PATH: Final = KeyFamily[str | None]("closest-path")  # missing target
_FILE_NAMES: Final[Key[_Names]] = KeyFamily["_Names"]("file-names").key()
def check(ws: Workspace) -> list[Finding]:
    return [*document_check(ws), *graph_check(ws)]


def document_check(ws: Workspace) -> list[Finding]:
    """Per-document: each document's import tokens (broken, suspicious, outside), which depend
    on that document and what its imports resolve to."""
    out: list[Finding] = []
    for path in ws.lint_documents():
        # a document's import findings read it and what its imports resolve to (and the file
        # list, whose changes drop every derived value)
        key = _IMPORT_FINDINGS.key(path)
        found = ws.derived.get(key)
        if found is None:
            found = []
            reads = {path}
            for ref, resolved in ws.imports(path):
                found.extend(token_findings(ws, path, ref, resolved))
                reads.add(resolved.target)
            ws.derived.put(key, found, reads=reads)
        out.extend(found)
    return out


def graph_check(ws: Workspace) -> list[Finding]:
    """Graph-wide: cycles and depth, which depend on the import edges, not on the text (typing
    prose in AGENTS.md keeps them)."""
    graph = ws.derived.get(_GRAPH_FINDINGS)
    if graph is None:
        graph = [*_cycles(ws), *_too_deep(ws)]
        ws.derived.put(_GRAPH_FINDINGS, graph, reads=[IMPORT_GRAPH])
    return graph


def looks_like_file(ws: Workspace, importer: str, path: str) -> bool:
    """Whether a missing `@path` was meant as a file (not an npm scope, decorator or mention)."""
    return suggest.looks_like_file(ws.files, importer, path)


def token_findings(
    ws: Workspace, importer: str, ref: ImportRef, resolved: object
) -> list[Finding]:
    """The findings of one `@import` token of `importer`."""
    from rulemap.model import Resolved

    assert isinstance(resolved, Resolved)
    span = ref.span
    status = resolved.status
    if status is ImportStatus.OK:
        target = ws.document(resolved.target)
        if target.unreadable:
            return [Finding(importer, span, "error", "unreadable-file",
                            f"`{resolved.target}` cannot be imported: {target.unreadable}")]
        return []
    if status is ImportStatus.OUTSIDE and _is_root_alias(ws, ref.path, resolved.identity):
        return [Finding(importer, span, "information", "broken-import",
                        f"`@{ref.raw}` is read as an import of the absolute path `{ref.path}`, "
                        f"which does not exist (`@/` is usually a bundler alias for the source "
                        f"directory); an agent following the import syntax still tries it. If it "
                        f"is not a file, wrap it in backticks",
                        fixes=[_backticks(importer, span, ref)])]
    if status in (ImportStatus.OUTSIDE, ImportStatus.HOME):
        home = status is ImportStatus.HOME
        where = "into your home directory" if home else "outside the workspace"
        via = " (through a symlink)" if resolved.identity else ""
        return [Finding(importer, span, "warning", "import-outside-workspace",
                        f"`@{ref.raw}` points {where}{via}, so the loader skips it; if the "
                        f"agent should read it, grant its directory in your user configuration "
                        f"(`allowImportsFrom` in ~/.config/rulemap/config.toml) or with "
                        f"`--allow-imports-from` (a repository cannot grant it)")]
    if status is ImportStatus.DIRECTORY:
        return [Finding(importer, span, "error", "broken-import",
                        f"`@{ref.raw}` is a directory; imports name files")]
    # missing
    trimmed = _trimmed_candidate(ws, importer, ref)
    if trimmed is not None:
        new_token = "@" + trimmed
        anyway = _loads_anyway(ws, importer, trimmed, ref)
        if anyway is not None:
            # sotayamashita: "…defined in @AGENTS.md." in CLAUDE.md -- a mention of a file that
            # loads anyway (or of the file itself): nothing is lost, so no warning.
            return [Finding(importer, span, "information", "suspicious-import",
                            f"`@{ref.raw}` names `{ref.path}`, which does not exist; without "
                            f"`{ref.raw[len(trimmed):]}` it would be {anyway}, so nothing is lost. "
                            f"If it is a mention, wrap it in backticks",
                            fixes=[_backticks(importer, span, ref)])]
        return [Finding(importer, span, "warning", "suspicious-import",
                        f"`@{ref.raw}` names `{ref.path}`, which does not exist; the import runs "
                        f"to the next space, so `{ref.raw[len(trimmed):]}` is part of the path. "
                        f"Use `{new_token}` and move the punctuation away",
                        fixes=[Fix(f"Change to `{new_token}`", "replace", importer, span,
                                   new_token)])]
    if not looks_like_file(ws, importer, ref.path):
        return [Finding(importer, span, "information", "broken-import",
                        f"`@{ref.raw}` is read as an import of `{resolved.target}`, which does not "
                        f"exist; an agent following the import syntax still tries it. If it is not "
                        f"a file, wrap it in backticks",
                        fixes=[_backticks(importer, span, ref)])]
    # the closest existing path is worked out where the finding is shown (`near_path`)
    finding = Finding(importer, span, "error", "broken-import",
                      f"`@{ref.raw}`: `{resolved.target}` does not exist",
                      hint=Hint(NEAR_PATH, (resolved.target,)))
    from_root = _root_relative(ws, importer, ref.path)
    if from_root is not None:
        finding.message += (f". Imports are relative to the importing file's directory "
                            f"(`{posixpath.dirname(importer)}/`), not the workspace root, where "
                            f"`{from_root}` exists")
    finding.fixes = [Fix(f"Create `{resolved.target}`", "create", resolved.target)]
    return [finding]


def near_path(ws: Workspace, finding: Finding) -> Finding:
    """The broken-import `finding` with the existing file closest to its target: in the
    message ("did you mean") and, before creating the file, as a fix."""
    assert finding.hint is not None
    suggestion = closest_path(ws, finding.hint.args[0])
    if not suggestion:
        return replace(finding, hint=None)
    relative = posixpath.relpath(suggestion, posixpath.dirname(finding.path) or ".")
    change = Fix(f"Change to `@{relative}`", "replace", finding.path, finding.span,
                 "@" + relative.replace(" ", "\\ "))
    return replace(finding, message=f"{finding.message}; did you mean `@{relative}`?",
                   fixes=[change, *finding.fixes], hint=None)


def _backticks(importer: str, span: Span, ref: ImportRef) -> Fix:
    return Fix("Wrap in backticks", "replace", importer, span, f"`@{ref.raw}`")


def _loads_anyway(ws: Workspace, importer: str, trimmed: str, ref: ImportRef) -> str | None:
    """Why the trimmed target of a suspicious import is read anyway, or None.

    The importer itself, or an instruction file of the importer's own directory or of one
    above it (for a rule: of its `.claude` owner's), which every load of the importer brings.
    """
    from rulemap.model import ImportRef as Ref

    probe = Ref(raw=trimmed, path=trimmed.replace("\\ ", " "), span=ref.span, offset=ref.offset)
    target = ws.resolve(importer, probe).target
    if ws.identity(target) == ws.identity(importer):
        return "this file itself"
    earlier = _imported_above(ws, importer, target, ref)
    if earlier is not None:
        # fixing this one too would only bring the file twice (a fix must not draw a finding)
        return f"`{target}`, which the import on line {earlier + 1} brings already"
    owner = ws.rule_owner(importer)
    if owner is None:
        if importer not in ws.instruction_files:
            return None
        owner = posixpath.dirname(importer)
    if target not in ws.instruction_files:
        return None
    holder = target
    for name in sorted(ws.layout.instruction_names, key=len, reverse=True):
        if target == name or target.endswith("/" + name):
            holder = target[: -len(name)].rstrip("/")
            break
    if holder == "" or owner == holder or owner.startswith(holder + "/"):
        return f"`{target}`, which loads anyway as an instruction file"
    return None


def _imported_above(ws: Workspace, importer: str, target: str, ref: ImportRef) -> int | None:
    """The line of an import before `ref` in `importer` that brings `target` — as written, or
    once its own trailing punctuation is dropped — or None."""
    identity = ws.identity(target)
    for other, resolved in ws.imports(importer):
        if other.offset >= ref.offset:
            break
        if resolved.status is ImportStatus.OK:
            if resolved.identity == identity:
                return other.span.start.line
            continue
        trimmed = _trimmed_candidate(ws, importer, other)
        if trimmed is None:
            continue
        if ws.identity(ws.resolve(importer, _probe(other, trimmed)).target) == identity:
            return other.span.start.line
    return None


def _probe(ref: ImportRef, trimmed: str) -> ImportRef:
    return ImportRef(raw=trimmed, path=trimmed.replace("\\ ", " "), span=ref.span,
                     offset=ref.offset)


def _is_root_alias(ws: Workspace, path: str, identity: str | None) -> bool:
    """`@/components/ui`: an absolute path whose first directory does not exist at all."""
    if identity is not None or not path.startswith("/") or path.startswith("//"):
        return False
    first = path.lstrip("/").split("/", 1)[0]
    return bool(first) and not ws.reader.exists("/" + first)


def _root_relative(ws: Workspace, importer: str, path: str) -> str | None:
    """The root-relative file a missing import names when read from the root, if it exists."""
    if not posixpath.dirname(importer) or path.startswith(("/", "~", "../")):
        return None
    candidate = posixpath.normpath(path)
    if candidate.startswith("../") or candidate == ".":
        return None
    return candidate if candidate in ws.files else None


def _trimmed_candidate(ws: Workspace, importer: str, ref: ImportRef) -> str | None:
    """The raw path without trailing punctuation or `#fragment`, if that one resolves."""
    from rulemap.model import ImportRef as Ref

    candidates = []
    stripped = ref.raw.rstrip(TRAILING)
    if stripped and stripped != ref.raw:
        candidates.append(stripped)
    if "#" in ref.raw:
        candidates.append(ref.raw.split("#", 1)[0].rstrip(TRAILING))
    for raw in candidates:
        if not raw:
            continue
        probe = Ref(raw=raw, path=raw.replace("\\ ", " "), span=ref.span, offset=ref.offset)
        if ws.resolve(importer, probe).status is ImportStatus.OK:
            return raw
    return None


def closest_path(ws: Workspace, target: str) -> str | None:
    """The existing workspace file most like the missing `target` (cached until a file is
    created or deleted: it reads only the file list)."""
    key = _CLOSEST_PATH.key(target)
    cached = ws.derived.get(key, MISSING)
    if cached is not MISSING:
        return cached
    return ws.derived.put(key, _closest_path(ws, target), reads=())


def _closest_path(ws: Workspace, target: str) -> str | None:
    if target.startswith("/"):
        return None
    directory, _, name = target.rpartition("/")
    names = _names(ws)
    same = names.by_name.get(name)
    if not same:
        # a typo in the name of a file whose directory is right: its neighbours say it
        siblings = names.by_dir.get(directory, ())
        close = close_matches(name, siblings[:MAX_SIBLINGS], n=1, cutoff=0.75)
        if close:
            return f"{directory}/{close[0]}" if directory else close[0]
        # else names with the same extension anywhere, looked up in an edit-distance index
        # (built the first time it is needed): the cost of a look-up does not grow with the
        # workspace
        close = names.by_ext.close(name, n=3, cutoff=0.75)
        same = [p for c in close for p in names.by_name.get(c, ())]
    if not same:
        return None
    return max(same, key=lambda p: (_common_prefix(p, target), -len(p)))


MAX_SIBLINGS = 256  # file names of one directory compared with a missing import's name


def _extension(name: str) -> str:
    return name.rsplit(".", 1)[-1] if "." in name else ""


@record(frozen=True)
class _Names:
    by_name: dict[str, list[str]]  # base name → files with it
    by_dir: dict[str, list[str]]  # directory → the base names of its files
    by_ext: _LazyIndexes


def _names(ws: Workspace) -> _Names:
    """Workspace files by base name and by directory, and an index of base names per
    extension (until a create/delete)."""
    cached = ws.derived.get(_FILE_NAMES)
    if cached is None:
        by_name: dict[str, list[str]] = {}
        by_dir: dict[str, list[str]] = {}
        for path in ws.files:
            directory, _, name = path.rpartition("/")
            by_name.setdefault(name, []).append(path)
            by_dir.setdefault(directory, []).append(name)
        names_by_ext: dict[str, list[str]] = {}
        for name in by_name:
            names_by_ext.setdefault(_extension(name), []).append(name)
        cached = ws.derived.put(
            _FILE_NAMES, _Names(by_name, by_dir, _LazyIndexes(names_by_ext)), reads=()
        )
    return cached


class _LazyIndexes:
    """Extension → NameIndex of the stems of the base names with it, built on first use (most
    workspaces have no broken import of most extensions). Stems, not names: the extension is
    the same for all of them, and shorter keys make the index a third cheaper to build."""

    def __init__(self, names: dict[str, list[str]]) -> None:
        self._names = names
        self._built: dict[str, tuple[NameIndex, dict[str, list[str]]]] = {}

    def close(self, name: str, n: int, cutoff: float) -> list[str]:
        """Base names with `name`'s extension at least `cutoff` like it."""
        extension = _extension(name)
        built = self._built.get(extension)
        if built is None:
            if extension not in self._names:
                return []
            cut = len(extension) + 1 if extension else 0
            by_stem: dict[str, list[str]] = {}
            for full in self._names[extension]:
                by_stem.setdefault((full[:-cut] if cut else full).lower(), []).append(full)
            built = self._built[extension] = (NameIndex(by_stem), by_stem)
        index, by_stem = built
        stem = name[: -len(extension) - 1] if extension else name
        pool = [full for s in index.neighbours(stem) for full in by_stem.get(s, ())]
        return close_matches(name, pool, n=n, cutoff=cutoff)


def _common_prefix(a: str, b: str) -> int:
    return len(posixpath.commonprefix([a, b]))


def _ok_edges(ws: Workspace, path: str) -> list[tuple[ImportRef, str]]:
    """Imports that load, to canonical keys (a directory link back up is a cycle, not an
    endless chain of new paths)."""
    return [
        (ref, ws.canonical(r.target)) for ref, r in ws.imports(path) if r.status is ImportStatus.OK
    ]


def _cycles(ws: Workspace) -> list[Finding]:
    """Back edges of an iterative DFS over the import graph, from every document in order.
    Linear in the edges: each node's edges are listed once, and the stack position of each
    node on the current path is kept, so a cycle's path is a slice, not a search."""
    out: list[Finding] = []
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    on_path: dict[str, int] = {}  # node on the current path → its index in path_stack
    for root in ws.all_documents():
        if root in state:
            continue
        stack: list[tuple[str, list[tuple[ImportRef, str]], int]] = [
            (root, _ok_edges(ws, root), 0)
        ]
        path_stack: list[str] = [root]
        on_path[root] = 0
        state[root] = 1
        while stack:
            node, edges, index = stack[-1]
            if index >= len(edges):
                stack.pop()
                path_stack.pop()
                del on_path[node]
                state[node] = 2
                continue
            stack[-1] = (node, edges, index + 1)
            ref, target = edges[index]
            seen = state.get(target)
            if seen is None:
                state[target] = 1
                on_path[target] = len(path_stack)
                stack.append((target, _ok_edges(ws, target), 0))
                path_stack.append(target)
            elif seen == 1:
                cycle = path_stack[on_path[target]:] + [target]
                out.append(_cycle_finding(ws, node, ref, cycle))
    return out


def _cycle_finding(ws: Workspace, importer: str, ref: ImportRef, cycle: list[str]) -> Finding:
    shown = cycle if len(cycle) <= 8 else [*cycle[:4], f"… {len(cycle) - 6} more …", *cycle[-2:]]
    related = []
    for index, path in enumerate(cycle[:-1][:50]):
        nxt = cycle[index + 1]
        for edge_ref, target in _ok_edges(ws, path):
            if target == nxt:
                related.append(Related(path, edge_ref.span, f"imports `{nxt}`"))
                break
    return Finding(importer, ref.span, "warning", "import-cycle",
                   f"import cycle: {' → '.join(shown)}. Each file is read once, so the cycle "
                   f"stops here and this import brings nothing", related=related)


def _too_deep(ws: Workspace) -> list[Finding]:
    """Imports that are only ever reached past maxImportDepth (BFS from every loaded-for-a-
    reason file at hop 0)."""
    limit = ws.layout.max_import_depth
    hops: dict[str, int] = {}
    queue: deque[str] = deque()
    for root in ws.all_documents():
        hops[root] = 0
        queue.append(root)
    while queue:
        node = queue.popleft()
        if hops[node] >= limit:
            continue
        for _, target in _ok_edges(ws, node):
            if target not in hops:
                hops[target] = hops[node] + 1
                queue.append(target)
    out: list[Finding] = []
    for node, hop in hops.items():
        if hop != limit:
            continue
        for ref, target in _ok_edges(ws, node):
            if target not in hops:
                out.append(Finding(
                    node, ref.span, "warning", "import-too-deep",
                    f"`@{ref.raw}` would be import hop {hop + 1}, past "
                    f"{ws.layout.depth_setting} {limit}: `{target}` is never loaded through "
                    f"this chain"))
    return [f for f in out if not f.path.startswith("/")]
