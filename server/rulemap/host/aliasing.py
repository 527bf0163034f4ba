"""A file read under another name: which other name of a file an agent reads it by, for the
views that speak of one file at a time (docs/reach.md, "A file read under another name").

Why here: `reach` and `why` find the text in each load by identity themselves
(`rulemap.aliases`); the editor's per-agent lens and `explain` speak of one path, and ask
here whether the snapshot's agent reads that path's text under another name (a `CLAUDE.md`
symlinked to `AGENTS.md`: Claude Code reads `AGENTS.md`'s text as `CLAUDE.md`), and which
entries of a load are another file's text. Light: the engine is imported inside.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulemap.host.snapshot import Snapshot, workspace_of
from rulemap.records import record

if TYPE_CHECKING:
    from rulemap.aliases import Through
    from rulemap.model import Explanation, LoadStatus

__all__ = ["ReadAs", "Through", "load_names", "read_as", "read_as_field"]


@record(frozen=True)
class ReadAs:
    """The snapshot's agent reads a file's text under another name: `through` says which and
    how, `status` is that name's load status."""

    through: Through
    status: LoadStatus


def read_as(snap: Snapshot, key: str) -> ReadAs | None:
    """When the snapshot's agent never loads `key` by its own name: the first other name of
    the same file (a symlink either way) that it loads, with that name's status (None: none,
    or `key` loads by its own name)."""
    from rulemap import analysis
    from rulemap.aliases import other_names, through
    from rulemap.profiles.documents import read_documents

    ws = workspace_of(snap)
    if key.startswith("/"):
        return None
    profile = analysis.active_profile(ws, snap.profile)
    if analysis.load_status(ws, key, snap.profile).loads:
        return None
    names = {*ws.all_documents(), *ws.imported_documents(), *read_documents(ws, [profile])}
    for name in other_names(ws, key, names):
        status = analysis.load_status(ws, name, snap.profile)
        if status.loads:
            found = through(ws, key, name)
            assert found is not None  # another name
            return ReadAs(found, status)
    return None


def load_names(snap: Snapshot, explanation: Explanation) -> tuple[Through, ...]:
    """The entries of a load that are another file's text (a symlink to a file of the
    workspace): each as that file's `Through`, asked by the entry's name ("`CLAUDE.md` is the
    text of `AGENTS.md` (`CLAUDE.md` is a symlink to it)")."""
    from rulemap.aliases import through

    ws = workspace_of(snap)
    out: list[Through] = []
    for loaded in explanation.files:
        if loaded.path.startswith("/"):
            continue
        real = ws.canonical(loaded.path)
        found = through(ws, loaded.path, real)
        if found is not None:
            out.append(found)
    return tuple(out)


def read_as_field(snap: Snapshot, explanation: Explanation) -> dict[str, object]:
    """`load_names` as `explain --json` and `rulemap/effectiveInstructions` carry it:
    `{"readAs": [...]}` — each entry's name, how, and the file it is the text of — or `{}`
    when no entry is another file's text."""
    found = [{"path": t.asked, "how": t.how, "real": t.real}
             for t in load_names(snap, explanation)]
    return {"readAs": found} if found else {}
