"""`.claude/rules` as Claude Code reads them: which are unconditional, and which files a rule
with `paths` matches.

`paths` is a YAML list or a (comma-separated) string of globs, brace-expanded (capped at 256,
by the shared parser). Claude Code then strips a trailing `/**` from each glob, so `src/**`
becomes `src`, which — slash-less, gitignore-style — matches a `src` directory at any depth.
No globs, or only `**`, make the rule unconditional. Matching is probably case-insensitive
(*unconfirmed*): `caseSensitiveGlobs = true` makes it case-sensitive."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from dataclasses import field
from typing import TYPE_CHECKING, Final

from rulemap.derived import KeyFamily
from rulemap.globs import (
    CompiledGlobs,
    compile_patterns,
    could_match,
    literal_path,
    literal_prefix,
    literal_tail,
    pattern_regex,
    required_parts,
    safe_expand,
)
from rulemap.model import Document, LoadStatus
from rulemap.records import record
from rulemap.workspace.rule_scope import RuleScope

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

_RULE_GLOBS: Final[KeyFamily[RuleGlobs]] = KeyFamily("claude-code-rule-globs")  # rule, case
# scope's owner, case-sensitive → its files as the globs see them
_GLOB_PROBES: Final[KeyFamily[_Probes]] = KeyFamily("claude-code-glob-probes")


@record(frozen=True)
class RuleGlobs:
    """A rule's globs as Claude Code uses them. `groups`: per written glob, (as written, the
    patterns it became); None when the rule is unconditional."""

    groups: tuple[tuple[str, CompiledGlobs], ...] | None

    @property
    def unconditional(self) -> bool:
        return self.groups is None

    def first_match(self, relative: str, case_sensitive: bool) -> str | None:
        """The first written glob that matches `relative` (a path relative to the rule's
        owner), or None."""
        if self.groups is None:
            return None
        probe = relative if case_sensitive else relative.lower()
        for written, compiled in self.groups:
            if compiled.match(probe):
                return written
        return None


def claude_patterns(pattern: str) -> str:
    """One expanded glob as Claude Code matches it: a trailing `/**` dropped."""
    while pattern.endswith("/**") and len(pattern) > 3:
        pattern = pattern[:-3]
    return pattern


def rule_globs(ws: Workspace, key: str, doc: Document, case_sensitive: bool) -> RuleGlobs:
    """Cached per rule (until it changes)."""
    cache_key = _RULE_GLOBS.key(key, case_sensitive)
    cached = ws.derived.get(cache_key)
    if cached is not None:
        return cached
    result = _rule_globs(doc, case_sensitive)
    if not key.startswith("/"):
        ws.derived.put(cache_key, result, reads=(key,))
    return result


def _rule_globs(doc: Document, case_sensitive: bool) -> RuleGlobs:
    if doc.globs is None:  # no `paths`, or an empty one
        return RuleGlobs(None)
    written: list[tuple[str, list[str]]] = []
    everything = True
    for glob in doc.globs:
        if glob.error is not None:
            continue  # reported by the generic checks (invalid-glob); it matches nothing
        patterns = [claude_patterns(p) for p in glob.expanded]
        patterns = [p for p in patterns if p]
        if any(p != "**" for p in patterns):
            everything = False
        written.append((glob.pattern, patterns))
    if everything and written:
        return RuleGlobs(None)  # only `**`: Claude Code loads it at start-up
    groups = tuple(
        (pattern, compile_patterns([p if case_sensitive else p.lower() for p in patterns]))
        for pattern, patterns in written
        if patterns
    )
    return RuleGlobs(groups)


# ----- the dialect, for views ("`SRC/**` matches 3 files") ------------------------------------
# Views ask the selected profile which files a glob matches; these answer for Claude Code, by
# the same `claude_patterns` and case folding its loads use, so a hover never contradicts
# `rulemap explain --profile claude-code`. A scan of the rule's scope: a hover asks for one
# rule at a time, and Claude Code's slash-less patterns match at any depth, which the
# workspace's literal-prefix candidate index does not serve.


def glob_matches(ws: Workspace, rule: str, pattern: str, case_sensitive: bool) -> list[str]:
    """Workspace files one written glob of `rule` matches as Claude Code reads it (sorted)."""
    scope = ws.rule_scope(rule)
    if scope is None:
        return []
    patterns = [p for p in (claude_patterns(e) for e in safe_expand(pattern)) if p]
    return _matching(ws, scope, [p if case_sensitive else p.lower() for p in patterns],
                     case_sensitive)


def glob_has_matches(ws: Workspace, rule: str, pattern: str, case_sensitive: bool) -> bool:
    """Whether one written glob of `rule` matches any file for Claude Code, counting files git
    ignores (it knows nothing of git: a `generated/**` rule loads for generated/out/x.ts), as
    the workspace's `glob_has_matches` counts them for the default model."""
    scope = ws.rule_scope(rule)
    if scope is None:
        return False
    if _widens(pattern, case_sensitive) and ws.glob_has_matches(rule, pattern):
        return True
    patterns = [p for p in (claude_patterns(e) for e in safe_expand(pattern)) if p]
    cased = [p if case_sensitive else p.lower() for p in patterns]
    if not cased:
        return False
    compiled = compile_patterns(cased)
    probes = _probes(ws, scope, case_sensitive)
    if _any_candidate_matches(probes, cased, compiled):
        return True  # the first match answers: a live glob costs a few probes, not 20,000
    negates = any(p.startswith("!") for p in cased)
    for path in ws.reader.ignored_files():
        relative = scope.relative(path)
        if relative is None:
            continue
        probe = relative if case_sensitive else relative.lower()
        # no regex compiled for a file without the patterns' literal parts
        if (negates or any(could_match(p, probe) for p in cased)) and compiled.match(probe):
            return True
    # an ignored directory is never walked: its existing is enough (the written glob's
    # literal start: Claude Code's slash-less form matches at any depth, so has none)
    for written in safe_expand(pattern):
        prefix = literal_prefix(written).rstrip("/")
        if prefix:
            directory = scope.join(prefix)
            if not ws.files.under(directory + "/") and ws.reader.is_dir(ws.abs(directory)):
                return True
    return False


