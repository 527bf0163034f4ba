"""Rule matches: which workspace files each path-scoped rule's globs match, and the reverse
index (file → matching rules), kept up to date per rule and per created/deleted file.

Globs are relative to the rule's `RuleScope` (the directory holding its `.claude`). Candidate
files come from the file index by literal prefix and name ending, and are prefiltered before
any regex (`globs.prefiltered`); see docs/architecture.md "Cost on any repository shape"."""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import TYPE_CHECKING, Final, Protocol

from rulemap.derived import RULE_SCOPES, Key, KeyFamily
from rulemap.globs import (
    CompiledGlobs,
    candidates_are_exact,
    compile_patterns,
    could_match,
    literal_prefix,
    pattern_regex,
    prefiltered,
    safe_expand,
)
from rulemap.retarget import Retarget
from rulemap.workspace.pattern_index import RulesOfFile
from rulemap.workspace.rule_scope import ROOT_SCOPE, RuleScope

if TYPE_CHECKING:
    from rulemap.derived import DerivedCache
    from rulemap.globs import FileIndex
    from rulemap.model import Document
    from rulemap.readers.base import WalkingReader
    from rulemap.workspace.layout import Layout
    from rulemap.workspace.rule_scope import RuleInfo

# rule, written glob → whether it matches a file
_GLOB_ANY: Final = KeyFamily[bool]("glob-any")
# workspace file → the path-scoped rules matching it (patched in place by `retarget`)
_RULES_OF_FILE: Final[Key[RulesOfFile]] = KeyFamily[RulesOfFile]("rules-of-file").key()
# owner directories → their path-scoped rules
_SCOPED_OF: Final = KeyFamily[frozenset[str]]("scoped-of")
UNINDEXED_ASKS = 256  # files matched rule by rule before the file → rules index is built
# ... and only while the rules to match are this few: each rule's globs are compiled to a
# regex on its first match (~0.7 ms), so one hover matching 1,600 rules one by one took 1.2 s
# where the index is built in 0.2 s (benchmarks/README.md)
UNINDEXED_RULES = 64


class MatchingWorkspace(Protocol):
    """What rule matching reads of its workspace (core.py's `Workspace`, which imports this
    module: typed by what it asks, so that this module does not import the workspace back)."""

    @property
    def layout(self) -> Layout: ...

    @property
    def files(self) -> FileIndex: ...

    @property
    def reader(self) -> WalkingReader: ...

    @property
    def derived(self) -> DerivedCache: ...

    @property
    def rules(self) -> list[RuleInfo]: ...

    def document(self, key: str) -> Document: ...

    def abs(self, key: str) -> str: ...

    def rules_of(self, owner: str) -> list[str]: ...


