"""What Mastra's injector does wrong to the workspace's instruction files.

- `budget-overflow`: a file over `maxTokens` is cut; the finding sits on the line where the
  injector stops reading.
- `empty-instructions` / `unreadable-file`: the injector puts `reminderText` in such a file's
  place. Reported only for files the generic checks (`checks/files.py`) do not lint already —
  they lint the default model's names (AGENTS.md, CLAUDE.md, …) and what those import, not
  `CONTEXT.md` — so no file is reported twice.

Cost: only files named AGENTS.md / CLAUDE.md / CONTEXT.md (any case) are read, found once per
workspace shape through the file index's `.md` table; the findings are cached with the files
they read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from rulemap.derived import IMPORT_GRAPH, Key, KeyFamily
from rulemap.model import Finding, Span
from rulemap.profiles.base import empty_file, unreadable_file
from rulemap.profiles.mastra.identity import path_identity
from rulemap.profiles.mastra.inject import (
    Settings,
    inject_text,
    js_trim,
    line_count,
    line_of,
)
from rulemap.profiles.mastra.names import LOWER_NAMES, NAMES

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

_FILES_KEY: Final[Key[list[str]]] = KeyFamily[list[str]]("mastra-instruction-files").key()
_FINDINGS: Final = KeyFamily[list[Finding]]("mastra-findings")  # settings


def instruction_files(ws: Workspace) -> list[str]:
    """Every workspace file the injector can inject: named AGENTS.md, CLAUDE.md or CONTEXT.md
    (any case: a touched `docs/agents.md` is used directly), gitignored ones included (the
    injector knows nothing of git). Sorted; cached until a file is created or deleted."""
    cached = ws.derived.get(_FILES_KEY)
    if cached is not None:
        return cached
    found: set[str] = set()
    pools = [ws.files.with_suffix(s) for s in (".md", ".MD", ".Md", ".mD")]
    pools.append(list(ws.reader.ignored_files()))
    for pool in pools:
        for path in pool:
            if path.rsplit("/", 1)[-1].lower() in LOWER_NAMES:
                found.add(path)
    result = sorted(found)
    # which files exist changes only with a create or delete, which drops every derived value
    ws.derived.put(_FILES_KEY, result, reads=())
    return result


def findings(ws: Workspace, settings: Settings) -> list[Finding]:
    if not settings.enabled:
        return []  # nothing is ever injected
    key = _FINDINGS.key(settings)
    cached = ws.derived.get(key)
    if cached is not None:
        return cached
    # only the files the ancestry walk finds by their exact names: a `docs/api/agents.md` page
    # is injected only when a tool touches that very file, and reporting every such page (an
    # API reference has dozens) as a cut or empty instruction file is noise (docs/corpus.md)
    files = [p for p in instruction_files(ws) if p.rsplit("/", 1)[-1] in NAMES]
    out: list[Finding] = []
    linted: set[str] | None = None  # identities the generic checks lint (built when needed)
    for path in _one_per_file(ws, files):
        doc = ws.document(path)
        unusable = doc.unreadable is not None or not js_trim(doc.text)
        if unusable:
            if linted is None:
                linted = {ws.identity(p) for p in ws.lint_documents()}
            if ws.identity(path) in linted:
                continue  # checks/files.py reports it
            out.append(_unusable(ws, path, settings))
            continue
        injected = inject_text(doc.text, settings.max_tokens)
        if injected.truncated and injected.stop is not None:
            out.append(_overflow(ws, path, settings, injected.stop, injected.at_line_break,
                                 injected.shown_tokens, injected.total_tokens))
    # which files the generic checks lint follows the import graph
    ws.derived.put(key, out, reads=[*files, IMPORT_GRAPH])
    return out


def _one_per_file(ws: Workspace, files: list[str]) -> list[str]:
    """One path per real file (a CLAUDE.md linked to AGENTS.md is injected once): the file
    itself when it is among them, else its first alias."""
    chosen: dict[str, str] = {}
    for path in files:
        identity = path_identity(ws, path)
        current = chosen.get(identity)
        if current is None or (identity == ws.abs(path) and identity != ws.abs(current)):
            chosen[identity] = path
    return sorted(chosen.values())


def _fallback(settings: Settings) -> str:
    if settings.reminder_text:
        return "Mastra's AgentsMDInjector injects the reminderText in its place"
    return "Mastra's AgentsMDInjector injects nothing for it (reminderText is empty)"


def _unusable(ws: Workspace, path: str, settings: Settings) -> Finding:
    doc = ws.document(path)
    if doc.unreadable is not None and not ws.inside(ws.identity(path)):
        # a link out of the workspace: Rulemap's reader refuses it, the injector does not
        return unreadable_file(
            path, doc.unreadable,
            "Mastra's AgentsMDInjector reads it from the disk, so what it injects is not "
            "checked here; keep instruction files inside the workspace",
            cannot="be read by Rulemap",
        )
    if doc.unreadable is not None:
        return unreadable_file(
            path, doc.unreadable,
            f"{_fallback(settings)}; make it a readable UTF-8 text file or delete it",
        )
    return empty_file(path, doc.lines[0] if doc.lines else "",
                      f"instruction file is empty: {_fallback(settings)}")


def _overflow(
    ws: Workspace, path: str, settings: Settings, stop: int, at_break: bool, shown: int,
    total: int,
) -> Finding:
    doc = ws.document(path)
    line = line_of(doc.text, stop)
    where = "after" if at_break else "inside"
    limit = settings.max_tokens
    return Finding(
        path,
        Span.at(line, 0, len(doc.lines[line]) if line < len(doc.lines) else 0),
        "warning",
        "budget-overflow",
        f"Mastra's AgentsMDInjector cuts this file at maxTokens {limit:,} (about "
        f"{limit * 4:,} characters): it stops reading {where} line {line + 1} of "
        f"{line_count(doc)} (~{shown:,} of ~{total:,} estimated tokens kept, 4 characters a "
        "token) and adds a truncation notice; shorten the file, move parts into instruction "
        "files of subdirectories, or raise `maxTokens` in [profiles.mastra]",
    )
