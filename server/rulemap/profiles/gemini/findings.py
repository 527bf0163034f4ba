"""What Gemini's loading gets wrong: context files that are empty or unreadable, `@` tokens it
reads differently from what a reader expects, cycles and imports past depth 5."""

from __future__ import annotations

import posixpath
import re
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from rulemap import suggest
from rulemap.derived import KeyFamily
from rulemap.model import Finding, Fix, Hint, Pos, Related, Span
from rulemap.profiles.base import empty_file, unreadable_file
from rulemap.profiles.gemini.imports import GeminiToken
from rulemap.profiles.gemini.paths import (
    GLOBAL_DIR,
    MAX_DEPTH,
    Root,
    named_files,
    project_root,
    read_text,
    resolve,
    tokens_of,
)
from rulemap.profiles.placement import home_marker
from rulemap.suggest import NameIndex, close_matches

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

_ESCAPED_TOKEN = re.compile(r"(?:\\ |[^\s])+")
_TRAILING = ",:;.)!?'\"]>"
_WRAPPERS = {"{": "}", "(": ")", "[": "]", "<": ">", '"': '"', "'": "'"}  # pseudo-imports

_FILE_FINDINGS: Final = KeyFamily[list[Finding]]("gemini-file-findings")  # context file
# file, project root, whether the default checks lint it
_TOKEN_FINDINGS: Final = KeyFamily[list[Finding]]("gemini-token-findings")
_NAMES: Final = KeyFamily[tuple[dict[str, list[str]], NameIndex]]("gemini-names")  # extension
# context files → (findings, the files processed, those of them linted by the default checks)
_GRAPH_FINDINGS: Final = KeyFamily[tuple[list[Finding], frozenset[str], frozenset[str]]](
    "gemini-graph-findings"
)


def misplaced(ws: Workspace, names: tuple[str, ...], jit: bool) -> list[Finding]:
    """Context files in a `.gemini/` directory (`.gemini/GEMINI.md`, a package's
    `pkg/.gemini/GEMINI.md`): the start-up walk looks for the names in each directory from
    the git root down to the cwd itself, and the global file is the user's
    `~/.gemini/GEMINI.md`, so a project's `.gemini/` holds none Gemini reads at start-up. Just
    in time (`jit`, the default) it joins only when a file tool touches a path inside that
    `.gemini/` (`findUpwardGeminiFiles` from the touched path's directory); the older eager
    load's downward scan finds it at start-up, so then nothing is reported."""
    if not jit:
        return []
    out: list[Finding] = []
    home = home_marker(ws)
    for key in named_files(ws, names):
        directory, _, name = key.rpartition("/")
        owner, _, last = directory.rpartition("/")
        if last != GLOBAL_DIR:
            continue
        dot = f"{owner}/{GLOBAL_DIR}" if owner else GLOBAL_DIR
        there = f"`{owner}/{name}`" if owner else f"`{name}` at the root"
        # a home directory kept in git (dotfiles): its `.gemini/` is the user's own
        dotfiles = home is not None and not owner
        out.append(Finding(
            key, Span.at(0, 0), "information" if dotfiles else "warning", "misplaced-file",
            f"Gemini CLI reads `{name}` in each directory from the git root down to its "
            f"working directory, and the user's `~/{GLOBAL_DIR}/{name}`; a project's "
            f"`{GLOBAL_DIR}/` is neither, so it never loads `{key}` at start-up, only just in "
            f"time when a file tool touches a path in `{dot}/`. "
            + (f"This tree looks like a home directory (`{home}` at its top): installed as "
               f"one, it is the user's global file, read in every project" if dotfiles else
               f"Move it to {there}")))
    return out


