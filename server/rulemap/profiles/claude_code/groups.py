"""Every workspace file in one pass: the groups of targets Claude Code loads the same files for.

`explain` answers one target at a time (about a millisecond here: every scoped rule's globs
are tried on it); a question about all 20,000 files of a workspace (`rulemap diff`) would
take 20 s that way. Two targets load the same files when they share the deepest directory
below cwd holding memory files and the set of scoped rules that match them, so each rule's
globs are matched once over the file index instead (prefiltered by their literal parts, as
the workspace's own matcher does), and one target per group is explained.
"""

from __future__ import annotations

import bisect
import itertools
from collections import Counter
from typing import TYPE_CHECKING, Final

from rulemap.derived import KeyFamily
from rulemap.globs import (
    CompiledGlobs,
    candidates_are_exact,
    literal_path,
    literal_prefix,
    literal_suffix,
    literal_tail,
    required_parts,
)
from rulemap.model import Explanation
from rulemap.profiles.base import directory_chain, parent_dir
from rulemap.profiles.claude_code import imports as claude_imports
from rulemap.profiles.claude_code.loader import ClaudeLoader, LoadKey, deepest_nested, normalize
from rulemap.profiles.claude_code.names import probe
from rulemap.profiles.claude_code.rules import rule_globs
from rulemap.workspace.rule_scope import RuleScope

if TYPE_CHECKING:
    from rulemap.profiles.base import LoadShare
    from rulemap.profiles.claude_code.load import ClaudeLoad
    from rulemap.workspace import Workspace

# a link, target, its scoped rules → the link plus those rules
_GROUP_LINK: Final[KeyFamily[ClaudeLoad]] = KeyFamily("claude-code-group-link")
# rule, its directory, case-sensitive → the files its globs match, each once. A tuple: 8
# bytes a file where a frozenset took ~30 (2,000 rules on 20,000 files kept 75 MB of them
# in the editor's overview, measured); they are only iterated
_RULE_HITS: Final = KeyFamily[tuple[str, ...]]("claude-code-rule-hits")
# (anchor, scoped rules) → the files that load the same: `_groups`
_Groups = dict[tuple[str | None, tuple[str, ...]], list[str]]
# the chain root → cwd, case-sensitive → the workspace's files by load group
_GROUPS: Final = KeyFamily[_Groups]("claude-code-groups")


def load_groups(
    ws: Workspace, profile: ClaudeLoader, cwd: str
) -> list[tuple[Explanation, list[str]]] | None:
    """[(the explanation of the group's first target, every target of the group)] covering
    `ws.files`; None when this shortcut does not apply (user-level rules from `--home` match
    by other paths: the caller then explains target by target)."""
    grouped = _grouped(ws, profile, cwd)
    if grouped is None:
        return None
    cwd_dir, chain, groups, startup = grouped
    opts = profile.settings_of(ws)
    out: list[tuple[Explanation, list[str]]] = []
    # equal read sets kept once: groups of other anchors with the same rules read the same
    interned: dict[frozenset[str], frozenset[str]] = {}
    for (_, rules), members in groups.items():
        target = members[0]
        link = _group_link(ws, profile, _anchor_link(ws, profile, chain, target, startup),
                           target, rules, interned)
        out.append((profile.explanation_of(ws, link, target, cwd_dir, opts), members))
    return out


