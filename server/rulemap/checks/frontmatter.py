"""Rule frontmatter and globs: YAML errors, `paths` types, foreign keys, bad or unmatched globs,
and rules the loader never reads from where they are."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from rulemap.globs import literal_prefix
from rulemap.model import Finding, Fix, Span
from rulemap.profiles.base import directory_chain
from rulemap.suggest import DirectoryIndex

if TYPE_CHECKING:
    from rulemap.workspace import RuleInfo, Workspace

FOREIGN_KEYS = {"globs": "Cursor", "applyTo": "GitHub Copilot", "trigger": "Windsurf"}


def check(ws: Workspace) -> list[Finding]:
    chain = frozenset(directory_chain(ws.config.cwd))
    out: list[Finding] = []
    for rule in ws.rules:
        # a rule's findings read only the rule and the file list (a create or delete drops
        # every derived value): an edit elsewhere re-checks none of the 200 rules
        key = ("frontmatter-findings", rule.path)
        found: list[Finding] | None = ws.derived.get(key)
        if found is None:
            found = ws.derived.put(key, _rule_findings(ws, rule, chain), reads=(rule.path,))
        out.extend(found)
    return out


def _rule_findings(ws: Workspace, rule: RuleInfo, chain: frozenset[str]) -> list[Finding]:
    out: list[Finding] = []
    for _ in (rule,):  # one pass; `continue` ends it, as in a loop over rules
        doc = ws.document(rule.path)
        if doc.unreadable:
            continue
        fm = doc.frontmatter
        path = rule.path
        if fm.error:
            out.append(Finding(path, fm.error_span or Span.at(0, 0, 3), "error",
                               "invalid-frontmatter", f"{fm.error}. The loader skips this rule."))
            continue
        data = fm.data or {}
        key_span = fm.key_spans.get("paths", Span.at(0, 0, 3))
        if doc.rule_skip:
            kind = type(data.get("paths")).__name__
            out.append(Finding(path, key_span, "error", "invalid-frontmatter",
                               f"{doc.rule_skip}, not {kind}. The loader skips this rule."))
            continue
        if "paths" in data and doc.globs is None:
            out.append(Finding(path, key_span, "warning", "invalid-frontmatter",
                               "`paths` is empty, so this rule loads for every file; "
                               "list globs or remove the key"))
        if "paths" not in data and not _always_applies(data):
            for key, tool in FOREIGN_KEYS.items():
                if key in data and key != "trigger" and not _matches_everything(data[key]):
                    out.append(Finding(
                        path, fm.key_spans.get(key, Span.at(0, 0, 3)), "warning",
                        "invalid-frontmatter",
                        f"`{key}` is {tool}'s key; this loader reads only `paths`, so the rule "
                        f"loads for every file. Add `paths:` with the same globs to scope it."))
        if rule.owner not in chain:
            where = f"{rule.owner}/.claude/rules" if rule.owner else ".claude/rules"
            cwd = ws.config.cwd
            out.append(Finding(
                path, Span.at(0, 0, len(doc.lines[0])), "warning", "unreachable-rule",
                f"rules are read from the `.claude/rules` of the directories from the root down "
                f"to the cwd (`{cwd}`); `{where}` is below it, so this rule never loads. Move it "
                f"to the root's `.claude/rules` (prefixing its globs with `{rule.owner}/`), or "
                f"set `cwd`."))
        live = [g for g in doc.globs or [] if not g.error and not g.pattern.startswith("!")]
        dead = {id(g) for g in live if not ws.glob_has_matches(path, g.pattern)}
        for glob in doc.globs or []:
            if glob.error:
                out.append(Finding(path, glob.span, "error", "invalid-glob",
                                   f"`{glob.pattern}`: {glob.error}"))
                continue
            if glob.pattern.startswith("!"):
                continue
            if id(glob) in dead:
                fix = _near_match(ws, path, glob.pattern)
                hint = f" Did you mean `{fix}`?" if fix else ""
                base = f"`{rule.owner}/`" if rule.owner else "the root"
                # A dead glob next to live ones is harmless (often a spelled-out `{ts,tsx}`
                # or a file type the repo may gain); only a rule that can never load warns.
                alive = len(dead) < len(live)
                tail = (" The rule still loads through its other globs." if alive else
                        " No glob of this rule matches, so it never loads.")
                finding = Finding(
                    path, glob.span, "information" if alive else "warning", "unmatched-glob",
                    f"`{glob.pattern}` matches no file in the workspace (globs are relative to "
                    f"{base}).{tail}{hint}")
                if fix:
                    new = _requote(doc.lines[glob.span.start.line], glob.span, fix)
                    finding.fixes.append(
                        Fix(f"Change the glob to `{fix}`", "replace", path, glob.span, new))
                out.append(finding)
    return out


# Written forms of "every file": a foreign key with these scopes nothing, so a rule that has
# only it is meant to load everywhere (Cratis: `applyTo: "**/*"`).
EVERYTHING = {"*", "**", "**/*", "/**", "/**/*", "./**", "./**/*", "**/**", "**/*.*"}


def _globs_of(value: object) -> list[str] | None:
    """A foreign key's globs (a list, or a comma-separated string), or None if not globs."""
    if isinstance(value, str):
        return [p.strip() for p in value.split(",") if p.strip()]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [v.strip() for v in value if v.strip()]
    return None