def file_findings(ws: Workspace, top: str, lint: frozenset[str]) -> list[Finding]:
    """A context file's own findings: unreadable or empty (when the generic checks do not
    already report it, as they do for the default model's files)."""
    if top in lint:
        return []  # the generic checks report its bytes
    cache_key = _FILE_FINDINGS.key(top)
    cached = ws.derived.get(cache_key)
    if cached is not None:
        return cached
    out: list[Finding] = []
    text, why = read_text(ws, top)
    if why:
        out.append(unreadable_file(top, why, "Gemini skips it."))
    elif not text.strip():
        out.append(empty_file(top, ws.document(top).lines[0],
                              "context file is empty, so Gemini leaves it out"))
    ws.derived.put(cache_key, out, reads=(top,))
    return out


def _token_findings(ws: Workspace, key: str, root: Root, lint: frozenset[str]) -> list[Finding]:
    """What Gemini's reading of `key`'s `@` tokens gets wrong, for a file whose tokens it
    processes. Cached with the file and what its imports resolve to."""
    # whether the default model lints the file decides what is left to say: in the key
    cache_key = _TOKEN_FINDINGS.key(key, root.absolute, key in lint)
    cached = ws.derived.get(cache_key)
    if cached is not None:
        return cached
    doc = ws.document(key)
    # what the default model's import checks already report on this file (same token, same
    # path): not said twice
    theirs = {(ref.offset, ref.path) for ref in doc.imports} if key in lint else set()
    out: list[Finding] = []
    reads = {key}
    for token in tokens_of(ws, key):
        span = token.span
        if token.kind == "code":
            continue
        if token.kind == "refused":
            if looks_like_file(ws, key, token.path):
                out.append(_refused_finding(key, token))
            else:
                pseudo = _pseudo_import(ws, key, doc.text, token, root, reads)
                if pseudo is not None:
                    out.append(pseudo)
            continue
        found = resolve(ws, key, token, root)
        reads.add(found.key)
        if found.status == "url":
            out.append(Finding(
                key, span, "warning", "suspicious-import",
                f"Gemini reads `@{token.path}` as an import and refuses it (a URL), putting an "
                f"`Import failed` comment in place of the link; drop the `@` or wrap it in "
                f"backticks", fixes=[_backticks(key, token)]))
            continue
        said = (token.offset, token.path) in theirs
        if found.status == "outside":
            if not said:
                where = f"`{root.key}/`" if root.key else "the workspace root"
                out.append(Finding(
                    key, span, "warning", "import-outside-workspace",
                    f"`@{token.path}` points outside the project root ({where}), so Gemini "
                    f"refuses it and puts an `Import failed` comment in its place; move the "
                    f"file inside {where}"))
            continue
        if found.status == "directory":
            if not said:
                out.append(Finding(key, span, "error", "broken-import",
                                   f"`@{token.path}` is a directory; Gemini imports name files"))
            continue
        if found.status == "ok":
            _, why = read_text(ws, found.key)
            if why and not said:
                out.append(Finding(key, span, "error", "unreadable-file",
                                   f"`{found.key}` cannot be imported: {why}"))
            continue
        # missing
        escaped = _escaped_form(ws, key, doc.text, token, root)
        if escaped is not None:
            out.append(Finding(
                key, span, "warning", "suspicious-import",
                f"Gemini has no `\\ ` escape: the import ends at the space, so it reads "
                f"`@{token.path}`, which does not exist, instead of `{escaped}`. Rename the "
                f"file without spaces"))
            continue
        trimmed = _trimmed(ws, key, token, root)
        if trimmed is not None:
            if not said:
                out.append(Finding(
                    key, span, "warning", "suspicious-import",
                    f"`@{token.path}` names `{found.key}`, which does not exist: Gemini's "
                    f"import runs to the next space, so `{token.path[len(trimmed):]}` is part "
                    f"of the path. Use `@{trimmed}` and move the punctuation away",
                    fixes=[Fix(f"Change to `@{trimmed}`", "replace", key, span,
                               "@" + trimmed)]))
            continue
        if said:
            continue
        if not looks_like_file(ws, key, token.path):
            out.append(Finding(
                key, span, "information", "broken-import",
                f"Gemini reads `@{token.path}` as an import of `{found.key}`, which does not "
                f"exist, and puts an `Import failed` comment in place of the word. If it is "
                f"not a file, wrap it in backticks", fixes=[_backticks(key, token)]))
            continue
        # the closest existing file is worked out where the finding is shown (`near_path`)
        hint = Hint(NEAR_PATH, (found.key,)) if not found.key.startswith("/") else None
        out.append(Finding(key, span, "error", "broken-import",
                           f"`@{token.path}`: `{found.key}` does not exist (Gemini imports are "
                           f"relative to the importing file)", hint=hint))
    ws.derived.put(cache_key, out, reads=reads)
    return out