def load_shares(ws: Workspace, profile: ClaudeLoader, cwd: str) -> list[LoadShare] | None:
    """What `reach.overview` sums of `load_groups`, without a load per group. Claude Code
    has no shared budget, so a scoped rule adds the same files (the rule and its imports,
    each its own LoadedFile) to every load it joins, unless another rule of that load brings
    one of them too: per anchor, the link's files are one share of all its targets and each
    rule's own files one share of the targets it matches. An anchor where two rules' own
    files meet (a file both import) is shared group by group, as `load_groups` loads. On
    2,000 rules over 20,000 files that is 2,000 rule loads instead of 606,000 (group, rule)
    ones (benchmarks/README.md has the times). None when `load_groups` is."""
    grouped = _grouped(ws, profile, cwd)
    if grouped is None:
        return None
    _, chain, groups, startup = grouped
    # anchor → its link (one per anchor: the files of an anchor's targets are the same),
    # how many targets each of its rules joins, and its groups
    anchors: dict[str | None, tuple[tuple[LoadKey, ClaudeLoad], Counter[str], _Groups]] = {}
    for group, members in groups.items():
        entry = anchors.get(group[0])
        if entry is None:
            linked = _anchor_link(ws, profile, chain, members[0], startup)
            entry = anchors[group[0]] = (linked, Counter(), {})
        joined = entry[1]
        for rule in group[1]:
            joined[rule] += len(members)
        entry[2][group] = members
    out: list[LoadShare] = []
    interned: dict[frozenset[str], frozenset[str]] = {}
    for linked, joined, anchored in anchors.values():
        link = linked[1]
        out.append((link.files, (), sum(len(m) for m in anchored.values())))
        own: list[LoadShare] = []
        seen: set[str] = set()
        for rule, count in joined.items():
            solo = link.child()
            solo.add(rule, "scoped", home=False)
            identities = solo.own_identities()
            if not seen.isdisjoint(identities):
                break  # two rules bring one file: which one does depends on the group
            seen |= identities
            own.append((solo.own_files, (), count))
        else:
            out += own
            continue
        for (_, rules), members in anchored.items():
            if rules:
                scoped = _group_link(ws, profile, linked, members[0], rules, interned)
                out.append((scoped.own_files, (), len(members)))
    return out


def _grouped(ws: Workspace, profile: ClaudeLoader, cwd: str
             ) -> tuple[str, list[str], _Groups, tuple[LoadKey, ClaudeLoad]] | None:
    """What `load_groups` and `load_shares` start from: the cwd as a directory, its chain,
    the files by load group and the start-up load — what `explain` does for one target, with
    the scoped rules already known (explain would try every rule's globs again, and check the
    start-up link's rule classes each time). None when user-level rules from `--home` match
    by other paths: the caller then explains target by target."""
    if ws.home_reader is not None:
        return None
    cwd_dir = normalize(cwd)
    opts = profile.settings_of(ws)
    chain = directory_chain(cwd_dir)
    return cwd_dir, chain, _groups(ws, chain, opts.case_sensitive), profile.startup(
        ws, chain, opts)


def _anchor_link(ws: Workspace, profile: ClaudeLoader, chain: list[str], target: str,
                 startup: tuple[LoadKey, ClaudeLoad]) -> tuple[LoadKey, ClaudeLoad]:
    """The cache key and load of `target`'s memory files: its nested directories' below
    cwd, else the start-up load."""
    deepest = deepest_nested(chain[-1], parent_dir(target))
    if deepest is None:
        return startup
    return profile.nested(ws, chain, deepest, profile.settings_of(ws))


def _group_link(ws: Workspace, profile: ClaudeLoader, linked: tuple[LoadKey, ClaudeLoad],
                target: str, rules: tuple[str, ...],
                interned: dict[frozenset[str], frozenset[str]]) -> ClaudeLoad:
    """`linked`'s load with the scoped `rules` that match `target` after it. Kept until a
    file it read changes (or the link it goes on from is dropped): the other side of a diff,
    updated from this one, reuses it. `interned`: equal read sets kept once (groups of other
    anchors with the same rules read the same)."""
    link_key, link = linked
    if not rules:
        return link
    cache_key = _GROUP_LINK.key(link_key, target, rules)
    scoped = ws.derived.get(cache_key)
    if scoped is None:
        case_sensitive = profile.settings_of(ws).case_sensitive
        scoped = link.child()
        for rule in rules:
            scope = RuleScope(ws.rule_owner(rule) or "")
            globs = rule_globs(ws, rule, ws.document(rule), case_sensitive)
            hit = globs.first_match(scope.within(target), case_sensitive)
            scoped.add(rule, "scoped", home=False, note=f"paths: {hit}")
        # one set for the link and its cache entry, not a set and a frozen copy
        # (each ~30 MB over the 7,700 groups of 2,000 rules on 20,000 files)
        reads = scoped.frozen_reads(*rules)
        reads = scoped.own_reads = interned.setdefault(reads, reads)
        ws.derived.put(cache_key, scoped, reads=reads, after=[link_key])
    return scoped


