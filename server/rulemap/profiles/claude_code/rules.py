"""`.claude/rules` as Claude Code reads them: which are unconditional, and which files a rule
with `paths` matches.

`paths` is a YAML list or a (comma-separated) string of globs, brace-expanded (capped at 256,
by the shared parser). Claude Code then strips a trailing `/**` from each glob, so `src/**`
becomes `src`, which — slash-less, gitignore-style — matches a `src` directory at any depth.
No globs, or only `**`, make the rule unconditional. Matching is probably case-insensitive
(*unconfirmed*): `caseSensitiveGlobs = true` makes it case-sensitive."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rulemap.globs import CompiledGlobs, compile_patterns
from rulemap.model import Document

if TYPE_CHECKING:
    from rulemap.workspace import Workspace


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
    cache_key = ("claude-code", "rule-globs", key, case_sensitive)
    cached: RuleGlobs | None = ws.derived.get(cache_key)
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
