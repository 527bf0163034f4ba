"""Whether the selected agents find anything to read in the workspace, and which file names
they would read: so that a command over a workspace without one instruction file for them
says so, instead of a silent "All checks passed"."""

from __future__ import annotations

from rulemap.globs import compile_patterns
from rulemap.host.snapshot import Snapshot, workspace_of
from rulemap.profiles.base import selected
from rulemap.records import record
from rulemap.workspace.letter_case import fold


@record(frozen=True)
class Unread:
    """No selected agent reads any file of the workspace: the agents (names) and the file
    names they read (their own globs, e.g. `**/GEMINI.md`)."""

    agents: tuple[str, ...]
    globs: tuple[str, ...]
    # files whose names differ only in letter case from a name an agent opens (`agents.md`):
    # (file, the name it stands for), read on macOS and Windows but not here (`name-case`)
    cased: tuple[tuple[str, str], ...] = ()


def nothing_to_read(snap: Snapshot) -> Unread | None:
    """An `Unread` when none of the selected agents reads a file of the workspace; None as
    soon as one does. Asks each agent (`reads`, by name and place alone) only of the files
    its own globs name, so a large tree costs one glob match per file at most."""
    ws = workspace_of(snap)
    agents = selected(ws)
    # the default model's instruction files and rules, known already: most workspaces end here
    documents = ws.all_documents()
    if any(profile.reads(ws, key) for profile in agents for key in documents):
        return None
    globs: dict[str, None] = {}
    for profile in agents:
        globs.update(dict.fromkeys(profile.watched_globs))
        if ws.case_insensitive:  # `agents.md` is AGENTS.md on macOS and Windows
            own = compile_patterns([fold(g) for g in profile.watched_globs])
            if any(own.match(fold(key)) and profile.reads(ws, key) for key in ws.files):
                return None
            continue
        own = compile_patterns(profile.watched_globs)
        if any(own.match(key) and profile.reads(ws, key) for key in ws.files):
            return None
    # a file written for an agent in a place it never looks is no empty workspace: `check`
    # reports it (misplaced-file), and saying "no instruction file" would contradict it
    if any(profile.misplaced(ws) for profile in agents):
        return None
    from rulemap.checks.name_case import case_files

    cased = tuple((path, name) for path, (name, _) in case_files(ws).items())
    return Unread(tuple(p.name for p in agents), tuple(globs), cased)


def exists_in(snap: Snapshot, key: str) -> bool:
    """Whether `key` (a workspace key) names a file or directory of the workspace as the
    snapshot reads it (the working tree, or `--ref`'s commit)."""
    ws = workspace_of(snap)
    return key == "." or bool(ws.reader.exists(ws.abs(key)))