def _any_candidate_matches(probes: _Probes, cased: list[str], compiled: CompiledGlobs) -> bool:
    """Whether a probe the patterns' literal parts allow matches. Without an excluding
    pattern each pattern tests its own (memoized) regex, compiled only once a probe gets past
    its literal parts: a glob that names nothing that exists costs no compile (2,000 rules'
    globs each compiled for one look spent 0.5 s of a check in `re.compile`)."""
    if any(p.startswith("!") for p in cased):
        return any(compiled.match(slashed[1:]) for slashed in _candidates(probes, cased))
    for pattern in cased:
        if literal_path(pattern):
            if next(_candidates(probes, [pattern]), None) is not None:
                return True  # its candidates are exactly what it matches
            continue
        regex = None
        for slashed in _candidates(probes, [pattern]):
            regex = regex or pattern_regex(pattern)
            if regex is None:
                break
            if regex.search(slashed[1:]) is not None:
                return True
    return False


def _widens(pattern: str, case_sensitive: bool) -> bool:
    """Whether Claude Code's form of `pattern` matches every file the workspace's gitignore
    reading of it matches: dropping a trailing `/**` only widens (`src` holds all of
    `src/**`), and folding case only adds files when the glob has no capital letter, no
    `[...]` (a negated class can reject the folded letter) and no `?` (a folded letter can
    become two characters). Then the workspace's cached answer, when it is yes, is Claude
    Code's too: 1,600 rules' globs no longer compile a second regex each for this check."""
    if "[" in pattern or "?" in pattern:
        return False
    return case_sensitive or pattern == pattern.lower()


def rule_matches(ws: Workspace, rule: str, case_sensitive: bool) -> list[str]:
    """Workspace files any glob of a scoped `rule` matches (every file in its scope for an
    unconditional one)."""
    scope = ws.rule_scope(rule)
    if scope is None:
        return []
    globs = rule_globs(ws, rule, ws.document(rule), case_sensitive)
    if globs.groups is None:
        return sorted(_in_scope(ws, scope))
    patterns = [p for _, compiled in globs.groups for p in compiled.patterns]
    return _matching(ws, scope, patterns, case_sensitive,
                     lambda probe: globs.first_match(probe, case_sensitive) is not None)


def _matching(
    ws: Workspace, scope: RuleScope, patterns: list[str], case_sensitive: bool,
    verdict: Callable[[str], bool] | None = None,
) -> list[str]:
    """Files in `scope` that `patterns` (cut and cased as Claude Code does) match together
    (`verdict`: the final test, by default the patterns compiled as one). Only the paths a
    pattern's literal parts allow (as `globs.prefiltered` tests them) meet the regex, so
    counting many suggestions stays cheap on a big workspace."""
    probes = _probes(ws, scope, case_sensitive)
    if verdict is None:
        verdict = compile_patterns(patterns).match
    found: set[str] = set()
    for slashed in _candidates(probes, patterns):
        if slashed not in found and verdict(slashed[1:]):
            found.add(slashed)
    return sorted(key for slashed in found for key in probes.keys[slashed])


