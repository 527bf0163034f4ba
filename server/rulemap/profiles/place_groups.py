"""Load groups by place: what `Profile.load_groups` needs for an agent whose load for a file
depends only on the directories on the file's path that hold certain files (nested AGENTS.md,
GEMINI.md just in time, a folder's own rules) and on which rules' globs match the file
(Gemini CLI, Copilot, Cursor, Mastra).

Each agent says what counts (`Anchors`: the deepest directory on a path holding its files;
the rules and the files each matches, found per rule over the file index); files that agree
on both load the same, so one of them is explained per group (`explained`), and 20,000 files
cost a few hundred explanations instead of 20,000.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TYPE_CHECKING

from rulemap.profiles.base import parent_dir

if TYPE_CHECKING:
    from rulemap.model import Explanation
    from rulemap.profiles.base import Profile
    from rulemap.workspace import Workspace


class Anchors:
    """Directory → the deepest directory from it up (itself included) for which `holds` is
    true, or None; each directory asked once. With `floor`, only directories strictly below
    it count ('' = every directory but the root); None: the root counts too."""

    def __init__(self, holds: Callable[[str], bool], floor: str | None = None) -> None:
        self.holds = holds
        self.floor = floor
        self.seen: dict[str, str | None] = {}

    def _counts(self, directory: str) -> bool:
        if self.floor is None:
            return True
        if not self.floor:
            return bool(directory)
        return directory.startswith(self.floor + "/")

    def __call__(self, directory: str) -> str | None:
        walked: list[str] = []
        result: str | None = None
        while True:
            if directory in self.seen:
                result = self.seen[directory]
                break
            walked.append(directory)
            if not self._counts(directory):
                break  # nor does anything above it
            if self.holds(directory):
                result = directory
                break
            if not directory:
                break
            directory = parent_dir(directory)
        for d in walked:
            self.seen[d] = result
        return result


def rules_of_files(hits: Iterable[tuple[str, Iterable[str]]]) -> dict[str, tuple[str, ...]]:
    """[(rule, the files it applies to)] → file → its rules, in the order given (equal
    tuples shared: they are parts of group keys)."""
    found: dict[str, list[str]] = {}
    for rule, files in hits:
        for path in files:
            found.setdefault(path, []).append(rule)
    shared: dict[tuple[str, ...], tuple[str, ...]] = {}
    return {path: shared.setdefault(tuple(r), tuple(r)) for path, r in found.items()}


def grouped(files: Iterable[str], key_of: Callable[[str], Hashable]) -> list[list[str]]:
    """The files by `key_of`, each group in the files' order, groups in order of first
    member."""
    groups: dict[Hashable, list[str]] = {}
    for path in files:
        key = key_of(path)
        members = groups.get(key)
        if members is None:
            groups[key] = [path]
        else:
            members.append(path)
    return list(groups.values())


def explained(profile: Profile, ws: Workspace, cwd: str,
              groups: Iterable[list[str]]) -> list[tuple[Explanation, list[str]]]:
    """Each group with the explanation of its first file (the profile's own, cached)."""
    return [(profile.explain(ws, members[0], cwd), members) for members in groups]