def load_groups_for(
    ws: Workspace, profile: ClaudeLoader, cwd: str, key: str
) -> list[tuple[Explanation, list[str]]] | None:
    """`load_groups` for what a load says of `key`: when no scoped rule of the chain is
    `key` or imports it (at any hop, under any of its names), the files are grouped by their
    nested memory alone. Scoped rules join a load after its memory files, and Claude Code
    has no shared budget, so they change neither where `key` stands, nor what comes before
    it, nor how it is read: matching every rule's globs against 60,000 files, to split the
    groups a thousand ways, was most of `rulemap reach` of a nested file."""
    if ws.home_reader is not None:
        return None
    cwd_dir = "" if cwd in ("", ".") else cwd.strip("/")
    chain = directory_chain(cwd_dir)
    if _rules_may_bring(ws, chain, key):
        return load_groups(ws, profile, cwd)
    opts = profile.settings_of(ws)
    anchors: dict[str, str | None] = {}
    by_anchor: dict[str | None, list[str]] = {}
    for path in ws.files:
        slash = path.rfind("/")
        directory = path[:slash] if slash > 0 else ""
        anchor = anchors[directory] if directory in anchors else _anchor(
            ws, cwd_dir, parent_dir(path), anchors)
        members = by_anchor.get(anchor)
        if members is None:
            by_anchor[anchor] = [path]
        else:
            members.append(path)
    startup = profile.startup(ws, chain, opts)
    out: list[tuple[Explanation, list[str]]] = []
    for members in by_anchor.values():
        target = members[0]
        deepest = deepest_nested(cwd_dir, parent_dir(target))
        _, link = (profile.nested(ws, chain, deepest, opts) if deepest is not None
                   else startup)
        out.append((profile.explanation_of(ws, link, target, cwd_dir, opts), members))
    return out


def _rules_may_bring(ws: Workspace, chain: list[str], key: str) -> bool:
    """Whether a rule of the chain's directories is `key`, or imports it at some hop, by
    the file it is (a symlink's either name); imports followed past Claude Code's hop limit
    and into home or outside files too, so a yes may be a maybe, never a no that is wrong."""
    wanted = claude_imports.identity(ws, key, False)
    stack: list[tuple[str, bool]] = [(rule, False) for directory in chain
                                     for rule in ws.rules_of(directory)]
    seen: set[tuple[str, bool]] = set()
    while stack:
        path, home = stack.pop()
        if (path, home) in seen:
            continue
        seen.add((path, home))
        if path == key or claude_imports.identity(ws, path, home) == wanted:
            return True
        for _, target in claude_imports.resolved_imports(ws, path, home):
            if target.status == "ok":
                stack.append((target.key, target.home))
    return False


def may_bring(ws: Workspace, profile: ClaudeLoader) -> frozenset[str] | None:
    """Every workspace file some Claude Code load may bring, or more: the workspace's
    documents and the files it reads by name and place (its memory files, AGENTS.md, its
    rules), and what they import at any hop in its syntax. None when a load may read a file
    outside the workspace (a user-level one, an import out of it)."""
    if ws.home_reader is not None:
        return None
    from rulemap.profiles.documents import read_documents

    found = {*ws.all_documents(), *read_documents(ws, [profile])}  # type: ignore[list-item]
    stack = sorted(found)
    while stack:
        for _, target in claude_imports.resolved_imports(ws, stack.pop(), False):
            if target.status != "ok":
                continue
            if target.home or target.key.startswith("/"):
                return None
            if target.key not in found:
                found.add(target.key)
                stack.append(target.key)
    return frozenset(k for k in found if not k.startswith("/"))


def _groups(ws: Workspace, chain: list[str], case_sensitive: bool) -> _Groups:
    """Every workspace file by its load group: the deepest directory below cwd holding memory
    files on its way, and the scoped rules matching it. Kept until a rule of the chain is
    edited or a file is created or deleted (which change matches and anchors): the editor's
    "who loads it" overview asks again after every edit pause, and grouping 20,000 files took
    ~60 of its ~115 ms on the monorepo."""
    key = _GROUPS.key(tuple(chain), case_sensitive)
    cached = ws.derived.get(key)
    if cached is not None:
        return cached
    cwd_dir = chain[-1]
    files = list(ws.files)
    class_of, rules_of_class = _matching_rules(ws, chain, files, case_sensitive)
    anchors: dict[str, str | None] = {}
    by_class: dict[tuple[str | None, int], list[str]] = {}
    for path in files:
        slash = path.rfind("/")
        directory = path[:slash] if slash > 0 else ""
        # a directory's anchor is looked up before it is asked for: 60,000 calls less
        anchor = anchors[directory] if directory in anchors else _anchor(
            ws, cwd_dir, parent_dir(path), anchors)
        group = (anchor, class_of[path])
        members = by_class.get(group)
        if members is None:
            by_class[group] = [path]
        else:
            members.append(path)
    groups: _Groups = {(anchor, rules_of_class[c]): members
                       for (anchor, c), members in by_class.items()}
    rules = [rule for directory in chain for rule in ws.rules_of(directory)]
    return ws.derived.put(key, groups, reads=rules)


