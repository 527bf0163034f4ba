"""Cursor's project rules: the `.mdc` files below any `.cursor/rules/` (a nested folder's rules
scoped to it), each rule's header read as Cursor reads it, and its globs matched relative to the
folder holding `.cursor` (gitignore-style: a slash-less glob matches at any depth).

A rule's header decides its type: `alwaysApply: true` → always; `globs` → auto-attached when a
glob matches the target; a `description` alone → agent-requested (the agent decides from the
description); none of them → manual (only an @-mention attaches it).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Final, Literal

from rulemap.derived import KeyFamily
from rulemap.globs import (
    CompiledGlobs,
    FileIndex,
    candidates_are_exact,
    compile_patterns,
    could_match,
    literal_prefix,
    prefiltered,
)
from rulemap.model import Span
from rulemap.profiles.cursor.places import LEGACY as LEGACY
from rulemap.profiles.cursor.places import RULES as RULES
from rulemap.profiles.cursor.places import exists as exists
from rulemap.profiles.cursor.places import owner_of as owner_of
from rulemap.profiles.cursor.places import rule_paths as rule_paths
from rulemap.profiles.rule_files import (
    Header,
    WrittenGlob,
    read_header,
    written_globs,
)
from rulemap.records import record
from rulemap.workspace.rule_scope import RuleScope

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

Kind = Literal["always", "auto", "requested", "manual", "invalid"]
ORDER: dict[str, int] = {"always": 0, "auto": 1, "requested": 2}

_RULE: Final[KeyFamily[Rule]] = KeyFamily("cursor-rule")  # file
_GLOB_ANY: Final = KeyFamily[bool]("cursor-glob-any")  # owner, pattern
_HITS: Final = KeyFamily[frozenset[str]]("cursor-rule-hits")  # file
_DIRECTORIES: Final = KeyFamily[FileIndex]("cursor-directories").key()


@record
class Rule:
    """One rule file as Cursor reads it."""

    key: str
    owner: str  # the folder holding `.cursor` ('' = the root)
    header: Header
    kind: Kind
    description: str | None
    globs: list[WrittenGlob] | None
    problem: str | None  # the header cannot be used
    problem_span: Span | None
    warnings: list[tuple[Span, str]]  # usable, but something in it is ignored


# ----- files and headers ----------------------------------------------------------------------


def in_scope(owner: str, target: str | None, cwd: str) -> bool:
    """A nested folder's rules apply to targets inside it (without a target: when the cwd is
    inside it)."""
    if not owner:
        return True
    where = target if target is not None else cwd
    return where == owner or RuleScope(owner).contains(where)


def rule_of(ws: Workspace, key: str) -> Rule:
    cache_key = _RULE.key(key)
    cached = ws.derived.get(cache_key)
    if cached is not None:
        return cached
    doc = ws.document(key)
    header = read_header(doc)
    owner = owner_of(key) or ""
    warnings: list[tuple[Span, str]] = []
    kind: Kind = "manual"
    description: str | None = None
    globs: list[WrittenGlob] | None = None
    problem: str | None = None
    problem_span: Span | None = None
    if header.error:
        kind, problem, problem_span = "invalid", header.error, header.error_span
    else:
        data = header.data
        found = written_globs(header, "globs", doc.lines)
        if isinstance(found, str):
            kind, problem, problem_span = "invalid", found, header.key_spans.get("globs")
        else:
            globs = found
            always = data.get("alwaysApply")
            if always is not None and not isinstance(always, bool):
                warnings.append((header.key_spans.get("alwaysApply", Span.at(0, 0, 3)),
                                 f"`alwaysApply` must be `true` or `false`, not {always!r}; "
                                 f"Cursor does not treat it as true"))
            raw = data.get("description")
            if raw is not None and str(raw).strip():
                description = str(raw).strip()
            if always is True:
                kind = "always"
            elif globs:
                kind = "auto"
            elif description:
                kind = "requested"
    cached = Rule(key, owner, header, kind, description, globs, problem, problem_span, warnings)
    ws.derived.put(cache_key, cached, reads=(key,))
    return cached


# ----- globs ----------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def compiled_globs(patterns: tuple[str, ...]) -> CompiledGlobs:
    return compile_patterns(patterns)


def applies(rule: Rule, target: str | None) -> bool:
    if target is None:
        return False
    relative = RuleScope(rule.owner).relative(target)
    if relative is None:
        return False
    return any(not g.error and g.expanded and compiled_globs(g.expanded).match(relative)
               for g in rule.globs or [])


def glob_files(ws: Workspace, owner: str, expanded: tuple[str, ...]) -> list[str]:
    """The files below `owner` one glob (its brace expansions) matches, sorted: the index's
    candidates by literal prefix and extension, each tested (for views)."""
    scope = RuleScope(owner)
    found: set[str] = set()
    for pattern in expanded:
        compiled = compiled_globs((pattern,))
        single = compiled.patterns[0]
        found.update(c for c in prefiltered(ws.files.candidates(owner, single), single)
                     if scope.contains(c) and compiled.match(scope.within(c)))
    return sorted(found)


def glob_has_matches(ws: Workspace, owner: str, glob: WrittenGlob) -> bool:
    """Whether one written glob matches any file below `owner` (git-ignored ones count: the
    agent knows nothing of git): one pass per expanded pattern over the index's candidates
    (literal prefix and extension). Cached until a file is created or deleted."""
    cache_key = _GLOB_ANY.key(owner, glob.pattern)
    cached = ws.derived.get(cache_key)
    if cached is not None:
        return cached
    scope = RuleScope(owner)
    found = False
    for pattern in glob.expanded:
        compiled = compiled_globs((pattern,))
        single = compiled.patterns[0]
        pool = ws.files.candidates(owner, single)
        if candidates_are_exact(single):
            found = bool(pool)
        else:
            found = any(compiled.match(scope.within(c)) for c in prefiltered(pool, single))
        if not found:
            found = any(scope.contains(p) and (single.startswith("!") or could_match(
                single, scope.within(p))) and compiled.match(scope.within(p))
                        for p in ws.reader.ignored_files())
        if not found:
            prefix = literal_prefix(single).rstrip("/")
            directory = scope.join(prefix) if prefix else prefix
            found = bool(prefix) and not ws.files.under(directory + "/") and ws.reader.is_dir(
                ws.abs(directory))
        if found:
            break
    ws.derived.put(cache_key, found, reads=())
    return found


def rule_hits(ws: Workspace, rule: Rule) -> frozenset[str]:
    """Every file `applies(rule, file)` is true for, found per glob over the index rather
    than file by file: the candidates of each including pattern by its literal prefix and
    extension, and (gitignore-style, a pattern matching a directory matches everything below
    it) the files below the directories that are candidates too; each tested by `applies`
    (a negation only takes away). Cached until the rule changes or a file is created or
    deleted."""
    cache_key = _HITS.key(rule.key)
    cached = ws.derived.get(cache_key)
    if cached is not None:
        return cached
    directories = _directories(ws)
    pool: set[str] = set()
    for glob in rule.globs or []:
        if glob.error:
            continue
        for pattern in glob.expanded:
            single = compiled_globs((pattern,)).patterns[0]
            if single.startswith("!"):
                continue
            pool.update(prefiltered(ws.files.candidates(rule.owner, single), single))
            for directory in prefiltered(directories.candidates(rule.owner, single), single):
                pool.update(ws.files.under(directory + "/"))
    cached = frozenset(p for p in pool if applies(rule, p))
    ws.derived.put(cache_key, cached, reads=(rule.key,))
    return cached


def _directories(ws: Workspace) -> FileIndex:
    """The directories holding files (the root aside), as an index of paths (until a create
    or delete)."""
    cached = ws.derived.get(_DIRECTORIES)
    if cached is None:
        found: set[str] = set()
        for path in ws.files:
            directory = path.rpartition("/")[0]
            while directory and directory not in found:
                found.add(directory)
                directory = directory.rpartition("/")[0]
        cached = FileIndex(found)
        ws.derived.put(_DIRECTORIES, cached, reads=())
    return cached
