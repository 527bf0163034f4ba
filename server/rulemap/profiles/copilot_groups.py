"""Every workspace file in one pass: the groups of files Copilot loads the same for
(`CopilotProfile.load_groups`).

What `CopilotProfile._explain` reads of the target is where the nearest AGENTS.md is (the
coding agent looks from the target's directory up; code review reads none, VS Code's chat the
root's only) and which `.instructions.md` files' `applyTo` match it; everything else (the
repository file, the root's CLAUDE.md / GEMINI.md, skipped instruction files) is the same for
every file. So files are grouped by (the directory of their nearest AGENTS.md, the instruction
files that apply to them), each file's `applyTo` globs matched once over the file index in
Copilot's dialect (`glob_files`, cached per glob) rather than file by file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulemap.model import Explanation
from rulemap.profiles.base import Profile, join, options_of, parent_dir
from rulemap.profiles.copilot_files import (
    AGENTS,
    CODING_AGENT,
    VSCODE_CHAT,
    exists,
    instruction_files,
    meta,
)
from rulemap.profiles.copilot_globs import EVERYTHING, Dialect, glob_files
from rulemap.profiles.place_groups import Anchors, explained, grouped, rules_of_files

if TYPE_CHECKING:
    from rulemap.workspace import Workspace


def load_groups(
    ws: Workspace, profile: Profile, cwd: str
) -> list[tuple[Explanation, list[str]]]:
    """[(the explanation of the group's first file, every file of the group)] covering
    `ws.files`; `profile`: Copilot's (its options, its `_explain`), typed as any profile so
    that this module stays below the one that calls it."""
    opts = options_of(ws, profile)
    agent: str = opts["agent"]
    dialect = Dialect(agent == VSCODE_CHAT)
    # only the coding agent looks for the nearest AGENTS.md (`_nearest_agents`); the others
    # read the root's or none, the same for every file
    nested = agent == CODING_AGENT and bool(opts["useAgentsMdFile"])
    anchors = Anchors(lambda d: exists(ws, join(d, AGENTS))) if nested else None
    rules = rules_of_files((key, _applies_to(ws, key, dialect))
                           for key in instruction_files(ws) if _scoped(ws, key, agent))

    def key_of(path: str) -> tuple[str | None, tuple[str, ...]]:
        return (anchors(parent_dir(path)) if anchors is not None else None,
                rules.get(path, ()))

    return explained(profile, ws, cwd, grouped(ws.files, key_of))


def _scoped(ws: Workspace, key: str, agent: str) -> bool:
    """Whether `_explain` asks `applies` of instruction file `key` (readable, a usable header
    that does not exclude `agent`, an `applyTo`); any other is skipped for every file."""
    if ws.document(key).unreadable:
        return False
    info = meta(ws, key)
    return info.problem is None and info.exclude != agent and info.globs is not None


def _applies_to(ws: Workspace, key: str, dialect: Dialect) -> tuple[str, ...]:
    """The files `applies` is true for: nothing when a glob is `**` (or `*`, `**/*`: it
    applies to every file alike, so it tells no file from another), else every file one of
    its globs matches."""
    globs = [g for g in meta(ws, key).globs or () if not g.error]
    if any(g.pattern in EVERYTHING for g in globs):
        return ()
    found: set[str] = set()
    for glob in globs:
        found.update(glob_files(ws, glob, dialect))
    return tuple(found)
