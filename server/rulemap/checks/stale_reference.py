"""stale-reference: a repository path that the text an agent receives names, and that names
nothing in the workspace — `` `src/api/users.ts` `` after a move, `[guide](docs/guide.md)` after
a delete, a link in an agent's own syntax (Cursor's `[x](mdc:path)`: `Profile.own_links`), an
`@path` mention to an agent that does not import.

What a path is: `text/references.py`. Where it may be: relative to the file's folder or to the
workspace root (a reader of `pkg/AGENTS.md` may read `src/x.ts` either way; an explicit `./` or
`../` is the folder's only), or, for a path of two or more parts, below any folder (a root file
telling about `packages/web` may name its `src/app.ts`): when none of those exists, it is stale.
A code span or mention counts only when its first folder exists (`dist/app.js` and
`node_modules/x` name files to come) and is `information`; a Markdown link counts as written and
is a `warning`. Fenced code is skipped unless `referencesInFencedCode = true`; so are HTML
comments the agent never gets (`Document.kept_lines`) and frontmatter.

A path absent by design is none: one a `.gitignore` ignores (a log, local state), or one the
sentence tells the agent to write (`text/references.py`'s `to_write`: "update `x`").

Tokens another check owns are left to it: every `@` token of a linted document is an import
token (`broken-import`), and the links of an agent's own syntax in the files it reads may be
its own findings (`Profile.checks_links`: Cursor's rules). `@` mentions are looked at only in
the files other agents read by their own names, when none of their readers follows imports (one
that does reports them itself).

The did-you-mean ("moved to X?") is a `Hint`, worked out only where the finding is shown: a
rename in the recent git history (`readers/git_renames.py`, one bounded `git log`, cached until
a file is created or deleted), else the one workspace file with the same name.
"""

from __future__ import annotations

import posixpath
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from rulemap.derived import MISSING, Key, KeyFamily
from rulemap.model import Finding, Fix, Hint, Span
from rulemap.profiles import PROFILES
from rulemap.profiles.base import Profile, selected
from rulemap.profiles.documents import read_documents
from rulemap.readers.gitignore import GitignoreSpec, ignored, read_gitignore
from rulemap.text.markdown import scan
from rulemap.text.references import (
    PathRef,
    PathResolution,
    has_extension,
    has_marks,
    path_refs,
)

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

MOVED: Final = "moved-path"  # the hint kind

_FINDINGS: Final = KeyFamily[list[Finding]]("stale-reference")  # document, agents
_REFS: Final = KeyFamily[list[PathResolution]]("path-references")  # document, mentions
_GITIGNORES: Final = KeyFamily[GitignoreSpec | None]("gitignore-spec")  # a .gitignore's key
_NAMES: Final[Key[dict[str, list[str]]]] = KeyFamily[dict[str, list[str]]]("file-by-name").key()
_RENAMES: Final[Key[dict[str, str]]] = KeyFamily[dict[str, str]]("git-renames").key()
_MAX_SUFFIX_PROBES = 64  # same-name files looked at for a path found below another folder


def document_check(ws: Workspace) -> list[Finding]:
    """Per-document: the linted documents (the editor re-checks one on each edit)."""
    agents = selected(ws)
    names = tuple(p.name for p in agents)
    out: list[Finding] = []
    for key in ws.lint_documents():
        out.extend(_document_findings(ws, key, agents, mentions=False, names=names))
    return out


def graph_check(ws: Workspace) -> list[Finding]:
    """Graph-wide: the files only other selected agents read by their own names (a Cursor
    rule, Copilot's instructions), which depend on the selection."""
    agents = selected(ws)
    if not agents:
        return []
    linted = set(ws.lint_documents())
    out: list[Finding] = []
    for key in read_documents(ws, agents):
        if key in linted or key.startswith("/"):
            continue
        readers = [p for p in agents if p.reads(ws, key)]
        mentions = bool(readers) and not any(p.follows_imports for p in readers)
        out.extend(_document_findings(ws, key, agents, mentions))
    return out


def _document_findings(
    ws: Workspace, key: str, agents: tuple[Profile, ...], mentions: bool,
    names: tuple[str, ...] | None = None,
) -> list[Finding]:
    if names is None:
        names = tuple(p.name for p in agents)
    cache = _FINDINGS.key(key, names, mentions)
    found = ws.derived.get(cache)
    if found is None:
        found = []
        stale = [r for r in references(ws, key, mentions) if r.found is None]
        if stale:
            readers = [p for p in agents if p.reads(ws, key)]
            owned = any(p.checks_links(ws, key) for p in readers)
            note = _readers_note(readers, agents)
            found = [_finding(key, r, note) for r in stale
                     if not (owned and r.ref.kind == "agent-link")]
        ws.derived.put(cache, found, reads=(key,))
    return found


