"""Changes grouped by the files they apply to, and a set of files summarized by directory.

"412 files under packages/web/ now also load .claude/rules/react.md" rather than 412 lines:
the changes of one agent that apply to exactly the same files (a rule and the docs it imports)
form one group; groups equal for several agents merge, naming each agent.
"""

from __future__ import annotations

import bisect
import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import field

from rulemap.diff.result import Change, Group, Where
from rulemap.records import record

AREAS_KEPT = 5  # subdirectories named per group (all files stay in `files`)


@record
class ProfileChanges:
    """One agent's changes: change → the files it applies to; and the start-up load's."""

    profile: str
    files: dict[Change, set[str]] = field(default_factory=dict)
    startup: set[Change] = field(default_factory=set)

    def add(self, changes: Iterable[Change], targets: Iterable[str]) -> None:
        paths = list(targets)
        for change in changes:
            found = self.files.get(change)
            if found is None:
                self.files[change] = set(paths)
            else:
                found.update(paths)


class FileSet:
    """Every file compared, sorted, to count the files under a directory by bisection."""

    def __init__(self, paths: Iterable[str]):
        self.sorted = sorted(paths)

    def count_under(self, directory: str) -> int:
        if not directory:
            return len(self.sorted)
        start = directory + "/"
        lo = bisect.bisect_left(self.sorted, start)
        hi = bisect.bisect_left(self.sorted, directory + "0")  # "0" follows "/"
        return hi - lo


def group_changes(per_profile: list[ProfileChanges], every: FileSet) -> tuple[Group, ...]:
    """Groups of (agents, changes, files), largest first."""
    merged: dict[tuple[frozenset[str], bool, tuple[Change, ...]], list[str]] = {}
    for pc in per_profile:
        by_files: dict[tuple[frozenset[str], bool], list[Change]] = {}
        for change in pc.startup - pc.files.keys():
            by_files.setdefault((frozenset(), True), []).append(change)
        for change, paths in pc.files.items():
            by_files.setdefault((frozenset(paths), change in pc.startup), []).append(change)
        for (files, startup), changes in by_files.items():
            merged.setdefault((files, startup, tuple(sorted(changes))), []).append(pc.profile)
    groups = [
        Group(tuple(profiles), changes, tuple(sorted(paths)), startup,
              summarize(sorted(paths), every))
        for (paths, startup, changes), profiles in merged.items()
    ]
    groups.sort(key=lambda g: (-len(g.files), not g.startup, g.changes, g.profiles))
    return tuple(groups)


def summarize(paths: list[str], every: FileSet) -> Where:
    """`paths` (sorted) as a count, their deepest common directory, whether they are all of
    its files, and its largest subdirectories (or files) one level down."""
    if not paths:
        return Where(0, "", False, ())
    under = _common_dir(paths[0], paths[-1])
    total = every.count_under(under)
    cut = len(under) + 1 if under else 0
    counts: dict[str, int] = {}
    for path in paths:
        rest = path[cut:]
        slash = rest.find("/")
        head = rest[:slash + 1] if slash >= 0 else rest
        counts[head] = counts.get(head, 0) + 1
    areas = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:AREAS_KEPT]
    prefix = f"{under}/" if under else ""
    return Where(len(paths), under, len(paths) == total,
                 tuple((prefix + name, n) for name, n in areas))


def _common_dir(first: str, last: str) -> str:
    """The deepest directory holding both (and so every path sorted between them)."""
    common = posixpath.commonprefix([first, last])
    if common == first == last:
        return posixpath.dirname(first)
    slash = common.rfind("/")
    if slash < 0:
        return ""
    # `a/b/` is a whole directory; `a/bc` against `a/bd` stops at `a`
    return common[:slash]


def counts_by_profile(groups: Iterable[Group]) -> Mapping[str, int]:
    """Files whose load changes, per agent."""
    files: dict[str, set[str]] = {}
    for g in groups:
        for p in g.profiles:
            files.setdefault(p, set()).update(g.files)
    return {p: len(f) for p, f in files.items()}
