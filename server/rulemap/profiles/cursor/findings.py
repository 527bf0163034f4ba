"""What Cursor's loading does wrong in a workspace: its rules' headers and globs, empty or
unreadable files it reads, `@imports` in the AGENTS.md it reads (it has none), and `mdc:` links
of its rules to files that do not exist."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from rulemap.derived import KeyFamily
from rulemap.model import Finding, ImportStatus, Span
from rulemap.profiles.base import (
    Profile,
    empty_file,
    invalid_glob,
    selected,
    unusable_file,
)
from rulemap.profiles.cursor.agents_md import mdc_links
from rulemap.profiles.cursor.rules import (
    LEGACY,
    RULES,
    glob_has_matches,
    owner_of,
    rule_of,
    rule_paths,
)
from rulemap.profiles.rule_files import FILES_NAMED, files_named

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

_RULE_FINDINGS: Final = KeyFamily[list[Finding]]("cursor-rule-findings")  # file, linted


def not_followed(ws: Workspace, profile: Profile, key: str) -> list[Finding]:
    """`@imports` in an AGENTS.md Cursor reads, when of the selected agents reading it none
    follows imports and Cursor is the first of them (the first such agent says it, once)."""
    doc = ws.document(key)
    if doc.unreadable or not doc.imports:
        return []
    readers = [p for p in selected(ws) if p.reads(ws, key)]
    if not readers or any(p.follows_imports for p in readers) or readers[0].name != profile.name:
        return []
    others = [p.title for p in readers[1:]]
    nor = f" (nor do {', '.join(others)}, the other agents reading it)" if others else ""
    out: list[Finding] = []
    for ref, resolved in ws.imports(key):
        if resolved.status is not ImportStatus.OK:
            continue  # a missing target is the shared broken-import
        out.append(Finding(
            key, ref.span, "information", "import-not-followed",
            f"Cursor does not follow `@` imports in AGENTS.md: `@{ref.raw}` reaches it as "
            f"plain text and `{resolved.target}` is never loaded{nor}. Inline what the agent "
            f"must know, or name the file in prose so it can open it"))
    return out


def misplaced(ws: Workspace) -> list[Finding]:
    """`.mdc` files in a `.cursor/` directory but outside its `rules/` (`.cursor/x.mdc`,
    `.cursor/rule/x.mdc`, `docs/.cursor/rules.mdc`): Cursor reads project rules from
    `.cursor/rules` (the root's, or a folder's own, scoped to it); and a `.cursorrules` below
    the root: the legacy file is read at the project root only. An `.mdc` file outside any
    `.cursor/` (a shared `.agents/rules/`) may be another tool's, and one that is a rule's
    own file under another name (a symlinked rules directory) is read: neither is said."""
    rules = {ws.identity(p) for p in rule_paths(ws)}
    mdc = [p for p in files_named(
        ws, FILES_NAMED.key("cursor", "misplaced-mdc"), ws.files.with_suffix(".mdc"),
        lambda p: p.endswith(".mdc") and owner_of(p) is None and "/.cursor/" in f"/{p}")
        if ws.identity(p) not in rules]
    out: list[Finding] = []
    for key in mdc:
        directory, _, name = key.rpartition("/")
        # a rule inside a `.cursor/` tree belongs to that folder's rules; any other file to
        # the root's (or, scoped, to the folder whose files it is about)
        index = f"/{directory}/".rfind("/.cursor/")
        owner = directory[: max(index - 1, 0)] if index >= 0 else ""
        there = f"{owner}/{RULES}{name}" if owner else f"{RULES}{name}"
        out.append(Finding(
            key, Span.at(0, 0), "warning", "misplaced-file",
            f"Cursor reads `.mdc` rules from a `{RULES.rstrip('/')}` directory (the root's, or "
            f"a folder's own for the files below it), so it never reads `{key}`; move it to "
            f"`{there}`"))
    # a name that is all suffix is in no suffix table: one pass, cached with the file list
    legacy = files_named(ws, FILES_NAMED.key("cursor", "nested-legacy"), ws.files,
                         lambda p: p.endswith("/" + LEGACY))
    for key in legacy:
        directory = key.rpartition("/")[0]
        out.append(Finding(
            key, Span.at(0, 0), "warning", "misplaced-file",
            f"Cursor reads the legacy `{LEGACY}` at the project root only, so it never reads "
            f"`{key}`; to apply it to `{directory}/`, make it a rule in "
            f"`{directory}/{RULES}` (for example `{directory}/{RULES}{LEGACY[1:]}.mdc` with "
            f"`alwaysApply: true`)"))
    return out


def broken_links(ws: Workspace, key: str) -> list[Finding]:
    """`mdc:` links of a rule to files that do not exist (the rule still loads)."""
    out: list[Finding] = []
    for link in mdc_links(ws, key):
        places = link.candidates()
        if link.target is None or any(ws.reader.exists(ws.abs(p)) for p in places):
            continue
        out.append(Finding(
            key, link.span, "error", "broken-import",
            f"`mdc:{link.written}` links a file that does not exist (neither from the "
            f"workspace root nor from the rule's folder), so Cursor attaches nothing for it; "
            f"fix the path or remove the link"))
    return out


def plain_findings(ws: Workspace, key: str, lint: frozenset[str], who: str) -> list[Finding]:
    return unusable_file(ws, key, lint, who, "file")


def rule_findings(ws: Workspace, key: str, linted: bool) -> list[Finding]:
    cache_key = _RULE_FINDINGS.key(key, linted)
    cached = ws.derived.get(cache_key)
    if cached is None:
        cached = _rule_findings_of(ws, key, linted)
        ws.derived.put(cache_key, cached, reads=(key,))
    return cached


def _rule_findings_of(ws: Workspace, key: str, linted: bool) -> list[Finding]:
    doc = ws.document(key)
    if doc.unreadable:
        return [] if linted else plain_findings(ws, key, frozenset(), "Cursor")
    rule = rule_of(ws, key)
    first = Span.at(0, 0, len(doc.lines[0]))
    if rule.kind == "invalid":
        return [Finding(key, rule.problem_span or Span.at(0, 0, 3), "error",
                        "invalid-frontmatter",
                        f"{rule.problem}. Cursor cannot read this rule's header, so it never "
                        f"attaches it")]
    out = [Finding(key, span, "warning", "invalid-frontmatter", message)
           for span, message in rule.warnings]
    if not rule.header.body.strip() and not linted:
        out.append(empty_file(key, doc.lines[0], "rule has no content after its header"))
    if rule.kind == "manual":
        out.append(Finding(
            key, first, "warning", "unreachable-rule",
            "never attached: this rule has no `alwaysApply`, `globs` or `description`, so "
            "Cursor uses it only when you @-mention it; add `alwaysApply: true`, `globs`, or a "
            "`description`"))
    globs = rule.globs or []
    for glob in globs:
        if glob.error:
            out.append(invalid_glob(key, glob))
    live = [g for g in globs if not g.error and not g.pattern.startswith("!")]
    dead = [g for g in live if not glob_has_matches(ws, rule.owner, g)]
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