def references(ws: Workspace, key: str, mentions: bool = False) -> list[PathResolution]:
    """Every path reference of `key` the agent receives, resolved (cached until `key` changes
    or a file is created or deleted)."""
    cache = _REFS.key(key, mentions)
    cached = ws.derived.get(cache)
    if cached is not None:
        return cached
    doc = ws.document(key)
    out: list[PathResolution] = []
    text = doc.text
    if not doc.unreadable and has_marks(text, mentions):
        out = _alternatives(ws, key, [_resolve(ws, key, ref) for ref in _refs(ws, key, mentions)])
    own = _own_links(ws, key)
    if own:
        out.extend(own)
        out.sort(key=lambda r: (r.ref.span.start, r.ref.span.end))
    ws.derived.put(cache, out, reads=(key,))
    return out


def _alternatives(ws: Workspace, key: str, found: list[PathResolution]) -> list[PathResolution]:
    """`.mcp.json`, `.cursor/mcp.json` or `.vscode/mcp.json`: paths offered as alternatives on
    one line, one of which exists, name whichever the reader has — none is stale."""
    lines = ws.document(key).lines

    def offered(line: int) -> bool:
        return " or " in lines[line] and lines[line].count("`") >= 4  # two spans or more

    return [replace(r, found="") if r.found is None and r.ref.kind in ("code", "mention")
            and offered(r.ref.span.start.line) else r for r in found]


def _refs(ws: Workspace, key: str, mentions: bool) -> list[PathRef]:
    doc = ws.document(key)
    first = doc.frontmatter.span.end.line + 1 if doc.frontmatter.span is not None else 0
    kept: set[int] | None = None  # made on the first path found (most documents name none)
    fenced: set[int] | None = None
    in_fences = ws.config.references_in_fenced_code

    def skipped(line: int) -> bool:
        nonlocal fenced, kept
        if kept is None and doc.kept_lines:
            kept = set(doc.kept_lines)
        if line < first or (kept is not None and line not in kept):
            return True
        if in_fences:
            return False
        if fenced is None:  # the Markdown scan, only for a document that names a path
            fenced = scan(doc.text, first, doc.lines, imports=ws.layout.syntax.imports).code_lines
        return line in fenced

    return list(path_refs(doc.text, mentions, skipped))


def _own_links(ws: Workspace, key: str) -> list[PathResolution]:
    """The links of `key` in an agent's own syntax, as each registered agent reads them (every
    reading of the path tried): whether or not the agent is selected, a link promises a
    file."""
    out = []
    for facts in PROFILES.facts():  # light facts: an agent not selected is never made
        for ref, places in facts.own_links(ws, key):
            found = next((p for p in places if _exists(ws, p)), None)
            out.append(PathResolution(ref, places, found))
    return out


def _candidates(ws: Workspace, key: str, path: str) -> tuple[str, ...]:
    """Where `path` may be, root-relative: from the file's folder (and from the real file's,
    when `key` is a symlink: its author wrote the links there), then from the root — unless
    `./` or `../` says it is the folder's."""
    folder = posixpath.dirname(key)
    real = posixpath.dirname(ws.canonical(key)) if not key.startswith("/") else folder
    readings = [folder, real] if path.startswith(("./", "../")) else [folder, real, ""]
    out: list[str] = []
    for base in dict.fromkeys(readings):
        joined = posixpath.normpath(posixpath.join(base, path) if base else path)
        if joined == "." or joined == ".." or joined.startswith(("../", "/")):
            continue
        out.append(joined)
    return tuple(dict.fromkeys(out))


def _resolve(ws: Workspace, key: str, ref: PathRef) -> PathResolution:
    places = _candidates(ws, key, ref.path)
    found: str | None = next((p for p in places if _exists(ws, p)), None)
    if found is not None:
        pass
    elif not places or not _counts(ws, key, ref) or _ignored(ws, places):
        # outside the workspace, not a path of it, or one git ignores (a log, a cache the
        # agent or a tool writes, absent from every clone by design): nothing to say
        found = ""
    else:
        tail = ref.path
        while tail.startswith(("./", "../")):
            tail = tail.split("/", 1)[1]
        if "/" in tail.rstrip("/"):
            found = _below_a_folder(ws, tail)
    return PathResolution(ref, places, found)