NEAR_PATH: Final = "gemini-near-path"  # a broken import's closest existing file


def near_path(ws: Workspace, finding: Finding) -> Finding:
    """The broken-import `finding` with the closest existing file as Gemini would import it
    (`./` first): in the message and as a fix (`GeminiProfile.resolve_hint`)."""
    assert finding.hint is not None
    suggestion = _closest(ws, finding.hint.args[0])
    if not suggestion:
        return replace(finding, hint=None)
    relative = posixpath.relpath(suggestion, posixpath.dirname(finding.path) or ".")
    relative = relative if relative.startswith(".") else "./" + relative
    return replace(finding, message=f"{finding.message}; did you mean `@{relative}`?",
                   fixes=[*finding.fixes, Fix(f"Change to `@{relative}`", "replace",
                                              finding.path, finding.span, "@" + relative)],
                   hint=None)


def looks_like_file(ws: Workspace, importer: str, path: str) -> bool:
    """Whether a missing `@path` was meant as a file (Gemini takes `~/` as no path prefix)."""
    return suggest.looks_like_file(ws.files, importer, path, ("./", "../", "/"))


def _closest(ws: Workspace, target: str) -> str | None:
    """An existing file most like the missing `target`: the same name elsewhere, else a close
    name with the same extension (an edit-distance index over those names, built once per
    extension until a file is created or deleted)."""
    name = target.rsplit("/", 1)[-1]
    extension = posixpath.splitext(name)[1]
    if not extension:
        return None
    cache_key = _NAMES.key(extension)
    cached = ws.derived.get(cache_key)
    if cached is None:
        by_name: dict[str, list[str]] = {}
        for path in ws.files.with_suffix(extension):
            by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
        cached = (by_name, NameIndex(by_name))
        ws.derived.put(cache_key, cached, reads=())
    by_name, index = cached
    same = by_name.get(name)
    if not same:
        pool = index.neighbours(name)
        close = close_matches(name, pool, n=1, cutoff=0.75)
        same = by_name.get(close[0]) if close else None
    if not same:
        return None
    return max(same, key=lambda p: (len(posixpath.commonprefix([p, target])), -len(p)))


def _refused_finding(key: str, token: GeminiToken) -> Finding:
    if token.path.startswith("~"):
        return Finding(
            key, token.span, "warning", "suspicious-import",
            f"Gemini does not read `@{token.path}` as an import: a path must start with `.`, "
            f"`/` or a letter, and Gemini has no home-directory imports, so it stays plain "
            f"text. Import a file inside the project instead")
    fixed = "@./" + token.path
    return Finding(
        key, token.span, "warning", "suspicious-import",
        f"Gemini does not read `@{token.path}` as an import: a path must start with `.`, `/` "
        f"or a letter, so it stays plain text. Write `{fixed}`",
        fixes=[Fix(f"Change to `{fixed}`", "replace", key, token.span, fixed)])