class RuleMatcher:
    def __init__(self, ws: MatchingWorkspace):
        self._ws = ws
        self._compiled: dict[str, CompiledGlobs | None] = {}
        self._matches: dict[str, list[str]] = {}  # rule → matching files (sorted)
        # (rule owner, expanded pattern) → the files it matches; dropped on create or delete
        self._by_pattern: dict[tuple[str, str], list[str]] = {}
        self._unindexed = 0  # files asked about since the index was last (re)built

    def scope(self, rule: str) -> RuleScope:
        return self._ws.layout.rule_scope(rule) or ROOT_SCOPE

    def matched_before(self, rule: str) -> list[str] | None:
        """The files `rule` matched by the globs last compiled for it, before an edit (None:
        never compiled, so nothing derived read them). The file → rules index is built from
        the patterns' matches, not the rules': a rule's list is put together here when an
        edit needs it, from the same shared pattern matches."""
        cached = self._matches.get(rule)
        compiled = self._compiled.get(rule)
        if cached is None and compiled is not None:
            cached = self._matches_of(rule, compiled)
        return cached

    def forget(self, rule: str) -> None:
        """The rule's globs may have changed: compute its matches again when asked."""
        self._compiled.pop(rule, None)
        self._matches.pop(rule, None)

    def is_scoped(self, rule: str) -> bool:
        doc = self._ws.document(rule)
        return doc.globs is not None and doc.rule_skip is None

    def compiled_globs(self, rule: str) -> CompiledGlobs | None:
        """The rule's compiled `paths` (None for an unconditional or skipped rule)."""
        if rule not in self._compiled:
            doc = self._ws.document(rule)
            patterns = [p for g in doc.globs or [] if g.error is None for p in g.expanded]
            self._compiled[rule] = compile_patterns(patterns) if doc.globs and patterns else None
        return self._compiled[rule]

    def rule_matches(self, rule: str) -> list[str]:
        """Workspace files the path-scoped `rule` matches (root-relative, sorted)."""
        cached = self._matches.get(rule)
        if cached is not None:
            return cached
        compiled = self.compiled_globs(rule)
        found = self._matches_of(rule, compiled) if compiled is not None else []
        self._matches[rule] = found
        return found

    def _matches_of(self, rule: str, compiled: CompiledGlobs) -> list[str]:
        if any(p.startswith("!") for p in compiled.patterns):
            return self._matches_with_negation(rule, compiled)
        return _merged(self._pattern_runs(rule, compiled.patterns))

    def _pattern_runs(self, rule: str, patterns: list[str]) -> list[list[str]]:
        owner = self.scope(rule).owner
        return [self._pattern_matches(owner, p) for p in patterns]

    def _pattern_matches(self, owner: str, pattern: str) -> list[str]:
        """Files one including (expanded) pattern matches below `owner`, sorted; shared by
        every rule and glob check that asks (the same `**/*.ts` in 300 rules is matched once;
        the unmatched-glob check and the budget's rule index ask the same question). A
        pattern the file index selects exactly costs no regex at all; the others test their
        own regex on the prefiltered candidates, compiled only when some are left: a glob
        that matches nothing by its literal parts is never compiled. Never change a returned
        list in place (it may be the file index's own pool)."""
        key = (owner, pattern)
        found = self._by_pattern.get(key)
        if found is not None:
            return found
        found = []
        if not pattern.startswith("!"):
            pool = self._ws.files.candidates(owner, pattern)
            if candidates_are_exact(pattern):
                found = pool
            else:
                pool = prefiltered(pool, pattern)
                regex = pattern_regex(pattern) if pool else None
                if regex is not None:
                    search = regex.search
                    cut = len(owner) + 1 if owner else 0
                    found = [c for c in pool if search(c[cut:]) is not None]
        self._by_pattern[key] = found
        return found

    def _matches_with_negation(self, rule: str, compiled: CompiledGlobs) -> list[str]:
        """With a `!` pattern the last matching pattern decides: every candidate of the
        including patterns goes through the rule's whole pattern list."""
        scope = self.scope(rule)
        candidates: set[str] = set()
        for pattern in compiled.patterns:
            if not pattern.startswith("!"):
                candidates.update(prefiltered(self._ws.files.candidates(scope.owner, pattern),
                                              pattern))
        return sorted(c for c in candidates if compiled.match(scope.within(c)))

    def glob_matches(self, rule: str, pattern: str, limit: int | None = None) -> list[str]:
        """Files one written glob of `rule` matches (after brace expansion), sorted."""
        owner = self.scope(rule).owner
        runs = [run for expanded in safe_expand(pattern)
                if (run := self._pattern_matches(owner, _anchored(expanded)))]
        if limit is not None and len(runs) == 1:
            return runs[0][:limit]
        found = _merged(runs)
        return found[:limit] if limit is not None else found

    def glob_has_matches(self, rule: str, pattern: str) -> bool:
        """Whether one written glob of `rule` matches any file, counting files git ignores
        (the agent knows nothing of git: a `dist/**` rule does load for files in dist/).
        Cached until the rule changes or a file is created or deleted."""
        key = _GLOB_ANY.key(rule, pattern)
        cached = self._ws.derived.get(key)
        if cached is None:
            cached = bool(self.glob_matches(rule, pattern, limit=1)) or self._matches_ignored(
                rule, pattern
            )
            self._ws.derived.put(key, cached, reads=(rule,))
        return cached

    def _matches_ignored(self, rule: str, pattern: str) -> bool:
        ws = self._ws
        scope = self.scope(rule)
        for expanded in safe_expand(pattern):
            compiled = compile_patterns([expanded])
            single = compiled.patterns[0]
            for path in ws.reader.ignored_files():
                relative = scope.relative(path)
                if (relative is not None and (single.startswith("!")
                                              or could_match(single, relative))
                        and compiled.match(relative)):
                    return True
            # an ignored directory is never walked: its literal prefix existing is enough
            prefix = literal_prefix(compiled.patterns[0]).rstrip("/")
            if prefix:
                directory = scope.join(prefix)
                if not ws.files.under(directory + "/") and ws.reader.is_dir(ws.abs(directory)):
                    return True
        return False

    def matches_target(self, rule: str, target: str) -> bool:
        known = self._matches.get(rule)
        if known is not None and target in self._ws.files:
            at = bisect.bisect_left(known, target)  # sorted: no set of 7,600 paths per rule
            return at < len(known) and known[at] == target
        compiled = self.compiled_globs(rule)
        if compiled is None:
            return False
        relative = self.scope(rule).relative(target)
        return relative is not None and compiled.match(relative)

    def first_matching_glob(self, rule: str, target: str) -> str | None:
        """The first written glob of `rule` that matches `target` (None: none does)."""
        relative = self.scope(rule).relative(target)
        if relative is None:
            return None
        for glob in self._ws.document(rule).globs or []:
            if glob.error is None and compile_patterns(glob.expanded).match(relative):
                return glob.pattern
        return None

    def rules_for_file(self, target: str) -> list[tuple[str, str]]:
        """Path-scoped rules (of any directory) matching `target`: (rule, first glob)."""
        out: list[tuple[str, str]] = []
        for rule in self._ws.rules:
            if self.is_scoped(rule.path) and self.matches_target(rule.path, target):
                out.append((rule.path, self.first_matching_glob(rule.path, target) or ""))
        return out

    def scoped_rules_index(self) -> RulesOfFile:
        """Workspace file → the path-scoped rules (of any directory) that match it, in rule
        order (`RulesOfFile`: indexed by distinct pattern, a file's rule tuple put together
        when asked). Built once a check or many single files need it; patched in place when
        a rule's globs change (see `retarget`), rebuilt after any other rule change."""
        ws = self._ws
        index = ws.derived.get(_RULES_OF_FILE)
        if index is None:
            index = self._build_index()
            ws.derived.put(_RULES_OF_FILE, index, reads=[RULE_SCOPES])
        return index

    def _build_index(self) -> RulesOfFile:
        """Built pattern by pattern, not rule by rule: the same `**/*.ts` in 300 rules walks
        its 7,600 files once (1,600 rules matched 2.0 M (file, rule) pairs, their 2,189
        distinct patterns 85 k), and no rule's match list is put together. A rule with an
        excluding `!` pattern is not the union of its patterns: its own match list stands in
        as one more "pattern"."""
        ws = self._ws
        ids: dict[tuple[str, str], int] = {}
        writers: list[list[int]] = []
        runs: list[list[str]] = []
        scoped: list[str] = []
        for rule in ws.rules:
            if not self.is_scoped(rule.path):
                continue
            number = len(scoped)
            scoped.append(rule.path)
            compiled = self.compiled_globs(rule.path)
            if compiled is None:
                continue
            owner = self.scope(rule.path).owner
            if any(p.startswith("!") for p in compiled.patterns):
                keys = [("!", rule.path)]  # its own list, whole
            else:
                keys = [(owner, p) for p in dict.fromkeys(compiled.patterns)]
            for key in keys:
                known = ids.get(key)
                if known is None:
                    known = ids[key] = len(runs)
                    runs.append(self.rule_matches(key[1]) if key[0] == "!"
                                else self._pattern_matches(*key))
                    writers.append([])
                writers[known].append(number)
        return RulesOfFile(scoped, runs, writers)

    def scoped_rules_matching(self, target: str, owners: Iterable[str]) -> list[str]:
        """Path-scoped rules of the `owners` directories whose globs match `target`, sorted.

        For files of the workspace this is a look-up in an index built from every rule's
        match list (the lists survive edits that do not touch the rule); other targets are
        matched glob by glob."""
        ws = self._ws
        owners = tuple(owners)
        key = _SCOPED_OF.key(owners)
        wanted = ws.derived.get(key)
        if wanted is None:
            rules = [r for d in owners for r in ws.rules_of(d)]
            wanted = frozenset(r for r in rules if self.is_scoped(r))
            ws.derived.put(key, wanted, reads=rules)
        if target not in ws.files:
            return sorted(r for r in wanted if self.matches_target(r, target))
        if (ws.derived.get(_RULES_OF_FILE) is None and self._unindexed < UNINDEXED_ASKS
                and len(wanted) <= UNINDEXED_RULES):
            # the first files are matched rule by rule: a language server's first hover
            # must not build the whole file → rules index (~0.1 s on the 20k monorepo) for one
            # file (nor its 17th hover); a check or a replay asking for many files builds it,
            # and so does the first question that would match many rules
            self._unindexed += 1
            return sorted(r for r in wanted if self.matches_target(r, target))
        self._unindexed = 0
        return sorted(r for r in self.scoped_rules_index().get(target, ()) if r in wanted)

    # ----- updates --------------------------------------------------------------------------

    def retarget(self, rules: list[tuple[str, list[str] | None]]) -> list[Retarget]:
        """Rules whose globs changed: patch the file → rules index, and say which files each
        rule now matches and no longer matches (everything derived for them is stale)."""
        ws = self._ws
        index = ws.derived.get(_RULES_OF_FILE)
        changes: list[Retarget] = []
        for rule, before in rules:
            new = set(self.rule_matches(rule)) if self.is_scoped(rule) else set()
            if before is None:
                # never matched before this edit: nothing derived read it, unless the index did
                if index is not None:
                    ws.derived.invalidate({RULE_SCOPES}, structural=False)
                    index = None
                changes.append(Retarget(rule, frozenset(new), frozenset()))
                continue
            old = set(before)
            gained, lost = frozenset(new - old), frozenset(old - new)
            changes.append(Retarget(rule, gained, lost))
            if index is not None:
                index.patch(rule, gained, lost)
        return changes

    def files_changed(self, created: set[str], deleted: set[str]) -> None:
        """Created and deleted files join or leave the match lists of the rules they match."""
        self._by_pattern.clear()
        for rule, matches in list(self._matches.items()):
            if deleted and any(d in matches for d in deleted):
                self._matches[rule] = [m for m in matches if m not in deleted]
            compiled = self.compiled_globs(rule) if created else None
            scope = self.scope(rule)
            for key in created:
                relative = scope.relative(key)
                if compiled is not None and relative is not None and compiled.match(relative):
                    matches = self._matches[rule]
                    at = bisect.bisect_left(matches, key)
                    if at == len(matches) or matches[at] != key:
                        # a new list: callers may hold the old one (never changed in place)
                        self._matches[rule] = [*matches[:at], key, *matches[at:]]


def _merged(runs: list[list[str]]) -> list[str]:
    """The union of sorted runs, sorted and without repeats. One run is copied as it is;
    several are concatenated and sorted, which Timsort does by merging the runs (a fraction of
    sorting a set of the same paths, which comes out in hash order)."""
    if not runs:
        return []
    if len(runs) == 1:
        return list(runs[0])
    return list(dict.fromkeys(sorted([path for run in runs for path in run])))


def _anchored(pattern: str) -> str:
    """A written pattern as `compile_patterns` stores it (a leading `/` only anchors)."""
    return pattern.lstrip("/") if not pattern.startswith("!") else "!" + pattern[1:].lstrip("/")
