"""What the editor's per-file overview (`reach.overview`) sums of Cogitator's load groups,
without a load per group where the budget cannot tell the groups apart.

A group's load is its anchor's load (start-up and nested files) and then its scoped rules,
each with its imports. When that whole load fits the shared budget, nothing is cut or left
out, and when no two of those rules bring one file, each rule adds the same files to every
group it joins: the group is then its anchor's share and one share per rule, summed over
every such group. A group over the budget, or whose rules meet, is loaded and cut as
`load_groups` does. On 2,000 rules over 20,000 files (7,679 groups, none over the budget)
this makes 2,000 rule loads instead of 606,000 (group, rule) ones (benchmarks/README.md).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from rulemap.profiles.base import directory_chain
from rulemap.profiles.cogitator import reach
from rulemap.profiles.cogitator.budget_check import target_groups
from rulemap.profiles.cogitator.settings import settings_of

if TYPE_CHECKING:
    from collections.abc import Callable

    from rulemap.model import Explanation, LoadedFile
    from rulemap.profiles.base import LoadShare
    from rulemap.profiles.cogitator.load import Load
    from rulemap.workspace import Workspace


class _Anchor:
    """One anchor's load, each scoped rule's own files on top of it (loaded when first
    asked), and how many targets of the groups summed apart load it and each rule."""

    def __init__(self, load: Load) -> None:
        self.load = load
        self.chars = sum(f.chars for f in load.files)
        self.own: dict[str, tuple[list[LoadedFile], int]] = {}
        self.brought_by: dict[str, str] = {}  # a file's identity → the first rule bringing it
        self.meeting: set[str] = set()  # rules that bring a file another rule brings too
        self.targets = 0
        self.joined: Counter[str] = Counter()

    def fits(self, rules: tuple[str, ...], limit: int) -> bool:
        """Whether the load with `rules` after it is its parts: within `limit`, and no file
        brought by two of them."""
        total = self.chars
        for rule in rules:
            if rule not in self.own:
                self._load(rule)
            if rule in self.meeting:
                return False
            total += self.own[rule][1]
        return total <= limit

    def _load(self, rule: str) -> None:
        solo = self.load.child()
        solo.add(rule, "scoped")
        self.own[rule] = (solo.own_files, sum(f.chars for f in solo.own_files))
        for identity in solo.own_identities():
            first = self.brought_by.setdefault(identity, rule)
            if first != rule:
                self.meeting |= {first, rule}


def load_shares(ws: Workspace, cwd: str,
                explain: Callable[[Workspace, str, str], Explanation]) -> list[LoadShare]:
    """(files, left out, targets) shares whose sums per file are `load_groups`'; `explain`:
    the profile's, for a group loaded whole."""
    chain = tuple(directory_chain(cwd))
    groups = target_groups(ws, chain[-1])
    limit = settings_of(ws).max_chars
    anchors: dict[str | None, _Anchor] = {}
    out: list[LoadShare] = []
    for group, members in groups.members.items():
        target = groups.representative[group]
        anchor, rules = reach.target_group(ws, chain, target)
        parts = anchors.get(anchor)
        if parts is None:
            parts = anchors[anchor] = _Anchor(reach.base_load(ws, chain, anchor).load)
        if parts.fits(rules, limit):
            parts.targets += len(members)
            for rule in rules:
                parts.joined[rule] += len(members)
        else:
            whole = explain(ws, target, cwd)
            out.append((whole.files, whole.left_out, len(members)))
    for parts in anchors.values():
        if parts.targets:
            out.append((parts.load.files, (), parts.targets))
        out += [(parts.own[rule][0], (), count) for rule, count in parts.joined.items()]
    return out