def _pseudo_import(ws: Workspace, key: str, text: str, token: GeminiToken, root: Root,
                   reads: set[str]) -> Finding | None:
    """`@{ policy.md }`, `@(a.md)`, `@"a.md"`: a path wrapped in brackets or quotes after `@`,
    which another tool's syntax may read but Gemini's import parser rejects (a path must start
    with `.`, `/` or a letter and runs to the next space), so it stays plain text."""
    opener = token.path[0]
    closer = _WRAPPERS.get(opener)
    if closer is None:
        return None
    start = token.offset + 2
    end = text.find(closer, start)
    newline = text.find("\n", start)
    if end < 0 or (0 <= newline < end):
        return None
    inner = text[start:end].strip()
    if not inner or any(c in inner for c in " \t\r") or not looks_like_file(ws, key, inner):
        return None
    written = text[token.offset:end + 1]
    meant = inner if inner[0] in "./" or inner[0].isascii() and inner[0].isalpha() else (
        "./" + inner)
    line, col = token.span.start.line, token.span.start.col
    span = Span(token.span.start, Pos(line, col + len(written)))
    probe = GeminiToken(meant, span, token.offset, "import")
    reads.add(resolve(ws, key, probe, root).key)
    # no quick fix: the registry gives this code none (the message says what to write)
    return Finding(
        key, span, "warning", "import-not-followed",
        f"Gemini CLI's import parser does not read `{written}`: an import is `@` and a path "
        f"starting with `.`, `/` or a letter, up to the next space, so this stays plain text "
        f"and `{inner}` is not loaded. Write `@{meant}`")


def _backticks(key: str, token: GeminiToken) -> Fix:
    return Fix("Wrap in backticks", "replace", key, token.span, f"`@{token.path}`")


def _escaped_form(ws: Workspace, key: str, text: str, token: GeminiToken,
                  root: Root) -> str | None:
    """`@my\\ file.md`: the path a reader means, when it exists (Gemini stops at `my\\`)."""
    if not token.path.endswith("\\"):
        return None
    match = _ESCAPED_TOKEN.match(text, token.offset + 1)
    if match is None:
        return None
    meant = match.group(0).replace("\\ ", " ")
    probe = GeminiToken(meant, token.span, token.offset, "import")
    return meant if resolve(ws, key, probe, root).status == "ok" else None


def _trimmed(ws: Workspace, key: str, token: GeminiToken, root: Root) -> str | None:
    """The path without trailing punctuation or a `#fragment`, when that one exists."""
    candidates = []
    stripped = token.path.rstrip(_TRAILING)
    if stripped and stripped != token.path:
        candidates.append(stripped)
    if "#" in token.path:
        candidates.append(token.path.split("#", 1)[0].rstrip(_TRAILING))
    for path in candidates:
        if path:
            probe = GeminiToken(path, token.span, token.offset, "import")
            if resolve(ws, key, probe, root).status == "ok":
                return path
    return None


def graph_findings(ws: Workspace, tops: list[str], lint: frozenset[str]) -> list[Finding]:
    """Token findings of every file Gemini processes, then cycles and imports past depth 5:
    per project root, a breadth-first walk from its context files gives each file its
    shallowest depth (Gemini has no read-once set: a file at depth 5 on one chain may load
    shallower on another)."""
    cache_key = _GRAPH_FINDINGS.key(tuple(tops))
    cached = ws.derived.get(cache_key)
    # the token findings of a file the default model lints say less: valid while the same
    # files are linted
    if cached is not None and cached[1] & lint == cached[2]:
        return cached[0]
    groups: dict[Root, list[str]] = {}
    for top in tops:
        groups.setdefault(project_root(ws, top), []).append(top)
    out: list[Finding] = []
    reads: set[str] = set(tops)
    for root, members in groups.items():
        edges = _Edges(ws, root)
        depth: dict[str, int] = {}
        origin: dict[str, str] = {}
        queue: deque[str] = deque()
        for top in members:
            depth[top] = 0
            origin[top] = top
            queue.append(top)
        while queue:
            node = queue.popleft()
            if depth[node] >= MAX_DEPTH:
                continue
            for _, target in edges(node):
                if target not in depth:
                    depth[target] = depth[node] + 1
                    origin[target] = origin[node]
                    queue.append(target)
        reads.update(depth)
        for node, hops in depth.items():
            if hops < MAX_DEPTH and not node.startswith("/"):
                out.extend(_token_findings(ws, node, root, lint))
            elif hops == MAX_DEPTH:
                for token, target in edges(node):
                    if target not in depth:
                        out.append(Finding(
                            node, token.span, "warning", "import-too-deep",
                            f"`@{token.path}` is never expanded: `{node}` is only reached at "
                            f"import depth {MAX_DEPTH} (from `{origin[node]}`), and Gemini "
                            f"expands imports {MAX_DEPTH} levels deep, so it stays plain text "
                            f"and `{target}` is not loaded through it"))
        out.extend(_cycles(members, edges))
        reads.update(edges.touched)
    result = [f for f in out if not f.path.startswith("/")]
    nodes = frozenset(reads)
    ws.derived.put(cache_key, (result, nodes, nodes & lint), reads=reads)
    return result