def _candidates(probes: _Probes, patterns: list[str]) -> Iterator[str]:
    """The probes each (non-excluding) pattern's literal parts allow, pattern by pattern (a
    probe may come twice), read from one bucket instead of every file of the scope: an anchored
    pattern's literal directories (`packages/a/src/` in `packages/a/src/**/*.ts`: a bisection of
    the sorted probes), else the probes ending in its literal tail (the last `_END` characters of
    `*.test.ts`), else those with its last literal segment as a whole directory or file name
    (`Makefile`; found once per name). The monorepo's 226 globs spent 1.2 s testing all 20,000
    files each; the tests after the bucket are the ones every probe met before."""
    for pattern in patterns:
        if pattern.startswith("!"):
            continue  # excludes, never adds: the verdict applies it
        tail = literal_tail(pattern)
        parts = required_parts(pattern)
        body = pattern.lstrip("/")
        anchored = "/" in body.rstrip("/")
        prefix = literal_prefix(body) if anchored else ""
        if literal_path(pattern):
            # a literal path: that file, or everything below it when it is a directory
            exact = "/" + body.rstrip("/")
            pool = [exact, *probes.under(exact + "/")] if exact in probes.keys \
                else probes.under(exact + "/")
        elif prefix:
            pool = probes.under("/" + prefix)
        elif len(tail) >= _END:
            pool = probes.by_end.get(tail[-_END:], [])
        elif parts:
            pool = probes.with_segment(parts[-1].strip("/"))
        else:
            pool = probes.slashed
        yield from (c for c in pool
                    if (not tail or c.endswith(tail)) and all(part in c for part in parts))


_END = 3  # characters of a file name's end that bucket the probes (`.ts`, `.md`, `tsx`)


@record
class _Probes:
    """The files of a scope as its globs see them, each with `/` in front (what the literal
    part tests expect), the workspace keys behind each, and the probes by their last `_END`
    characters and by the names of their segments."""

    slashed: list[str]
    keys: dict[str, list[str]]
    by_end: dict[str, list[str]]
    _segments: dict[str, list[str]] = field(default_factory=dict)
    _joined: str | None = None  # every probe followed by a NUL, asked for once

    def under(self, prefix: str) -> list[str]:
        """The probes that start with `prefix` (`slashed` is sorted)."""
        start = bisect.bisect_left(self.slashed, prefix)
        end = bisect.bisect_left(self.slashed, prefix[:-1] + chr(ord(prefix[-1]) + 1))
        return self.slashed[start:end]

    def with_segment(self, name: str) -> list[str]:
        """The probes with a directory or file named `name`, found when first asked (one
        substring scan each, in C: an index of every segment of every path cost 1.8 s on a
        tree 400 levels deep)."""
        found = self._segments.get(name)
        if found is None:
            inner, last = f"/{name}/", f"/{name}"
            if self._joined is None:
                self._joined = "\0".join(self.slashed) + "\0"
            # a name no path has (`legacy-v1/**` in a dead glob) is ruled out by two scans of
            # one string, not a test per path (11 dead names: 21 → 1 ms); a probe's text is
            # in the joined one, and each ends at a NUL, whatever the paths hold
            if inner not in self._joined and last + "\0" not in self._joined:
                found = []
            else:
                found = [p for p in self.slashed if inner in p or p.endswith(last)]
            self._segments[name] = found
        return found


def _probes(ws: Workspace, scope: RuleScope, case_sensitive: bool) -> _Probes:
    """Cached until a file is created or deleted (an edit changes no path)."""
    key = _GLOB_PROBES.key(scope.owner, case_sensitive)
    cached = ws.derived.get(key)
    if cached is None:
        keys: dict[str, list[str]] = {}
        for path in _in_scope(ws, scope):
            relative = scope.within(path)
            probe = "/" + (relative if case_sensitive else relative.lower())
            keys.setdefault(probe, []).append(path)
        by_end: dict[str, list[str]] = {}
        for probe in keys:
            by_end.setdefault(probe[-_END:], []).append(probe)
        cached = _Probes(sorted(keys), keys, by_end)
        ws.derived.put(key, cached, reads=())
    return cached