def _counts(ws: Workspace, key: str, ref: PathRef) -> bool:
    """Whether a missing path is one a reader would take for this workspace's: a link with an
    extension or a trailing slash, a file name beside this one (`./DOC.md`), else a path whose
    first folder exists (`../langfuse-docs/x.md` names a sibling checkout, `dist/app.js` a
    build's output)."""
    if ref.kind in ("link", "agent-link") and (has_extension(ref.path) or ref.path.endswith("/")):
        return True
    dots, rest = "", ref.path
    while rest.startswith(("./", "../")):
        head, rest = rest.split("/", 1)
        dots += head + "/"
    words = rest.rstrip("/").split("/")
    if len(words) == 1:
        return bool(dots) and has_extension(rest)
    return any(_is_dir(ws, p) for p in _candidates(ws, key, dots + words[0]))


def _ignored(ws: Workspace, places: tuple[str, ...]) -> bool:
    """Whether a `.gitignore` ignores a reading of the path: by the reader's own rules (as the
    working tree's walk applies them), or by the `.gitignore` files of the workspace read
    through it (a commit's tree, `--ref`, lists no ignored file but holds its .gitignores)."""
    return any(ws.reader.is_ignored(p.rstrip("/")) or _ignored_by_listed(ws, p.rstrip("/"))
               for p in places)


def _ignored_by_listed(ws: Workspace, key: str) -> bool:
    """`key` (or a folder on its way) ignored by the workspace's own `.gitignore` files, each
    applying below its folder as git applies it."""
    parts = key.split("/")
    specs: list[tuple[str, GitignoreSpec]] = []
    for depth in range(len(parts)):
        folder = "/".join(parts[:depth])
        name = f"{folder}/.gitignore" if folder else ".gitignore"
        if name in ws.files:
            spec = _gitignore(ws, name)
            if spec is not None:
                specs.append((folder, spec))
        if specs:
            rel = "/".join(parts[:depth + 1])
            if ignored(specs, rel if depth == len(parts) - 1 else rel + "/"):
                return True
    return False


def _gitignore(ws: Workspace, name: str) -> GitignoreSpec | None:
    cache = _GITIGNORES.key(name)
    found = ws.derived.get(cache, MISSING)
    if found is MISSING:
        found = ws.derived.put(cache, read_gitignore(ws.abs(name), ws.reader.read_bytes),
                               reads=(name,))
    return found


def _is_dir(ws: Workspace, path: str) -> bool:
    return bool(ws.files.under(path + "/")) or ws.reader.is_dir(ws.abs(path))


def _exists(ws: Workspace, path: str) -> bool:
    """A file or folder of the workspace, git-ignored ones too (read through the reader); a
    path without an extension also names a module file beside it (`src/lib/utils` is
    `src/lib/utils.ts`)."""
    bare = path.rstrip("/")
    if not bare or bare in ws.files or ws.reader.exists(ws.abs(bare)):
        return True
    stem, dot, extension = bare.rpartition(".")
    if dot and extension in _COMPILED:
        # TypeScript names its sources by their output (`lib/index.js` is `lib/index.ts`)
        return any(stem + "." + source in ws.files for source in _COMPILED[extension])
    return not has_extension(bare) and bool(ws.files.under(bare + "."))


_COMPILED: Final = {"js": ("ts", "tsx"), "mjs": ("mts",), "cjs": ("cts",), "jsx": ("tsx",)}


def _below_a_folder(ws: Workspace, path: str) -> str | None:
    """A workspace file or folder whose path ends with `path` (`src/app.ts` of
    `packages/web/src/app.ts`): the text names it relative to another folder."""
    bare = path.rstrip("/")
    tail = "/" + bare
    if has_extension(bare):
        name = bare.rsplit("/", 1)[-1]
        for candidate in _by_name(ws).get(name, ())[:_MAX_SUFFIX_PROBES]:
            if candidate.endswith(tail):
                return candidate
    # a folder (or a module without its extension) of that path below another folder
    for candidate in ws.files:
        slashed = "/" + candidate
        at = slashed.find(tail + "/")
        if at < 0 and not has_extension(bare):
            at = slashed.find(tail + ".")
        if at >= 0:
            return candidate[:at] + bare if at else bare
    return None


def _by_name(ws: Workspace) -> dict[str, list[str]]:
    cached = ws.derived.get(_NAMES)
    if cached is None:
        cached = {}
        for path in ws.files:
            cached.setdefault(path.rsplit("/", 1)[-1], []).append(path)
        ws.derived.put(_NAMES, cached, reads=())
    return cached


def _readers_note(readers: list[Profile], agents: tuple[Profile, ...]) -> str:
    if not readers or len(readers) == len(agents):
        return ""
    titles = [p.title for p in readers]
    names = titles[0] if len(titles) == 1 else ", ".join(titles[:-1]) + " and " + titles[-1]
    return f" (of the selected agents, {names} read{'s' if len(titles) == 1 else ''} this file)"


