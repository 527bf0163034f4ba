"""Which files are Claude Code memory files, by name and place.

Per directory: `CLAUDE.md`, `.claude/CLAUDE.md`, `CLAUDE.local.md` (the memory files) and
`AGENTS.md` (read only when `instructionFiles` says so). Explain probes the few directories it
walks through the reader (an ignored `.claude/` or `CLAUDE.local.md` still loads: Claude Code knows
nothing of git); workspace-wide questions (detect, reads, findings) use a name index built once
from the walked `.md` files, kept until a file is created or deleted."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Final

from rulemap.derived import Key, KeyFamily
from rulemap.profiles.base import join
from rulemap.workspace.letter_case import find_named, fold

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

CLAUDE_MD = "CLAUDE.md"
DOT_CLAUDE_MD = ".claude/CLAUDE.md"
LOCAL_MD = "CLAUDE.local.md"
AGENTS_MD = "AGENTS.md"
MEMORY_NAMES = (CLAUDE_MD, DOT_CLAUDE_MD, LOCAL_MD)  # the files that make AGENTS.md a fallback
ALL_NAMES = (AGENTS_MD, *MEMORY_NAMES)
_LONGEST_FIRST = sorted(ALL_NAMES, key=len, reverse=True)
_BASENAMES = frozenset(n.rsplit("/", 1)[-1] for n in ALL_NAMES)
_FOLDED_BASENAMES = frozenset(fold(n) for n in _BASENAMES)
_NAMES: Final[Key[dict[str, dict[str, str]]]] = KeyFamily[dict[str, dict[str, str]]](
    "claude-code-names"
).key()


def owner_of(path: str, fold_case: bool = False) -> tuple[str, str] | None:
    """(directory, name) when `path` is one of the names in some directory, else None.
    Longest names first: `x/.claude/CLAUDE.md` is x's `.claude/CLAUDE.md`. `fold_case`: the
    platform's file system is case-insensitive, where Claude Code, opening `x/CLAUDE.md` by
    name, is handed `x/claude.md` (docs/profiles/claude-code.md, "Letter case")."""
    if path.rsplit("/", 1)[-1] not in _BASENAMES:
        if not fold_case or fold(path.rsplit("/", 1)[-1]) not in _FOLDED_BASENAMES:
            return None
        path_folded = fold(path)
        for name in _LONGEST_FIRST:
            low = fold(name)
            if path_folded == low:
                return "", name
            if path_folded.endswith("/" + low):
                return sys.intern(path[: -len(name) - 1]), name
        return None
    for name in _LONGEST_FIRST:
        if path == name:
            return "", name
        if path.endswith("/" + name):
            return sys.intern(path[: -len(name) - 1]), name  # one copy of each directory
    return None


def name_index(ws: Workspace) -> dict[str, dict[str, str]]:
    """directory → {name: key} for every memory file and AGENTS.md of the workspace (walked
    files plus the ones git ignores). Names only change with a create or delete, which drops
    every derived value, so it is stored without reads."""
    key = _NAMES
    cached = ws.derived.get(key)
    if cached is not None:
        return cached
    index: dict[str, dict[str, str]] = {}
    folds = ws.case_insensitive
    # a case-insensitive platform reads `claude.MD` too: every file is a candidate there
    pool = ws.files if folds else ws.files.with_suffix(".md")
    for path in [*pool, *ws.reader.ignored_files()]:
        found = owner_of(path, folds)
        if found is not None:
            names = index.setdefault(found[0], {})
            if path.endswith(found[1]):  # the exact name wins over one in other letter case
                names[found[1]] = path
            else:
                names.setdefault(found[1], path)
    ws.derived.put(key, index, reads=())
    return index


def probe(ws: Workspace, directory: str) -> dict[str, str]:
    """{name: key} of the names that exist as files in `directory`. A directory the walk
    listed is answered from the name index (its ignored files are indexed too); one it did
    not (git-ignored, or created since) is asked of the reader: Claude Code knows no git."""
    walked = ws.index.directories
    if directory in walked:
        found = dict(name_index(ws).get(directory, {}))
        if join(directory, ".claude") in walked:
            return found
        found.pop(DOT_CLAUDE_MD, None)  # `.claude/` unwalked (ignored?): ask the reader
        names: tuple[str, ...] = (DOT_CLAUDE_MD,)
    else:
        found, names = {}, ALL_NAMES
    for name in names:
        key = find_named(ws, directory, name)
        if key is not None:
            found[name] = key
    return {name: found[name] for name in ALL_NAMES if name in found}
