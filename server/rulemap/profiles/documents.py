"""The files the selected agents read as instruction files or rules, by their own names and
places (imports aside): the workspace's documents, and what each agent's `watched_globs` name
and its `reads` accepts (`TOY.txt`, `.cursorrules`, `AGENTS.override.md`). Shared by the
engine's question (`analysis.agent_documents`) and the checks that look at every agent's files
(`checks/link_only.py`, `checks/loaded_twice.py`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from rulemap.derived import KeyFamily
from rulemap.globs import compile_patterns

if TYPE_CHECKING:
    from rulemap.profiles.base import Profile
    from rulemap.workspace import Workspace

_AGENT_DOCUMENTS: Final = KeyFamily[tuple[str, ...]]("agent-documents")


def read_documents(ws: Workspace, agents: Sequence[Profile]) -> tuple[str, ...]:
    """Every file one of `agents` reads as an instruction file or rule, sorted. The candidates
    are the files their `watched_globs` name (git-ignored ones too: agents know nothing of
    git); each agent's `reads` has the last word. Kept until a file is created or deleted."""
    key = _AGENT_DOCUMENTS.key(tuple(p.name for p in agents))
    cached = ws.derived.get(key)
    if cached is not None:
        return cached
    found = set(ws.all_documents())
    globs = [g for p in agents for g in p.watched_globs]
    if globs:
        compiled = compile_patterns(globs)
        needles = _needles(globs)
        candidates = [*ws.files, *ws.reader.ignored_files()]
        found.update(
            path for path in candidates
            if (needles is None or needles.search(path))
            and path not in found and compiled.match(path)
            and any(p.reads(ws, path) for p in agents)
        )
    result = tuple(sorted(found))
    ws.derived.put(key, result, reads=())
    return result


def _needles(globs: list[str]) -> re.Pattern[str] | None:
    """A literal every path some glob matches contains — per glob, its longest run without a
    wildcard — as one alternation, or None when a glob has none (`**`). Searching literals
    costs a fraction of the globs' regex, and every path of the workspace is tested."""
    out = []
    for glob in globs:
        runs = [r for r in re.split(r"\*\*/|[*?\[\]{}]", glob) if r]
        if not runs:
            return None
        out.append(max(runs, key=len))
    return re.compile("|".join(re.escape(n) for n in dict.fromkeys(out)))
