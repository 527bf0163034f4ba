"""Rule frontmatter and globs: YAML errors, `paths` types, foreign keys, bad or unmatched globs,
and rules the loader never reads from where they are."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from rulemap.globs import literal_prefix
from rulemap.model import Finding, Fix, Span
from rulemap.profiles.base import directory_chain

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

FOREIGN_KEYS = {"globs": "Cursor", "applyTo": "GitHub Copilot", "trigger": "Windsurf"}


def check(ws: Workspace) -> list[Finding]:
    out: list[Finding] = []
    chain = set(directory_chain(ws.config.cwd))
    for rule in ws.rules:
        doc = ws.document(rule.path)
        if doc.unreadable:
            continue
        fm = doc.frontmatter
        path = rule.path
        if fm.error:
            out.append(Finding(path, fm.error_span or Span.at(0, 0, 3), "error", "invalid-frontmatter",
                               f"{fm.error}. The loader skips this rule."))
            continue
        data = fm.data or {}
        key_span = fm.key_spans.get("paths", Span.at(0, 0, 3))
        if doc.rule_skip:
            out.append(Finding(path, key_span, "error", "invalid-frontmatter",
                               f"{doc.rule_skip}, not {type(data.get('paths')).__name__}. The loader skips this rule."))
            continue
        if "paths" in data and doc.globs is None:
            out.append(Finding(path, key_span, "warning", "invalid-frontmatter",
                               "`paths` is empty, so this rule loads for every file; "
                               "list globs or remove the key"))
        if "paths" not in data:
            for key, tool in FOREIGN_KEYS.items():
                if key in data and key != "trigger":
                    out.append(Finding(
                        path, fm.key_spans.get(key, Span.at(0, 0, 3)), "warning", "invalid-frontmatter",
                        f"`{key}` is {tool}'s key; this loader reads only `paths`, so the rule loads "
                        f"for every file. Add `paths:` with the same globs to scope it."))
        if rule.owner not in chain:
            where = f"{rule.owner}/.claude/rules" if rule.owner else ".claude/rules"
            cwd = ws.config.cwd
            out.append(Finding(
                path, Span.at(0, 0, len(doc.lines[0])), "warning", "unreachable-rule",
                f"rules are read from the `.claude/rules` of the directories from the root down to "
                f"the cwd (`{cwd}`); `{where}` is below it, so this rule never loads. Move it to the "
                f"root's `.claude/rules` (prefixing its globs with `{rule.owner}/`), or set `cwd`."))
        for glob in doc.globs or []:
            if glob.error:
                out.append(Finding(path, glob.span, "error", "invalid-glob", f"`{glob.pattern}`: {glob.error}"))
                continue
            if glob.pattern.startswith("!"):
                continue
            if not ws.glob_matches(path, glob.pattern, limit=1):
                fix = _near_match(ws, path, glob.pattern)
                hint = f"; did you mean `{fix}`?" if fix else ""
                base = f"`{rule.owner}/`" if rule.owner else "the root"
                finding = Finding(
                    path, glob.span, "warning", "unmatched-glob",
                    f"`{glob.pattern}` matches no file in the workspace (globs are relative to "
                    f"{base}){hint}")
                if fix:
                    finding.fixes.append(Fix(f"Change the glob to `{fix}`", "replace", path, glob.span,
                                             _requote(doc.lines[glob.span.start.line], glob.span, fix)))
                out.append(finding)
    return out


def _requote(line: str, span: Span, new: str) -> str:
    written = line[span.start.col : span.end.col] if span.start.line == span.end.line else ""
    if written[:1] in ("'", '"') and written[-1:] == written[:1]:
        return written[0] + new + written[0]
    return new


def _near_match(ws: Workspace, rule: str, pattern: str) -> str | None:
    """A close glob that does match: anywhere-depth, or the nearest existing directory prefix."""
    if not pattern.startswith("**/") and "/" in pattern.strip("/"):
        widened = "**/" + pattern.lstrip("/")
        if ws.glob_matches(rule, widened, limit=1):
            return widened
    prefix = literal_prefix(pattern)
    if prefix:
        owner = ws.rule_owner(rule) or ""
        base = f"{owner}/" if owner else ""
        directories = sorted({
            f[len(base):].rsplit("/", 1)[0] + "/"
            for f in ws.files.under(base) if "/" in f[len(base):]
        })
        for candidate in difflib.get_close_matches(prefix, directories, n=3, cutoff=0.6):
            fixed = candidate + pattern.lstrip("/")[len(prefix):]
            if ws.glob_matches(rule, fixed, limit=1):
                return fixed
    return None
