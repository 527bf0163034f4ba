"""`.claude/rules` as Claude Code reads them: which are unconditional, and which files a rule
with `paths` matches.

`paths` is a YAML list or a (comma-separated) string of globs, brace-expanded (capped at 256,
by the shared parser). Claude Code then strips a trailing `/**` from each glob, so `src/**`
becomes `src`, which — slash-less, gitignore-style — matches a `src` directory at any depth.
No globs, or only `**`, make the rule unconditional. Matching is probably case-insensitive
(*unconfirmed*): `caseSensitiveGlobs = true` makes it case-sensitive."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from rulemap.derived import KeyFamily
from rulemap.globs import (
    CompiledGlobs,
    compile_patterns,
    literal_prefix,
    literal_tail,
    required_parts,
    safe_expand,
)
from rulemap.model import Document, LoadStatus
from rulemap.workspace.rule_scope import RuleScope

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

_RULE_GLOBS: Final[KeyFamily[RuleGlobs]] = KeyFamily("claude-code-rule-globs")  # rule, case
# scope's owner, case-sensitive → its files as the globs see them
_GLOB_PROBES: Final[KeyFamily[_Probes]] = KeyFamily("claude-code-glob-probes")


@dataclass(frozen=True)
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
    if glob_matches(ws, rule, pattern, case_sensitive):
        return True
    scope = ws.rule_scope(rule)
    if scope is None:
        return False
    patterns = [p for p in (claude_patterns(e) for e in safe_expand(pattern)) if p]
    cased = [p if case_sensitive else p.lower() for p in patterns]
    if not cased:
        return False
    compiled = compile_patterns(cased)
    for path in ws.reader.ignored_files():
        relative = scope.relative(path)
        if relative is not None and compiled.match(
                relative if case_sensitive else relative.lower()):
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
    for pattern in patterns:
        if pattern.startswith("!"):
            continue  # excludes, never adds: the verdict applies it
        pool = probes.slashed
        tail = literal_tail(pattern)
        if tail:
            pool = [c for c in pool if c.endswith(tail)]
        for part in required_parts(pattern):
            pool = [c for c in pool if part in c]
        for slashed in pool:
            if verdict(slashed[1:]):
                found.update(probes.keys[slashed])
    return sorted(found)


@dataclass(frozen=True)
class _Probes:
    """The files of a scope as its globs see them, each with `/` in front (what the literal
    part tests expect), and the workspace keys behind each."""

    slashed: list[str]
    keys: dict[str, list[str]]


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
        cached = _Probes(list(keys), keys)
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