def _finding(key: str, resolution: PathResolution, note: str) -> Finding:
    ref = resolution.ref
    slash = "/" if ref.path.endswith("/") else ""
    places = tuple(p + slash for p in resolution.candidates)
    where = (f"`{places[0]}` does not exist" if len(places) == 1 else
             f"neither `{places[0]}` nor `{places[1]}` exists" if len(places) == 2 else
             f"none of `{places[0]}`, `{places[1]}` or `{places[2]}` exists")
    hint = Hint(MOVED, (ref.path, *resolution.candidates))
    tail = f"{where}{note}; an agent that follows it finds nothing"
    if ref.kind in ("link", "agent-link"):
        return Finding(key, ref.span, "warning", "stale-reference",
                       f"the link `{ref.written}` points to nothing in the workspace ({tail})",
                       hint=hint)
    return Finding(key, ref.span, "information", "stale-reference",
                   f"`{ref.written}` names nothing in the workspace ({tail})", hint=hint)


# ----- the did-you-mean ----------------------------------------------------------------------


def moved_to(ws: Workspace, places: tuple[str, ...]) -> tuple[str, str, str] | None:
    """Where a missing path went: (the reading it was, its new path) — renamed in the recent
    git history to a file that exists, else the one workspace file with its name — or None."""
    renames = _renames(ws)
    for place in places:
        new = renames.get(place.rstrip("/"))
        if new is not None and new in ws.files:
            return place, new, "renamed in git"
    names = {posixpath.basename(p.rstrip("/")) for p in places}
    if len(names) != 1:
        return None
    name = names.pop()
    if not has_extension(name):
        return None  # folders and extensionless modules: no name to go by
    same = _by_name(ws).get(name, [])
    if len(same) == 1:
        return places[0], same[0], "the only file of that name"
    return None


def _renames(ws: Workspace) -> dict[str, str]:
    cached = ws.derived.get(_RENAMES, MISSING)
    if cached is not MISSING and cached is not None:
        return cached
    from rulemap.readers.git_renames import git_allowed_here, recent_renames

    if not git_allowed_here():
        return {}  # the language server's event loop: only what a worker put here (`renames`)
    return ws.derived.put(_RENAMES, dict(recent_renames(ws.reader)), reads=())


def renames(ws: Workspace) -> dict[str, str]:
    """The recent renames, asking git if not known yet (in a worker thread)."""
    return _renames(ws)


def keep_renames(ws: Workspace, found: dict[str, str]) -> None:
    """`found` (from a worker's `renames`) as `ws`'s own, until a file is created or deleted."""
    ws.derived.put(_RENAMES, found, reads=())


def with_moved(ws: Workspace, finding: Finding) -> Finding:
    """The stale-reference `finding` with its "moved to X?" worked out (in the message and as
    a quick fix), or without its hint when nothing says where the path went."""
    assert finding.hint is not None
    path, *places = finding.hint.args
    found = moved_to(ws, tuple(places))
    if found is None:
        return replace(finding, hint=None)
    place, new, how = found
    folder = posixpath.dirname(finding.path)
    explicit = path.startswith(("./", "../"))
    # written as it was: from the file's folder when that reading was the one that moved (or
    # the path says so), else from the root
    from_folder = bool(folder) and (explicit or (
        place != posixpath.normpath(path.lstrip("/")) and new.startswith(folder + "/")))
    written = posixpath.relpath(new, folder) if from_folder else new
    if path.startswith("./") and not written.startswith("../"):
        written = "./" + written
    if path.endswith("/") and not written.endswith("/"):
        written += "/"
    line = _line_text(ws, finding)
    current = line[finding.span.start.col:finding.span.end.col]
    if path not in current:
        return replace(finding, hint=None, message=f"{finding.message}. Moved to `{new}` ({how})?")
    new_text = current.replace(path, written, 1)
    return replace(
        finding, hint=None, message=f"{finding.message}. Moved to `{new}` ({how})?",
        fixes=[*finding.fixes, Fix(f"Change to `{new_text}`", "replace", finding.path,
                                   finding.span, new_text)])


def _line_text(ws: Workspace, finding: Finding) -> str:
    lines = ws.document(finding.path).lines
    line = finding.span.start.line
    return lines[line] if line < len(lines) else ""


def reference_at(ws: Workspace, key: str, line: int, col: int) -> PathResolution | None:
    """The path reference of `key` under (line, col), for a hover (mentions as the document's
    readers see them)."""
    agents = selected(ws)
    readers = [p for p in agents if p.reads(ws, key)]
    mentions = (key not in ws.lint_documents() and bool(readers)
                and not any(p.follows_imports for p in readers))
    for resolution in references(ws, key, mentions):
        span: Span = resolution.ref.span
        if span.start.line == line and span.start.col <= col <= span.end.col:
            return resolution
    return None
