"""budget-overflow: for some file of the workspace, the load exceeds maxChars.

Every workspace file is a possible target. Targets that load the same thing (same deepest
instruction directory, same matching scoped rules) form one group; a group whose upper bound
fits the budget is skipped without loading; the rest are explained once each.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING, Final

from rulemap.derived import IMPORT_GRAPH, RULE_SCOPES, Key, KeyFamily
from rulemap.model import Finding, ImportStatus, Span
from rulemap.profiles.base import directory_chain, parent_dir
from rulemap.profiles.cogitator.load import Load
from rulemap.profiles.cogitator.reach import base_load_of, group_load_of
from rulemap.profiles.cogitator.settings import settings_of
from rulemap.records import record

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

# a scoped rule → the chars of it and everything it can import, and the files that walk read
_CLOSURE: Final = KeyFamily[int]("closure")
_CLOSURE_READS: Final = KeyFamily[frozenset[str]]("closure-reads")
# a group's scoped rules → the sum of their closures
_RULE_CHARS: Final[Key[dict[tuple[str, ...], int]]] = KeyFamily[dict[tuple[str, ...], int]](
    "budget-rule-chars"
).key()
_GROUPS: Final[KeyFamily[TargetGroups]] = KeyFamily("budget-groups")  # cwd, nested


def check(ws: Workspace) -> list[Finding]:
    config = ws.config
    settings = settings_of(ws)
    chain = directory_chain(config.cwd)
    cwd_dir = chain[-1]
    scoped_rules = (
        [r for d in chain for r in ws.rules_of(d) if ws.is_scoped(r)] if settings.rules else []
    )
    in_chain = frozenset(scoped_rules)
    # file → every scoped rule matching it; rules the load never reads (below cwd) only make
    # groups finer, and count 0 in the upper bound below
    closure = {rule: _closure_chars(ws, rule) for rule in scoped_rules}
    # what a set of scoped rules can add at most; kept while those rules and imports keep
    reads = {RULE_SCOPES, *scoped_rules}
    for rule in scoped_rules:
        closure_reads = ws.derived.get(_CLOSURE_READS.key(rule))
        if closure_reads is not None:
            reads |= closure_reads
    groups = target_groups(ws, cwd_dir)
    index = groups.index
    # rules the load never reads count 0 (C-level `map` over a group's rule tuple)
    chars_of = _ZeroIfMissing(closure).__getitem__
    # what each distinct pattern's rules weigh: a group's bound is a sum over its handful of
    # patterns, not over its hundreds of rules (never put together for a group that fits)
    weights = index.pattern_weights(chars_of)
    base_total: dict[str | None, int] = {}
    rule_chars = ws.derived.get(_RULE_CHARS) or {}
    overflows: list[Overflow] = []
    start_up = base_load_of(ws, chain, None)
    if start_up.budget_pass(settings.max_chars).overflowed:
        overflows.append(Overflow(None, start_up, len(ws.files)))
    for group, representative in sorted(groups.representative.items(), key=lambda kv: kv[1]):
        anchor_dir, mask = group
        size = groups.sizes[group]
        nested = anchor_dir if anchor_dir is not None and anchor_dir != cwd_dir else None
        if anchor_dir not in base_total:
            base_total[anchor_dir] = base_load_of(ws, chain, nested).chars
        bound = index.bound(mask, weights)
        if bound is not None and base_total[anchor_dir] + bound <= settings.max_chars:
            continue
        rules = index.rules_of(mask)
        if rules not in rule_chars:
            rule_chars[rules] = sum(map(chars_of, rules))
        upper = base_total[anchor_dir] + rule_chars[rules]
        if upper <= settings.max_chars:
            continue
        loaded = tuple(r for r in rules if r in in_chain) if settings.rules else ()
        load = group_load_of(ws, chain, nested, loaded)
        if load.budget_pass(settings.max_chars).overflowed:
            overflows.append(Overflow(representative, load, size))
    ws.derived.put(_RULE_CHARS, rule_chars, reads=reads)
    return _findings(ws, overflows)


class _ZeroIfMissing(dict[str, int]):
    def __missing__(self, key: str) -> int:
        return 0


@record(frozen=True)
class Overflow:
    """A load that cuts or leaves something out, for `size` workspace files (`target` names
    one of them; None: the start-up load)."""

    target: str | None
    load: Load
    size: int


def _closure_chars(ws: Workspace, rule: str) -> int:
    """Chars of a rule plus everything it can import (ignoring read-once: an upper bound).
    Cached until one of those files changes."""
    cached = ws.derived.get(_CLOSURE.key(rule))
    if cached is not None:
        return cached
    total = 0
    seen = {rule}
    queue: deque[tuple[str, int]] = deque([(rule, 0)])
    while queue:
        path, depth = queue.popleft()
        total += ws.document(path).chars
        if depth >= settings_of(ws).max_import_depth:
            continue
        for _, resolved in ws.imports(path):
            if resolved.status is ImportStatus.OK and resolved.target not in seen:
                seen.add(resolved.target)
                queue.append((resolved.target, depth + 1))
    ws.derived.put(_CLOSURE.key(rule), total, reads=[*seen, IMPORT_GRAPH])
    ws.derived.put(_CLOSURE_READS.key(rule), frozenset(seen), reads=[*seen, IMPORT_GRAPH])
    return total


def _when(target: str | None) -> str:
    if target is None:
        return "at start-up (so for every file)"
    return f"when an agent works on `{target}`"


def _findings(ws: Workspace, overflows: list[Overflow]) -> list[Finding]:
    """One finding per file that some load cuts or leaves out, naming the first such target
    and how many workspace files in all get such a load.

    Loads share their links (a nested directory's load goes on from its parent's), and the
    budget's verdict on a link is the same in every load that holds it: so each link is read
    once, with the sizes of all the overflowing loads that hold it added up."""
    limit = settings_of(ws).max_chars
    total_size: dict[int, int] = {}  # id(link) → files whose overflowing load holds it
    first_of: dict[int, int] = {}  # id(link) → index of the first overflow that holds it
    links: dict[int, Load] = {}
    for index, overflow in enumerate(overflows):
        link: Load | None = overflow.load
        while link is not None:
            key = id(link)
            total_size[key] = total_size.get(key, 0) + overflow.size
            if key not in first_of:
                first_of[key] = index
                links[key] = link
            link = link.parent
    # path → (index of the first overflow, chars kept if cut, else None); and counts
    first: dict[str, tuple[int, int | None]] = {}
    counts: dict[str, int] = {}
    for key, link in links.items():
        verdict = link.budget_pass(limit)
        if not verdict.cut and not verdict.left_out:
            continue
        index = first_of[key]
        for path, chars in verdict.cut:
            if path not in first or index < first[path][0]:
                first[path] = (index, chars)
            counts[path] = counts.get(path, 0) + total_size[key]
        for path in verdict.left_out:
            if path not in first or index < first[path][0]:
                first[path] = (index, None)
            counts[path] = counts.get(path, 0) + total_size[key]
    out: list[Finding] = []
    for path, (index, kept) in sorted(first.items(), key=lambda kv: (kv[1][0], kv[0])):
        if path.startswith("/"):
            continue
        overflow = overflows[index]
        doc = ws.document(path)
        total = overflow.load.chars
        # a link of the start-up load is in every target's load too: its sizes added up
        # count each file twice (the start-up overflow's every file, then each group's)
        others = min(counts[path], len(ws.files)) - 1
        more = f" (and {others:,} other file{'s' if others != 1 else ''})" if others else ""
        if kept is not None:
            line = _original_line(doc.kept_lines, doc.brought, kept)
            span = Span.at(line, 0, len(doc.lines[line]) if line < len(doc.lines) else 0)
            message = (
                f"{_when(overflow.target)}{more}, the instructions total "
                f"{total:,} chars, over maxChars {limit:,}: this file is cut at line {line + 1} "
                f"({kept:,} of {doc.chars:,} chars kept)"
            )
        else:
            span = Span.at(0, 0, len(doc.lines[0]))
            message = (
                f"{_when(overflow.target)}{more}, the instructions total "
                f"{total:,} chars, over maxChars {limit:,}: this file is left out"
            )
        out.append(Finding(path, span, "warning", "budget-overflow", message))
    return out


def _original_line(kept_lines: list[int], brought: str, offset: int) -> int:
    """The original line holding brought offset `offset`."""
    brought_line = brought.count("\n", 0, offset)
    if not kept_lines:
        return brought_line
    return kept_lines[min(brought_line, len(kept_lines) - 1)]


# (deepest instruction directory on the way, the matching scoped rules as a `RulesOfFile` mask)
Group = tuple[str | None, int]


def target_groups(ws: Workspace, cwd_dir: str) -> TargetGroups:
    """The cached `TargetGroups` of `cwd_dir`, caught up with the changes since."""
    key = _GROUPS.key(cwd_dir, settings_of(ws).nested)
    groups = ws.derived.get(key)
    if groups is None or not groups.catch_up(ws):
        groups = TargetGroups(ws, cwd_dir)
        ws.derived.put(key, groups, reads=[RULE_SCOPES])
    return groups


class TargetGroups:
    """Every workspace file in its group, kept up to date from the workspace's retarget log.
    A group's rules are a mask of the file → rules index it was built from (`index`):
    `index.rules_of(mask)` names them, for the few groups that need names."""

    def __init__(self, ws: Workspace, cwd_dir: str):
        self.cwd_dir = cwd_dir
        self.nested = settings_of(ws).nested
        self.nested_dirs = {parent_dir(p) if "/" in p else "" for p in ws.instruction_files}
        self.anchors: dict[str, str | None] = {}
        self.group_of: dict[str, Group] = {}
        self.members: dict[Group, set[str]] = {}
        self.representative: dict[Group, str] = {}
        self.rank: dict[Group, int] = {}  # _example_rank of the representative
        self.sizes: dict[Group, int] = {}
        self.version = ws.generation
        self.index = ws.scoped_rules_index()
        anchor = self.anchor
        anchors = self.anchors
        mask_of = self.index.mask
        by_group: dict[Group, list[str]] = {}
        group_of = self.group_of
        for path in ws.files:
            slash = path.rfind("/")
            directory = path[:slash] if slash > 0 else ""
            # a directory's anchor is looked up before it is asked for: a call per
            # directory, not per file (60,000 of them on a large tree)
            group = (anchors[directory] if directory in anchors
                     else anchor(sys.intern(directory)), mask_of(path))
            group_of[path] = group
            members = by_group.get(group)
            if members is None:
                by_group[group] = [path]
            else:
                members.append(path)
        for group, paths in by_group.items():
            self.members[group] = set(paths)
            self.sizes[group] = len(paths)
            self._choose(ws, group, paths)

    def catch_up(self, ws: Workspace) -> bool:
        """Move the files whose rules changed since this grouping was made (False: the log
        does not reach back that far, so rebuild).

        A rule's globs changed: the files it gained take it into their rule list, the files
        it lost drop it; anchors stay. Files of one group go to one new group together, by
        set operations, so a glob such as `**/*.ts` that moves 7,600 files costs a few set
        intersections, not a look-up per file."""
        if ws.retarget_forgotten > self.version:
            return False  # the log no longer holds every change since this was built
        if ws.scoped_rules_index() is not self.index:
            return False  # rebuilt since: its masks number the rules anew
        log = [changes for generation, changes in ws.retarget_log if generation > self.version]
        self.version = ws.generation
        stale: set[Group] = set()  # groups whose representative left: chosen again once
        for changes in log:
            for change in changes:
                for paths, gains in ((change.gained, True), (change.lost, False)):
                    self._apply(ws, change.rule, paths, gains, stale)
        for group in stale & self.members.keys():
            self._choose(ws, group, self.members[group])
        return True

    def _apply(self, ws: Workspace, rule: str, paths: frozenset[str], gains: bool,
               stale: set[Group]) -> None:
        if not paths:
            return
        # intersect each group with the moved files (set operations in C, each bounded by
        # the smaller side) rather than look up 7,600 files one by one
        bit = self.index.bit(rule)
        moves: list[tuple[Group, set[str]]] = []
        for old, members in self.members.items():
            if bool(old[1] & bit) == gains:
                continue  # already has (or lacks) the rule: none of its files change
            moving = members & paths
            if moving:
                moves.append((old, moving))
        for old, moving in moves:
            mask = old[1] | bit if gains else old[1] & ~bit
            self._move(ws, moving, old, (old[0], mask), stale)

    def _move(self, ws: Workspace, moving: set[str], old: Group, new: Group,
              stale: set[Group]) -> None:
        self.group_of.update(dict.fromkeys(moving, new))
        leaving = self.members[old]
        leaving.difference_update(moving)
        if not leaving:
            del self.members[old], self.sizes[old], self.representative[old], self.rank[old]
            stale.discard(old)
        else:
            self.sizes[old] = len(leaving)
            if self.representative[old] in moving:
                stale.add(old)
        arriving = self.members.get(new)
        if arriving is None:
            self.members[new] = moving
            self.sizes[new] = len(moving)
            self._choose(ws, new, moving)
            return
        arriving.update(moving)
        self.sizes[new] = len(arriving)
        best = _best_example(ws, moving)
        rank = _example_rank(ws, best)
        if (rank, best) < (self.rank[new], self.representative[new]):
            self.representative[new] = best
            self.rank[new] = rank

    def _choose(self, ws: Workspace, group: Group, paths: Iterable[str]) -> None:
        best = _best_example(ws, paths)
        self.representative[group] = best
        self.rank[group] = _example_rank(ws, best)

    def anchor(self, directory: str) -> str | None:
        """The deepest directory below cwd (or cwd itself) with instruction files; None outside."""
        cwd_dir = self.cwd_dir
        walked: list[str] = []
        result: str | None
        while True:
            if directory in self.anchors:
                result = self.anchors[directory]
                break
            walked.append(directory)
            inside = not cwd_dir or directory == cwd_dir or directory.startswith(cwd_dir + "/")
            if not inside:
                result = None
                break
            if directory == cwd_dir or not self.nested:
                result = cwd_dir
                break
            if directory in self.nested_dirs:
                result = directory
                break
            directory = parent_dir(directory)
        for seen in walked:
            self.anchors[seen] = result
        return result


def _best_example(ws: Workspace, paths: Iterable[str]) -> str:
    """The path with the lowest (_example_rank, path): the smallest path when it is a source
    file (the common case, decided without ranking every path), else a full ranking."""
    paths = list(paths)
    first = min(paths)
    if _example_rank(ws, first) == 0:
        return first
    return min(paths, key=lambda p: (_example_rank(ws, p), p))


def _example_rank(ws: Workspace, path: str) -> int:
    """Lower is a better example target: a source file, then a dotfile, then an instruction
    file (which a reader would not think of as "the file the agent works on")."""
    if ws.is_instruction(path):
        return 2
    if path.startswith(".") or "/." in path:
        return 1
    return 0