class _Edges:
    """A file's imports that load (readable targets inside the root), listed once per file."""

    def __init__(self, ws: Workspace, root: Root) -> None:
        self.ws = ws
        self.root = root
        self.cache: dict[str, list[tuple[GeminiToken, str]]] = {}
        self.touched: set[str] = set()  # every target resolved (an edit may make one readable)

    def __call__(self, key: str) -> list[tuple[GeminiToken, str]]:
        found = self.cache.get(key)
        if found is None:
            found = []
            for token in tokens_of(self.ws, key):
                if token.kind != "import":
                    continue
                target = resolve(self.ws, key, token, self.root)
                if target.status != "url":
                    self.touched.add(target.key)
                if target.status == "ok" and not read_text(self.ws, target.key)[1]:
                    found.append((token, self.ws.canonical(target.key)
                                  if not target.key.startswith("/") else target.key))
            self.cache[key] = found
        return found


def _cycles(tops: list[str],
            edges: Callable[[str], list[tuple[GeminiToken, str]]]) -> list[Finding]:
    """Back edges of an iterative depth-first walk from the context files: each closes a cycle
    that Gemini's per-chain tracking stops (after reading the chain's first file once more)."""
    out: list[Finding] = []
    state: dict[str, int] = {}  # 1 on the path, 2 done
    for top in tops:
        if top in state:
            continue
        path: list[str] = [top]
        where: dict[str, int] = {top: 0}
        state[top] = 1
        stack: list[tuple[str, int]] = [(top, 0)]
        while stack:
            node, index = stack[-1]
            listed = edges(node)
            if index >= len(listed):
                stack.pop()
                path.pop()
                del where[node]
                state[node] = 2
                continue
            stack[-1] = (node, index + 1)
            token, target = listed[index]
            seen = state.get(target)
            if seen is None:
                state[target] = 1
                where[target] = len(path)
                path.append(target)
                stack.append((target, 0))
            elif seen == 1:
                cycle = path[where[target]:] + [target]
                out.append(_cycle_finding(node, token, cycle, edges))
    return out


def _cycle_finding(node: str, token: GeminiToken, cycle: list[str],
                   edges: Callable[[str], list[tuple[GeminiToken, str]]]) -> Finding:
    shown = cycle if len(cycle) <= 8 else [*cycle[:4], f"… {len(cycle) - 6} more …", *cycle[-2:]]
    related: list[Related] = []
    for index, path in enumerate(cycle[:-1][:50]):
        for edge_token, target in edges(path):
            if target == cycle[index + 1]:
                related.append(Related(path, edge_token.span, f"imports `{target}`"))
                break
    return Finding(
        node, token.span, "warning", "import-cycle",
        f"import cycle: {' → '.join(shown)}. Gemini stops a chain at a file already on it, so "
        f"this import brings nothing", related=related)