def _anchor(ws: Workspace, cwd_dir: str, directory: str, seen: dict[str, str | None]) -> str | None:
    """The deepest directory strictly below cwd on the way to `directory` with a memory file
    (None: none, or not below cwd). Directories without one add nothing to the load."""
    walked: list[str] = []
    result: str | None = None
    while True:
        if directory in seen:
            result = seen[directory]
            break
        below = directory.startswith(cwd_dir + "/") if cwd_dir else bool(directory)
        if not below:
            result = None
            walked.append(directory)
            break
        walked.append(directory)
        if probe(ws, directory):
            result = directory
            break
        directory = parent_dir(directory)
    for d in walked:
        seen[d] = result
    return result


def _matching_rules(
    ws: Workspace, chain: list[str], files: list[str], case_sensitive: bool
) -> tuple[dict[str, int], list[tuple[str, ...]]]:
    """The files by the scoped rules of the chain's directories whose globs match them: each
    file's class, and each class's rules in the order `ClaudeCodeProfile.matching_rules`
    lists them.

    Refined rule by rule (a class some of whose files a rule matches splits in two) with set
    and dict operations in C, never a rule list per file: on 60,000 files, 150 rules match
    ~690,000 (file, rule) pairs, and appending to a list per pair was a third of the
    grouping."""
    class_of = dict.fromkeys(files, 0)
    members: list[set[str]] = [set(files)]
    rules_of: list[tuple[str, ...]] = [()]
    for directory in chain:
        pools: _Pools | None = None
        for rule in ws.rules_of(directory):
            key = _RULE_HITS.key(rule, directory, case_sensitive)
            hits = ws.derived.get(key)
            if hits is None:
                if pools is None:
                    pools = _Pools(ws, RuleScope(directory), files, case_sensitive)
                hits = pools.hits(ws, rule, case_sensitive)
                # its globs and which files exist: an edit of the rule, or any create/delete
                ws.derived.put(key, hits, reads=(rule,))
            # (a file of the kept hits that is gone since has no class: left out, as before)
            for cls, count in Counter(map(class_of.get, hits)).items():
                if cls is None:
                    continue
                if count == len(members[cls]):  # every file of the class: it keeps them
                    rules_of[cls] = (*rules_of[cls], rule)
                    continue
                moved = members[cls].intersection(hits)
                members[cls].difference_update(moved)
                class_of.update(dict.fromkeys(moved, len(members)))
                members.append(moved)
                rules_of.append((*rules_of[cls], rule))
    return class_of, rules_of


