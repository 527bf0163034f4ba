"""Every agent's loads, gathered once for the map: the distinct loads (a table the page looks
up by number), each workspace file's load, and each instruction file's reach in a line.

An agent with load groups (`Profile.load_groups`: the files that load the same thing) gives
them; for an agent without, one file per directory is explained and its load stands for the
directory's files (`sampled`: the page says so) — explaining 20,000 files one by one is not
worth a map. Nothing here decides what an agent loads: the profiles' explanations say it.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Any

from rulemap.compare import is_cut, size_of, total_of
from rulemap.reach import Glimpse, cut_line_of, overview
from rulemap.records import record

if TYPE_CHECKING:
    from rulemap.model import Explanation
    from rulemap.profiles.base import Profile
    from rulemap.workspace import Workspace

Groups = list[tuple["Explanation", list[str]]]


@record
class Paths:
    """Paths numbered once for the whole page (loads name their files by number), and the
    entries of loads too: the same file, loaded the same way, is one entry shared by every
    load that holds it (the root's file is in every load of a 20,000-file tree)."""

    names: list[str] = field(default_factory=list)
    numbers: dict[str, int] = field(default_factory=dict)
    entries: list[list[Any]] = field(default_factory=list)
    entry_numbers: dict[tuple[Any, ...], int] = field(default_factory=dict)

    def number(self, path: str) -> int:
        found = self.numbers.get(path)
        if found is None:
            found = self.numbers[path] = len(self.names)
            self.names.append(path)
        return found

    def entry(self, values: list[Any]) -> int:
        key = tuple(values)
        found = self.entry_numbers.get(key)
        if found is None:
            found = self.entry_numbers[key] = len(self.entries)
            self.entries.append(values)
        return found


@record
class AgentLoads:
    """One agent's loads over the workspace."""

    profile: Profile
    sampled: bool  # one explanation per directory (the profile has no load groups)
    size_warning: int | None  # `Profile.size_warning`: a file past it is marked
    table: list[dict[str, Any]]  # the distinct loads, JSON-ready
    of_file: dict[str, int]  # workspace file → its load's number in `table`
    glimpses: dict[str, Glimpse]  # each loaded (or left out) file's reach in a line


def agent_loads(ws: Workspace, profile: Profile, cwd: str, paths: Paths) -> AgentLoads:
    groups = profile.load_groups(ws, cwd)
    sampled = groups is None
    if groups is None:
        groups = per_directory(ws, profile, cwd)
        glimpses = _glimpses(ws, groups)
    else:
        glimpses = overview(ws, profile, cwd) or {}
    warning = profile.size_warning(ws)
    table: list[dict[str, Any]] = []
    of_file: dict[str, int] = {}
    for explanation, members in groups:
        number = len(table)
        table.append(_load_json(ws, explanation, members, paths, warning))
        for member in members:
            of_file[member] = number
    return AgentLoads(profile, sampled, warning, table, of_file, glimpses)


def per_directory(ws: Workspace, profile: Profile, cwd: str) -> Groups:
    """One explanation per directory holding files, for the directory's files: its first
    file (in path order) is explained."""
    by_dir: dict[str, list[str]] = {}
    for path in sorted(ws.files):
        by_dir.setdefault(posixpath.dirname(path), []).append(path)
    return [(profile.explain(ws, members[0], cwd), members) for members in by_dir.values()]


def _glimpses(ws: Workspace, groups: Groups) -> dict[str, Glimpse]:
    """`reach.overview`'s answer over given groups (the per-directory ones)."""
    out: dict[str, Glimpse] = {}
    for explanation, members in groups:
        for loaded in explanation.files:
            glimpse = out.setdefault(loaded.path, Glimpse())
            glimpse.files += len(members)
            line = cut_line_of(ws, loaded)
            if line is not None:
                glimpse.cut += len(members)
                glimpse.cut_line = line if glimpse.cut_line is None else min(glimpse.cut_line,
                                                                              line)
        for path in explanation.left_out:
            out.setdefault(path, Glimpse()).left_out += len(members)
    return out


def share(explanation: Explanation) -> int | None:
    """How much of its budget a load uses, in thousandths: a shared budget's total against
    its limit, a per-file budget's largest file against it; None without a budget."""
    budget = explanation.budget
    if budget.limit <= 0 or budget.kind == "none":
        return None
    if budget.kind == "shared":
        return total_of(explanation) * 1000 // budget.limit
    unit = budget.unit
    largest = max((size_of(f, unit) for f in explanation.files), default=0)
    return largest * 1000 // budget.limit


def _load_json(ws: Workspace, explanation: Explanation, members: Sequence[str],
               paths: Paths, warning: int | None = None) -> dict[str, Any]:
    unit = explanation.budget.unit
    files = []
    # the files past the agent's size warning, measured as its finding measures them
    warned = [] if warning is None else [
        paths.number(f.path) for f in explanation.files
        if not f.path.startswith("/") and ws.document(f.path).chars > warning]
    for loaded in explanation.files:
        line = cut_line_of(ws, loaded)
        files.append(paths.entry([
            paths.number(loaded.path), loaded.reason,
            -1 if loaded.imported_by is None else paths.number(loaded.imported_by),
            size_of(loaded, unit), None if line is None else line + 1,
            1 if is_cut(loaded) else 0,
        ]))
    return {
        "files": files,
        "leftOut": [paths.number(p) for p in explanation.left_out],
        "total": total_of(explanation),
        "share": share(explanation),
        "over": explanation.over_budget,
        "warned": warned,
        "members": len(members),
        "example": paths.number(members[0]) if members else -1,
    }


def glimpse_json(glimpse: Glimpse | None) -> dict[str, Any]:
    if glimpse is None:
        return {"files": 0, "cut": 0, "cutLine": None, "leftOut": 0}
    return {"files": glimpse.files, "cut": glimpse.cut,
            "cutLine": None if glimpse.cut_line is None else glimpse.cut_line + 1,
            "leftOut": glimpse.left_out}
