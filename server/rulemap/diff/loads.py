"""Each file's effective load on one side, reduced to a comparable signature, and what differs
between two signatures.

Fast by grouping: a profile that can (`load_groups`: every built-in agent) hands over
every workspace file already grouped by what it loads, so 20,000 files cost about a thousand
explanations; any other profile is asked target by target. Explanations that share their file
list (the same object: loads are cached and shared) are signed once, and two sides are
compared once per distinct pair of signatures, however many files share that pair.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import TYPE_CHECKING

from rulemap.diff.result import Change
from rulemap.model import Explanation, LoadedFile
from rulemap.records import record

if TYPE_CHECKING:
    from rulemap.profiles.base import Profile
    from rulemap.workspace import Workspace

# one loaded file as compared: (path, reason, cut, chars kept, text as brought)
Entry = tuple[str, str, bool, int, str]
# a load: its files in prompt order, and what the budget left out
Signature = tuple[tuple[Entry, ...], tuple[str, ...]]


@record
class SideLoads:
    """One profile's loads on one side: target → signature number, the signatures, and the
    start-up load's."""

    of_target: dict[str, int]
    signatures: list[Signature]
    startup: int


def _entry(f: LoadedFile) -> Entry:
    return (f.path, f.reason, f.cut or bool(f.truncated), f.chars, f.text)


def side_loads(
    ws: Workspace, profile: Profile, cwd: str, targets: Iterable[str]
) -> SideLoads:
    """Every target's load by `profile` on `ws` (targets it does not hold are explained as
    paths: what an agent working there would load)."""
    numbers: dict[Signature, int] = {}
    signatures: list[Signature] = []
    by_object: dict[tuple[int, int], int] = {}
    alive: list[Explanation] = []  # keeps the ids of `by_object` from being reused

    def number(e: Explanation) -> int:
        key = (id(e.files), id(e.left_out))
        found = by_object.get(key)
        if found is None:
            sig: Signature = (tuple(map(_entry, e.files)), tuple(e.left_out))
            found = numbers.get(sig)
            if found is None:
                found = numbers[sig] = len(signatures)
                signatures.append(sig)
            by_object[key] = found
            alive.append(e)
        return found

    of_target: dict[str, int] = {}
    groups = profile.load_groups(ws, cwd)
    for explanation, members in groups or ():
        n = number(explanation)
        for path in members:
            of_target[path] = n
    for path in targets:
        if path not in of_target:
            of_target[path] = number(profile.explain(ws, path, cwd))
    return SideLoads(of_target, signatures, number(profile.explain(ws, None, cwd)))


def changes_between(base: Signature, head: Signature) -> tuple[Change, ...]:
    """What differs from the `base` load to the `head` load, file by file, sorted."""
    if base == head:
        return ()
    before = {e[0]: e for e in base[0]}
    after = {e[0]: e for e in head[0]}
    left_before, left_after = set(base[1]), set(head[1])
    out: list[Change] = []
    for path, new in after.items():
        old = before.get(path)
        if old is None:
            out.append(Change("restored" if path in left_before else "added", path,
                              _size(new)))
            continue
        out.extend(_entry_changes(old, new))
    for path in before:
        if path not in after:
            out.append(Change("left-out" if path in left_after else "removed", path))
    for path in left_after - left_before - before.keys():
        out.append(Change("left-out", path))  # newly brought, but over the budget
    out.extend(_reordered([e[0] for e in base[0]], [e[0] for e in head[0]], before, after))
    return tuple(sorted(set(out)))


def _size(entry: Entry) -> str:
    return f"{entry[3]:,} chars kept" if entry[2] else ""


def _entry_changes(old: Entry, new: Entry) -> list[Change]:
    path = old[0]
    out: list[Change] = []
    if old[2] != new[2]:
        out.append(Change("cut", path, _size(new)) if new[2] else Change("uncut", path))
    elif old[2] and old[3] != new[3]:
        out.append(Change("cut", path, f"{new[3]:,} chars kept, was {old[3]:,}"))
    elif old[4] != new[4] or old[3] != new[3]:
        delta = new[3] - old[3]
        out.append(Change("edited", path, f"{delta:+,} chars" if delta else "same length"))
    if old[1] != new[1]:
        out.append(Change("reason", path, f"{old[1]} → {new[1]}"))
    return out


def _reordered(
    before: list[str], after: list[str], old: dict[str, Entry], new: dict[str, Entry]
) -> list[Change]:
    """The files loaded on both sides that moved: those off the longest common order, each
    with the file it now follows."""
    common_before = [p for p in before if p in new]
    common_after = [p for p in after if p in old]
    if common_before == common_after:
        return []
    matcher = difflib.SequenceMatcher(None, common_before, common_after, autojunk=False)
    kept = {
        common_after[block.b + i]
        for block in matcher.get_matching_blocks()
        for i in range(block.size)
    }
    out = []
    for index, path in enumerate(common_after):
        if path not in kept:
            detail = f"now after {common_after[index - 1]}" if index else "now first"
            out.append(Change("reordered", path, detail))
    return out
