"""A Claude Code session replayed step by step (docs/profiles/claude-code.md): the start-up
memory, then per tool step the memory files of each directory below the launch directory on
the way to a file its Read tool opened (shallow first, the first time the session enters it)
and the path-scoped rules whose `paths` match the file (the first time), each with its imports.

Claude Code has no shared budget. Only the Read tool brings nested memory and scoped rules:
Edit, Write, Grep, Glob and shell commands bring none (measured in anthropics/claude-code#90449
and #90450). A step whose tool the log does not name (`ToolStep.tool` None) counts as a read,
as every step did before the tool was known. The pieces are the profile's own (`startup`,
`add_nested`, `rule_matcher`): the start-up link is the one `explain` uses, and each step
a link on the run's load."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rulemap.model import Budget
from rulemap.profiles.base import directory_chain
from rulemap.profiles.claude_code.loader import ClaudeLoader, nested_dirs, normalize
from rulemap.profiles.steps import SessionReplay, SessionStep, ToolStep, directory_of

if TYPE_CHECKING:
    from rulemap.profiles.claude_code.load import ClaudeLoad
    from rulemap.workspace import Workspace

READ_TOOL = "Read"  # the one tool whose file opens bring nested memory and scoped rules
NOTE = (
    "Claude Code has no shared budget: each file joins whole; memory files of a "
    "subdirectory join when its Read tool first opens a file below it, path-scoped rules "
    "when Read first opens a file they match (Edit, Write, Grep, Glob and shell commands "
    "bring none; a step of an unnamed tool counts as a read)"
)


def replay(
    profile: ClaudeLoader, ws: Workspace, steps: Sequence[ToolStep], cwd: str
) -> SessionReplay:
    cwd_dir = normalize(cwd)
    opts = profile.settings_of(ws)
    chain = directory_chain(cwd_dir)
    _, load = profile.startup(ws, chain, opts)
    used = sum(f.chars for f in load.files)
    out = [SessionStep(0, "start-up", (), tuple(load.files), (), (), used, None,
                       skipped=tuple(load.skipped))]
    entered: set[str] = set()  # (a directory in it: every one above it is too)
    rules: set[str] = set()
    matched: set[str] = set()  # files whose rules joined: opened again, they bring none
    matching_rules = profile.rule_matcher(ws, chain, opts, set())
    for index, step in enumerate(steps, 1):
        link: ClaudeLoad | None = None  # made when something joins (most steps bring nothing)
        for path in step.paths if step.tool in (None, READ_TOOL) else ():
            directory, is_dir = directory_of(path)
            if directory not in entered:
                for below in nested_dirs(cwd_dir, directory):
                    if below in entered:
                        continue
                    entered.add(below)
                    link = link or load.child()
                    profile.add_nested(ws, link, below, opts)
            if is_dir or path in matched:
                continue  # a search over a directory reads no file a rule could match
            matched.add(path)
            for rule, home, note in matching_rules(path):
                if rule not in rules:
                    rules.add(rule)
                    link = link or load.child()
                    link.add(rule, "scoped", home=home, note=note)
        if link is None:
            out.append(SessionStep(index, step.kind, step.paths, (), (), (), used, None))
            continue
        used += sum(f.chars for f in link.own_files)
        out.append(SessionStep(index, step.kind, step.paths, tuple(link.own_files), (), (),
                               used, None, skipped=tuple(link.own_skipped)))
        load = link
    # the profile's notes on the whole load (instructionFiles, --home, approvals), without
    # its first (no shared budget), which NOTE says for a session
    notes = (NOTE, *profile.explanation_of(ws, load, None, cwd_dir, opts).notes[1:])
    return SessionReplay(
        profile.name, profile.title, ws.root, cwd_dir or ".", Budget("none", "chars", 0),
        tuple(out), notes=notes,
    )
