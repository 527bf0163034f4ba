"""Cursor: `.mdc` project rules in `.cursor/rules/` (nested ones scoped to their folder) and the
legacy `.cursorrules` (docs/profiles/cursor.md). No imports, no budget.

A rule's header decides its type: `alwaysApply: true` → always; `globs` → auto-attached when a
glob matches the target; a `description` alone → agent-requested (the agent decides from the
description); none of them → manual (only an @-mention attaches it). Globs are relative to the
folder holding `.cursor`, matched gitignore-style (a slash-less glob matches at any depth).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING, Final, Literal

from rulemap.derived import KeyFamily
from rulemap.globs import (
    CompiledGlobs,
    candidates_are_exact,
    compile_patterns,
    literal_prefix,
    prefiltered,
    safe_expand,
)
from rulemap.model import (
    Budget,
    Explanation,
    Finding,
    LoadedFile,
    LoadStatus,
    ScopedGlobs,
    Skipped,
    Span,
)
from rulemap.profiles.base import EXPLAIN, Option, Profile, cached_explanation, options_of
from rulemap.profiles.rule_files import (
    FILES_NAMED,
    Header,
    WrittenGlob,
    as_scoped,
    files_named,
    read_header,
    written_globs,
)
from rulemap.workspace.rule_scope import RuleScope

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

RULES = ".cursor/rules/"
LEGACY = ".cursorrules"
Kind = Literal["always", "auto", "requested", "manual", "invalid"]
_ORDER: dict[str, int] = {"always": 0, "auto": 1, "requested": 2}

_RULE: Final[KeyFamily[_Rule]] = KeyFamily("cursor-rule")  # file
_GLOB_ANY: Final = KeyFamily[bool]("cursor-glob-any")  # owner, pattern
_RULE_FINDINGS: Final = KeyFamily[list[Finding]]("cursor-rule-findings")  # file, linted


@dataclass
class _Rule:
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


class CursorProfile(Profile):
    name = "cursor"
    title = "Cursor"
    description = (
        "Cursor: .cursor/rules/*.mdc (always, auto-attached by globs, agent-requested, manual; "
        "nested folders scoped to themselves) and the legacy .cursorrules; no budget."
    )
    follows_imports = False
    own_glob_dialect = True  # a rule's globs are relative to the folder holding `.cursor`
    watched_globs = ("**/.cursor/rules/**", ".cursorrules")
    options: tuple[Option, ...] = (
        Option("includeRequested", (bool,), True,
               "list agent-requested rules (description only) as loaded: the agent may pull "
               "them in"),
        Option("legacyCursorrules", (bool,), True, "read the root's legacy `.cursorrules`"),
        Option("mdRules", (bool,), False,
               "also read `.md` files in `.cursor/rules` as rules (unconfirmed: Cursor's rule "
               "files are `.mdc`)"),
    )

    # ----- the interface ----------------------------------------------------------------------

    def detect(self, ws: Workspace) -> bool:
        return bool(_rule_paths(ws)) or _exists(ws, LEGACY) or ws.reader.is_dir(
            ws.abs(RULES.rstrip("/")))

    def reads(self, ws: Workspace, key: str) -> bool:
        opts = options_of(ws, self)
        if key == LEGACY:
            return bool(opts["legacyCursorrules"])
        if _owner(key) is None:
            return False
        return key.endswith(".mdc") or (bool(opts["mdRules"]) and key.endswith(".md"))

    # ----- for views: a rule's `globs`, relative to the folder holding its `.cursor` ------
    def glob_key(self, ws: Workspace, key: str) -> tuple[str, str] | None:
        if not self.reads(ws, key) or key == LEGACY or key not in ws.files:
            return None
        return "globs", _owner(key) or ""

    def rule_globs(self, ws: Workspace, key: str) -> ScopedGlobs | None:
        if self.glob_key(ws, key) is None:
            return None
        rule = _rule(ws, key)
        return as_scoped("globs", rule.owner, rule.globs)

    def load_status(self, ws: Workspace, key: str) -> LoadStatus:
        """A rule by its kind: always applied (in its folder), auto-attached to the files its
        globs match, agent-requested (loaded when the agent decides from its description),
        manual (only when @-mentioned), or unusable."""
        if self.glob_key(ws, key) is None:
            return Profile.load_status(self, ws, key)
        doc = ws.document(key)
        if doc.unreadable:
            return LoadStatus(False, why_not=f"unreadable: {doc.unreadable}")
        rule = _rule(ws, key)
        if rule.kind == "invalid":
            return LoadStatus(False, why_not=f"{rule.problem}; Cursor cannot use its header")
        if rule.kind == "manual":
            return LoadStatus(False, why_not="a manual rule: attached only when @-mentioned")
        if rule.kind == "requested":
            if not options_of(ws, self)["includeRequested"]:
                return LoadStatus(False, why_not="agent-requested (includeRequested = false)")
            return LoadStatus(True, len(ws.files))
        if rule.kind == "always":
            scope = RuleScope(rule.owner)
            return LoadStatus(True, sum(1 for f in ws.files if scope.contains(f)))
        matches = self.rule_matches(ws, key)
        return LoadStatus(bool(matches), len(matches), matches[0] if matches else None,
                          scoped=True, why_not=None if matches else "its globs match no file")

    def glob_matches(self, ws: Workspace, rule: str, pattern: str) -> list[str]:
        owner = _owner(rule) or ""
        return _glob_files(ws, owner, tuple(safe_expand(pattern)))

    def glob_has_matches(self, ws: Workspace, rule: str, pattern: str) -> bool:
        written = WrittenGlob(pattern, Span.at(0, 0), tuple(safe_expand(pattern)))
        return _glob_has_matches(ws, _owner(rule) or "", written)

    def rule_matches(self, ws: Workspace, rule: str) -> list[str]:
        scoped = self.rule_globs(ws, rule)
        globs = [g for g in (scoped.globs if scoped else ()) if not g.error]
        return sorted({f for g in globs for f in self.glob_matches(ws, rule, g.pattern)})

    def first_matching_glob(self, ws: Workspace, rule: str, target: str) -> str | None:
        scoped = self.rule_globs(ws, rule)
        relative = RuleScope(scoped.base).relative(target) if scoped else None
        if scoped is None or relative is None:
            return None
        for glob in scoped.globs:
            if not glob.error and glob.expanded and _compiled(tuple(glob.expanded)).match(
                    relative):
                return glob.pattern
        return None

    def explain(self, ws: Workspace, target: str | None, cwd: str) -> Explanation:
        cwd = "" if cwd in (".", "") else cwd.strip("/")
        return cached_explanation(
            ws, EXPLAIN.key(self.name, target, cwd), lambda: self._explain(ws, target, cwd)
        )

    def findings(self, ws: Workspace) -> list[Finding]:
        opts = options_of(ws, self)
        lint = frozenset(ws.lint_documents())
        out: list[Finding] = []
        if opts["legacyCursorrules"] and _exists(ws, LEGACY):
            out.extend(_plain_findings(ws, LEGACY, lint, "Cursor"))
        md_rules = bool(opts["mdRules"])
        for key in _rule_paths(ws):
            if key.endswith(".mdc") or md_rules:
                out.extend(_rule_findings(ws, key, key in lint))
            else:
                name = key.rsplit("/", 1)[-1]
                # information, not a warning: whether Cursor also reads `.md` rules is
                # unconfirmed (docs/profiles/cursor.md), so this is a likely problem, not a sure one
                out.append(Finding(
                    key, Span.at(0, 0), "information", "unreachable-rule",
                    f"Cursor reads `.mdc` rule files from `.cursor/rules`, so it never attaches "
                    f"`{name}`; rename it to `{name[:-3]}.mdc` (mdRules = false; unconfirmed)"))
        return out

    # ----- loading ----------------------------------------------------------------------------

    def _explain(self, ws: Workspace, target: str | None,
                 cwd: str) -> tuple[Explanation, set[str]]:
        opts = options_of(ws, self)
        files: list[LoadedFile] = []
        skipped: list[Skipped] = []
        reads: set[str] = set()

        def add(key: str, reason: Literal["project", "rule", "scoped", "requested"], text: str,
                note: str | None = None) -> None:
            if not text.strip():
                skipped.append(Skipped(key, "empty: it brings nothing", "empty-instructions"))
                return
            files.append(LoadedFile(key, reason, None, 0, len(text), text=text, note=note))

        if opts["legacyCursorrules"] and _exists(ws, LEGACY):
            reads.add(LEGACY)
            doc = ws.document(LEGACY)
            if doc.unreadable:
                skipped.append(Skipped(LEGACY, f"unreadable: {doc.unreadable}",
                                       "unreadable-file"))
            else:
                add(LEGACY, "project", doc.text)
        md_rules = bool(opts["mdRules"])
        chosen: list[tuple[int, str, _Rule]] = []
        for key in _rule_paths(ws):
            owner = _owner(key)
            assert owner is not None
            if not _in_scope(owner, target, cwd):
                continue
            if not key.endswith(".mdc") and not md_rules:
                skipped.append(Skipped(key, "Cursor reads `.mdc` rule files (mdRules = false)",
                                       "unreachable-rule"))
                continue
            reads.add(key)
            doc = ws.document(key)
            if doc.unreadable:
                skipped.append(Skipped(key, f"unreadable: {doc.unreadable}", "unreadable-file"))
                continue
            rule = _rule(ws, key)
            if rule.kind == "invalid":
                skipped.append(Skipped(key, f"{rule.problem}; Cursor cannot use its header",
                                       "invalid-frontmatter"))
            elif rule.kind == "manual":
                skipped.append(Skipped(key, "manual rule (no `alwaysApply`, `globs` or "
                                            "`description`): attached only when @-mentioned",
                                       "unreachable-rule"))
            elif rule.kind == "requested" and not opts["includeRequested"]:
                skipped.append(Skipped(key, "agent-requested: loaded only if the agent decides "
                                            "from its description (includeRequested = false)",
                                       "unreachable-rule"))
            elif rule.kind == "auto" and not _applies(rule, target):
                continue
            else:
                chosen.append((_ORDER[rule.kind], key, rule))
        for _, key, rule in sorted(chosen, key=lambda c: (c[0], c[1])):
            if rule.kind == "always":
                add(key, "rule", rule.header.body)
            elif rule.kind == "auto":
                written = ", ".join(g.pattern for g in rule.globs or [])
                add(key, "scoped", rule.header.body, note=f"globs: {written}")
            else:
                add(key, "requested", rule.header.body,
                    note=f"agent-requested: loaded if the agent decides from its description: "
                         f"{rule.description}")
        notes = ("rule globs match gitignore-style, relative to the folder holding `.cursor` "
                 "(unconfirmed)",) if _rule_paths(ws) else ()
        return Explanation(
            profile=self.name, root=ws.root, cwd=cwd or ".", target=target, max_chars=0,
            files=files, left_out=[], skipped=skipped, notice=None,
            requested_chars=sum(f.chars for f in files), budget=Budget("none", "chars", 0),
            notes=notes), reads


# ----- files and headers ----------------------------------------------------------------------


def _exists(ws: Workspace, key: str) -> bool:
    if key in ws.files:
        return True
    full = ws.abs(key)
    return ws.reader.exists(full) and not ws.reader.is_dir(full)


def _owner(key: str) -> str | None:
    """The folder holding the `.cursor/rules` that `key` is in ('' = the root), or None."""
    if key.startswith(RULES):
        return ""
    index = key.find("/" + RULES)
    return key[:index] if index >= 0 else None


def _rule_paths(ws: Workspace) -> list[str]:
    """`.mdc` and `.md` files below any `.cursor/rules/` (root or nested), sorted."""
    # a lazy chain of the index's own lists: nothing is copied when the answer is cached
    pool = chain(ws.files.with_suffix(".mdc"), ws.files.with_suffix(".md"))
    return files_named(ws, FILES_NAMED.key("cursor", "rules"), pool,
                       lambda p: p.endswith((".mdc", ".md")) and _owner(p) is not None)


def _in_scope(owner: str, target: str | None, cwd: str) -> bool:
    """A nested folder's rules apply to targets inside it (without a target: when the cwd is
    inside it)."""
    if not owner:
        return True
    where = target if target is not None else cwd
    return where == owner or RuleScope(owner).contains(where)


def _rule(ws: Workspace, key: str) -> _Rule:
    cache_key = _RULE.key(key)
    cached = ws.derived.get(cache_key)
    if cached is not None:
        return cached
    doc = ws.document(key)
    header = read_header(doc)
    owner = _owner(key) or ""
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
    cached = _Rule(key, owner, header, kind, description, globs, problem, problem_span, warnings)
    ws.derived.put(cache_key, cached, reads=(key,))
    return cached


# ----- globs ----------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def _compiled(patterns: tuple[str, ...]) -> CompiledGlobs:
    return compile_patterns(patterns)


def _applies(rule: _Rule, target: str | None) -> bool:
    if target is None:
        return False
    relative = RuleScope(rule.owner).relative(target)
    if relative is None:
        return False
    return any(not g.error and g.expanded and _compiled(g.expanded).match(relative)
               for g in rule.globs or [])


def _glob_files(ws: Workspace, owner: str, expanded: tuple[str, ...]) -> list[str]:
    """The files below `owner` one glob (its brace expansions) matches, sorted: the index's
    candidates by literal prefix and extension, each tested (for views)."""
    scope = RuleScope(owner)
    found: set[str] = set()
    for pattern in expanded:
        compiled = _compiled((pattern,))
        single = compiled.patterns[0]
        found.update(c for c in prefiltered(ws.files.candidates(owner, single), single)
                     if scope.contains(c) and compiled.match(scope.within(c)))
    return sorted(found)


def _glob_has_matches(ws: Workspace, owner: str, glob: WrittenGlob) -> bool:
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
        compiled = _compiled((pattern,))
        single = compiled.patterns[0]
        pool = ws.files.candidates(owner, single)
        if candidates_are_exact(single):
            found = bool(pool)
        else:
            found = any(compiled.match(scope.within(c)) for c in prefiltered(pool, single))
        if not found:
            found = any(scope.contains(p) and compiled.match(scope.within(p))
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


# ----- findings -------------------------------------------------------------------------------


def _plain_findings(ws: Workspace, key: str, lint: frozenset[str], who: str) -> list[Finding]:
    if key in lint:
        return []
    doc = ws.document(key)
    if doc.unreadable:
        return [Finding(key, Span.at(0, 0), "error", "unreadable-file",
                        f"`{key}` cannot be used: {doc.unreadable}. {who} skips it.")]
    if not doc.text.strip():
        return [Finding(key, Span.at(0, 0, len(doc.lines[0])), "warning", "empty-instructions",
                        "this file is empty; add content or delete it")]
    return []


def _rule_findings(ws: Workspace, key: str, linted: bool) -> list[Finding]:
    cache_key = _RULE_FINDINGS.key(key, linted)
    cached = ws.derived.get(cache_key)
    if cached is None:
        cached = _rule_findings_of(ws, key, linted)
        ws.derived.put(cache_key, cached, reads=(key,))
    return cached


def _rule_findings_of(ws: Workspace, key: str, linted: bool) -> list[Finding]:
    doc = ws.document(key)
    if doc.unreadable:
        return [] if linted else _plain_findings(ws, key, frozenset(), "Cursor")
    rule = _rule(ws, key)
    first = Span.at(0, 0, len(doc.lines[0]))
    if rule.kind == "invalid":
        return [Finding(key, rule.problem_span or Span.at(0, 0, 3), "error",
                        "invalid-frontmatter",
                        f"{rule.problem}. Cursor cannot read this rule's header, so it never "
                        f"attaches it")]
    out = [Finding(key, span, "warning", "invalid-frontmatter", message)
           for span, message in rule.warnings]
    if not rule.header.body.strip() and not linted:
        out.append(Finding(key, first, "warning", "empty-instructions",
                           "this rule has no content after its header; add content or delete "
                           "it"))
    if rule.kind == "manual":
        out.append(Finding(
            key, first, "warning", "unreachable-rule",
            "never attached: this rule has no `alwaysApply`, `globs` or `description`, so "
            "Cursor uses it only when you @-mention it; add `alwaysApply: true`, `globs`, or a "
            "`description`"))
    globs = rule.globs or []
    for glob in globs:
        if glob.error:
            out.append(Finding(key, glob.span, "error", "invalid-glob",
                               f"`{glob.pattern}`: {glob.error}"))
    live = [g for g in globs if not g.error and not g.pattern.startswith("!")]
    dead = [g for g in live if not _glob_has_matches(ws, rule.owner, g)]
    base = f"`{rule.owner}/`" if rule.owner else "the workspace root"
    for glob in dead:
        alive = len(dead) < len(live) or rule.kind == "always"
        tail = (" The rule still attaches through its other globs." if len(dead) < len(live)
                else " The rule is always applied anyway." if rule.kind == "always"
                else " No glob of this rule matches, so Cursor never auto-attaches it.")
        out.append(Finding(
            key, glob.span, "information" if alive else "warning", "unmatched-glob",
            f"`{glob.pattern}` matches no file in the workspace (globs are relative to "
            f"{base}).{tail}"))
    return out