def _matches_everything(value: object) -> bool:
    """True when the key scopes nothing: empty, null, or only every-file globs."""
    if value is None:
        return True
    globs = _globs_of(value)
    if globs is None:
        return False
    return all(g in EVERYTHING for g in globs)


def _always_applies(data: dict[str, object]) -> bool:
    """Cursor's `alwaysApply: true` or Windsurf's `trigger: always_on`: meant for every file."""
    return data.get("alwaysApply") is True or data.get("trigger") == "always_on"


def _requote(line: str, span: Span, new: str) -> str:
    written = line[span.start.col : span.end.col] if span.start.line == span.end.line else ""
    if written[:1] in ("'", '"') and written[-1:] == written[:1]:
        return written[0] + new + written[0]
    return new


def _near_match(ws: Workspace, rule: str, pattern: str) -> str | None:
    """A close glob that does match (cached until a file is created or deleted, or the rule
    changes)."""
    key = ("near-glob", rule, pattern)
    cached = ws.derived.get(key, default=key)
    if cached is not key:
        return cached  # type: ignore[no-any-return]
    return ws.derived.put(key, _find_near_match(ws, rule, pattern), reads=(rule,))  # type: ignore[no-any-return]


def _find_near_match(ws: Workspace, rule: str, pattern: str) -> str | None:
    """A close glob that does match: anywhere-depth, or a close existing directory prefix.

    Looked up in a directory index (`suggest.DirectoryIndex`), so a hundred dead globs in a
    20,000-directory workspace cost milliseconds, not a difflib pass over every directory."""
    owner = ws.rule_owner(rule) or ""
    base = f"{owner}/" if owner else ""
    index = _directory_index(ws, base)
    body = pattern.lstrip("/")
    prefix = literal_prefix(pattern)
    rest = body[len(prefix):]
    if prefix and not pattern.startswith("**/"):
        # `src/x/**` where only `packages/a/src/x/` exists: the glob wants `**/` in front
        for directory in index.ending_with(prefix, MAX_TRIED):
            if ws.glob_matches(rule, directory + rest, limit=1):
                return "**/" + body
    if prefix:
        for candidate in index.near(prefix):
            if not _same_leaf(prefix, candidate):
                continue  # `features/canvas/` is not a typo of `research/`
            fixed = candidate + rest
            if ws.glob_matches(rule, fixed, limit=1):
                return fixed
    return None


MAX_TRIED = 16  # directories tried for one suggestion


def _same_leaf(written: str, candidate: str) -> bool:
    """The last directory names look alike (a typo or a moved directory, not another one)."""
    a = written.rstrip("/").rsplit("/", 1)[-1].lower()
    b = candidate.rstrip("/").rsplit("/", 1)[-1].lower()
    return a == b or difflib.SequenceMatcher(None, a, b).ratio() >= 0.6


def _directory_index(ws: Workspace, base: str) -> DirectoryIndex:
    """The directories below `base` (relative to it), cached until a file is created or
    deleted."""
    key = ("directory-index", base)
    cached: DirectoryIndex | None = ws.derived.get(key)
    if cached is None:
        cut = len(base)
        cached = DirectoryIndex(f[cut:] for f in ws.files.under(base))
        ws.derived.put(key, cached, reads=())  # only the file list: kept until a create/delete
    return cached
