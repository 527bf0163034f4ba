"""loaded-twice: the same text loaded twice for one agent and one file — a symlink, a copy or
an import of a file the agent does not read once — and what it wastes, in that agent's unit.

An agent that reads each real file once (the default model, Claude Code) reports a symlinked
alias itself (`duplicate-load`); this check asks each selected agent's own load, so it holds for
exactly the agents that do bring the text twice (Copilot reads `.github/copilot-instructions.md`
and `AGENTS.md` without comparing them) and names them.

Cheap when nothing is doubled: only files whose text another document repeats (or that two
files import) are candidates, and only the start-up load and the loads of the repeated files
themselves are asked — an import diamond deeper down, in a load of its own, is not looked for
(a load per importing directory cost 0.2 s on the 20,000-file benchmark for nothing found).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from rulemap.model import Explanation, Finding, LoadedFile, Span
from rulemap.profiles.base import Profile, prefixed, selected
from rulemap.profiles.documents import read_documents

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

# Texts shorter than this are not reported: two `CLAUDE.md` files that each hold one
# `@AGENTS.md` line, or two empty headings, repeat a few characters and import different files.
MIN_CHARS = 200
_UNIT_WORDS = {"chars": "characters", "bytes": "bytes", "tokens": "tokens"}


def check(ws: Workspace) -> list[Finding]:
    agents = selected(ws)
    if not agents:
        return []
    repeated, imported = _candidates(ws, agents)
    candidates = repeated | imported
    if not candidates:
        return []
    out: list[Finding] = []
    cwd = ws.config.cwd
    targets: list[str | None] = [None, *sorted(repeated)]
    for profile in agents:
        found: dict[str, Finding] = {}
        for target in targets:  # start-up first: its (warning) finding is the one kept
            for finding in _twice(ws, profile, profile.explain(ws, target, cwd), candidates):
                found.setdefault(finding.path, finding)
        out.extend(prefixed(profile, list(found.values())))
    return out


def _candidates(ws: Workspace, agents: tuple[Profile, ...]) -> tuple[set[str], set[str]]:
    """Workspace files whose text (at least MIN_CHARS) another document repeats, and files
    two documents import: the only files an agent can load twice."""
    by_text: dict[str, list[str]] = defaultdict(list)
    importers: dict[str, set[str]] = defaultdict(set)
    for path in read_documents(ws, agents):
        doc = ws.document(path)
        if doc.unreadable or len(doc.text.strip()) < MIN_CHARS:
            continue
        by_text[doc.text].append(path)
    for path in ws.lint_documents():
        for _ref, resolved in ws.imports(path):
            if not resolved.target.startswith("/"):
                importers[resolved.target].add(path)
    repeated = {p for paths in by_text.values() if len(paths) > 1 for p in paths}
    return repeated, {t for t, who in importers.items() if len(who) > 1}


def _twice(
    ws: Workspace, profile: Profile, load: Explanation, candidates: set[str]
) -> list[Finding]:
    """The files of `load` whose text an earlier file of the same load already brought."""
    first: dict[str, LoadedFile] = {}
    out: list[Finding] = []
    for entry in load.files:
        if entry.path.startswith("/") or entry.path not in candidates:
            continue
        doc = ws.document(entry.path)
        if doc.unreadable or len(doc.text.strip()) < MIN_CHARS:
            continue
        earlier = first.get(doc.text)
        if earlier is None:
            first[doc.text] = entry
            continue
        out.append(_finding(ws, profile, load, entry, earlier))
    return out


def _finding(
    ws: Workspace, profile: Profile, load: Explanation, entry: LoadedFile, earlier: LoadedFile
) -> Finding:
    unit = load.budget.unit
    size = {"bytes": entry.bytes, "tokens": entry.tokens}.get(unit) or entry.chars
    if unit == "bytes" and entry.bytes is None:
        size = len(ws.document(entry.path).text.encode("utf-8"))
    how = _how(ws, entry, earlier)
    where = f" for `{load.target}`" if load.target is not None else " at start-up"
    message = (
        f"{profile.title} loads the same text twice{where}: `{entry.path}` {how} "
        f"`{earlier.path}`, which it loads first — {size:,} {_UNIT_WORDS.get(unit, unit)} "
        f"spent again; keep only one of the two where {profile.title} reads them"
    )
    # every session pays for a start-up load; a file's own load only work beside that file
    # (the conditional stays at each Finding: the registry test reads severities from there)
    startup = load.target is None
    if entry.imported_by is not None and entry.import_line is not None:
        importer = ws.document(entry.imported_by)
        line = importer.lines[entry.import_line] if entry.import_line < len(importer.lines) else ""
        return Finding(entry.imported_by, Span.at(entry.import_line, 0, len(line)),
                       "warning" if startup else "information",
                       "loaded-twice", message)
    doc = ws.document(entry.path)
    return Finding(entry.path, Span.at(0, 0, len(doc.lines[0]) if doc.lines else 0),
                   "warning" if startup else "information", "loaded-twice", message)


def _how(ws: Workspace, entry: LoadedFile, earlier: LoadedFile) -> str:
    if entry.path == earlier.path:
        return "is imported again after"
    if ws.identity(entry.path) == ws.identity(earlier.path):
        return "is the same file, through a symlink, as"
    return "is a copy of"