def first_matching_glob(
    ws: Workspace, rule: str, target: str, case_sensitive: bool
) -> str | None:
    """The first written glob of `rule` that matches `target` for Claude Code (None: none)."""
    scope = ws.rule_scope(rule)
    relative = scope.relative(target) if scope is not None else None
    if relative is None:
        return None
    globs = rule_globs(ws, rule, ws.document(rule), case_sensitive)
    return globs.first_match(relative, case_sensitive)


def rule_status(ws: Workspace, key: str, case_sensitive: bool) -> LoadStatus:
    """Whether Claude Code loads `key`, a file it reads: a rule it skips never, a scoped rule
    for the files its globs match, anything else for every file."""
    doc = ws.document(key)
    if doc.unreadable:
        return LoadStatus(False, why_not=doc.unreadable)
    if ws.is_rule(key) and doc.rule_skip:
        return LoadStatus(False, why_not=doc.rule_skip)  # as its loads skip it
    if ws.is_rule(key) and not rule_globs(ws, key, doc, case_sensitive).unconditional:
        matches = rule_matches(ws, key, case_sensitive)
        return LoadStatus(bool(matches), len(matches), matches[0] if matches else None,
                          scoped=True, why_not=None if matches else "its globs match no file")
    return LoadStatus(True, len(ws.files))


def _in_scope(ws: Workspace, scope: RuleScope) -> list[str]:
    return ws.files.under(scope.prefix) if scope.owner else list(ws.files)


# ----- which scoped rules can match a file, without asking each ------------------------------
# Every explain (a file read with the Read tool) asks each scoped rule of the launch chain
# whether it matches; with 2,000 rules that was 2,000 regex searches per file. The index keeps
# each rule under one literal piece every path it matches must have — a whole segment name
# (`api` in `src/api/**`, `Makefile`) or the last characters of a literal tail (`.py` in
# `*.py`, which as in gitignore also matches a directory `x.py/` and all below it) — so a file
# meets only the rules filed under its segment names and their endings, plus the few with no
# literal piece at all. The final verdict is still `RuleGlobs.first_match`.

_RULE_INDEX: Final = KeyFamily["RuleIndex"]("claude-code-rule-index")  # directory, case


@record(frozen=True)
class RuleIndex:
    """The scoped rules of one directory's `.claude/rules`, by the literal pieces they need."""

    order: dict[str, int]  # rule → position among the directory's rules
    by_name: dict[str, list[str]]
    by_end: dict[str, list[str]]
    always: tuple[str, ...]

    def candidates(self, relative: str, case_sensitive: bool) -> list[str]:
        """The rules that may match `relative` (root-relative to the rules' owner), in the
        directory's order."""
        probe = relative if case_sensitive else relative.lower()
        found = set(self.always)
        # every segment, as a glob matching a directory matches what is in it; by set
        # operations rather than two look-ups a segment (800 a file 400 levels deep)
        names = set(probe.split("/"))
        for name in names.intersection(self.by_name):
            found.update(self.by_name[name])
        if len(self.by_end) * 4 < len(names):  # few endings, a deep path: search for each
            for end, rules in self.by_end.items():
                if probe.endswith(end) or end + "/" in probe:
                    found.update(rules)
        else:
            for end in {name[-_END:] for name in names}.intersection(self.by_end):
                found.update(self.by_end[end])
        return sorted(found, key=self.order.__getitem__)


def rule_index(
    ws: Workspace, directory: str, rules: list[str], case_sensitive: bool
) -> RuleIndex:
    """Cached until one of the rules changes (a created or deleted rule drops every entry)."""
    key = _RULE_INDEX.key(directory, case_sensitive)
    cached = ws.derived.get(key)
    if cached is not None:
        return cached
    by_name: dict[str, list[str]] = {}
    by_end: dict[str, list[str]] = {}
    always: list[str] = []
    for rule in rules:
        doc = ws.document(rule)
        if doc.rule_skip:
            continue
        groups = rule_globs(ws, rule, doc, case_sensitive).groups
        if groups is None:
            continue  # unconditional: loads at start-up, never as a match
        for _, compiled in groups:
            for pattern in compiled.patterns:
                if pattern.startswith("!"):
                    continue  # an exclusion never makes a rule match
                parts = required_parts(pattern)
                tail = literal_tail(pattern)
                if parts:
                    by_name.setdefault(parts[-1].strip("/"), []).append(rule)
                elif len(tail) >= _END:
                    by_end.setdefault(tail[-_END:], []).append(rule)
                else:
                    always.append(rule)
    index = RuleIndex({rule: i for i, rule in enumerate(rules)}, by_name, by_end,
                      tuple(dict.fromkeys(always)))
    ws.derived.put(key, index, reads=rules)
    return index