class _Pools:
    """Candidate paths for a pattern by its literal parts, before the regex: its directory
    prefix (a range of the sorted paths), its extension, its name's ending and its
    wildcard-free directories (`prefiltered`'s tests, on paths kept with a leading `/` so
    that a directory test is one `in`)."""

    def __init__(self, ws: Workspace, scope: RuleScope, files: list[str], case_sensitive: bool):
        inside = [f for f in files if scope.relative(f) is not None]
        relative = [scope.within(f) for f in inside]
        probes = relative if case_sensitive else [r.lower() for r in relative]
        # "/" + probe → files (two may differ only in case)
        self.back: dict[str, list[str]] = {}
        for probe_path, path in zip(probes, inside, strict=True):
            self.back.setdefault("/" + probe_path, []).append(path)
        self.sorted = sorted(self.back)
        self._memo: dict[tuple[str, ...], tuple[str, ...]] = {}  # patterns → files
        self._by_ext: dict[str, list[str]] = {}  # filled for the extensions asked

    def hits(self, ws: Workspace, rule: str, case_sensitive: bool) -> tuple[str, ...]:
        """The workspace files a scoped rule's globs match, each once (none for an
        unconditional or skipped rule)."""
        doc = ws.document(rule)
        if doc.rule_skip:
            return ()
        globs = rule_globs(ws, rule, doc, case_sensitive)
        if globs.groups is None:
            return ()
        found = [self._group_hits(compiled) for _, compiled in globs.groups]
        return found[0] if len(found) == 1 else tuple(set().union(*found))

    def _group_hits(self, compiled: CompiledGlobs) -> tuple[str, ...]:
        """The workspace files one written glob's patterns match, once per distinct patterns
        (a tree's rules repeat `*.ts` and `packages/**/*.py`: on 60,000 files six rules
        each matched the same 25,000 paths again).

        Probes keep their leading `/`, and candidates are sets: on 60,000 files the rules'
        candidates are ~500,000 paths, and walking them one by one to skip those matched
        already was most of `rulemap reach`'s time."""
        patterns = compiled.patterns
        known = self._memo.get(tuple(patterns))
        if known is not None:
            return known
        matched: set[str] = set()
        if any(p.startswith("!") for p in patterns):
            pool = set(self.sorted)  # a negation: literal parts prove nothing
        else:
            # a literal path (`packages/web`, what `packages/web/**` becomes) matches that
            # file and everything below it: its range of the sorted paths, no regex
            # and one whose candidates are exactly its matches (`**/*.ts`, `src/**/*`):
            # those candidates, no regex either
            exact = [p for p in patterns if literal_path(p) or candidates_are_exact(p)]
            for pattern in exact:
                matched.update(self.literal(pattern) if literal_path(pattern)
                               else self.of(pattern))
            pool = set().union(*(self.of(p) for p in patterns if p not in exact))
        pool.difference_update(matched)
        matched.update(c for c in pool if compiled.match(c[1:]))
        # each path is behind one probe: no file twice
        files = tuple(itertools.chain.from_iterable(map(self.back.__getitem__, matched)))
        self._memo[tuple(patterns)] = files
        return files

    def literal(self, pattern: str) -> list[str]:
        """What a literal path matches: the file itself (unless the pattern ends in `/`) and
        every path below it (with a leading `/`)."""
        body = pattern.lstrip("/")
        exact = "/" + body.rstrip("/")
        lo = bisect.bisect_left(self.sorted, exact + "/")
        hi = bisect.bisect_left(self.sorted, exact + "0")  # "0" follows "/"
        found = self.sorted[lo:hi]
        at = bisect.bisect_left(self.sorted, exact)
        if not body.endswith("/") and at < len(self.sorted) and self.sorted[at] == exact:
            found.append(exact)
        return found

    def by_ext(self, ext: str) -> list[str]:
        """The paths (with a leading `/`) with a segment of extension `ext` (`.ts`, one dot)
        — the file's name or a directory's on the way: Claude Code's globs are gitignore-
        style, so `*.py` also matches a directory `x.py/` and all below it, as its `explain`
        does (`rules.py`; the file-name pools of the workspace's matcher missed `x.py/c.txt`
        here). Listed when first asked: a tree's rules ask a few extensions, and
        splitting every path's segments up front took a tenth of the grouping."""
        pool = self._by_ext.get(ext)
        if pool is None:
            below = ext + "/"
            pool = self._by_ext[ext] = [c for c in self.sorted
                                        if c.endswith(ext) or below in c]
        return pool

    def of(self, pattern: str) -> list[str]:
        """Paths (with a leading `/`) that may match `pattern`."""
        prefix = literal_prefix(pattern)
        suffix = literal_suffix(pattern)
        if prefix:
            start = "/" + prefix
            lo = bisect.bisect_left(self.sorted, start)
            hi = bisect.bisect_left(self.sorted, start[:-1] + chr(ord(start[-1]) + 1))
            pool = self.sorted[lo:hi]
        elif suffix:
            pool = self.by_ext(suffix)
        else:
            pool = self.sorted
        tail = literal_tail(pattern)
        if tail and not (tail == suffix and not prefix):
            # the file's name, or a directory's on the way (gitignore-style, as above); a
            # tail that is the extension itself keeps the whole pool of that extension
            below = tail + "/"
            pool = [c for c in pool if c.endswith(tail) or below in c]
        for part in required_parts(pattern):
            pool = [c for c in pool if part in c]
        return pool
