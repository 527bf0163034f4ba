"""File-level checks: unreadable files and files with nothing to bring."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulemap.model import Finding, Span

if TYPE_CHECKING:
    from rulemap.workspace import Workspace


def check(ws: Workspace) -> list[Finding]:
    out: list[Finding] = []
    for path in ws.lint_documents():
        doc = ws.document(path)
        if doc.unreadable:
            out.append(
                Finding(
                    path,
                    Span.at(0, 0),
                    "error",
                    "unreadable-file",
                    f"`{path}` cannot be used: {doc.unreadable}. The loader skips it.",
                )
            )
            continue
        if not doc.brought.strip() and doc.rule_skip is None:
            what = "rule" if doc.is_rule else "instruction file"
            detail = " (only frontmatter or comments)" if doc.text.strip() else ""
            out.append(
                Finding(
                    path,
                    Span.at(0, 0, len(doc.lines[0])),
                    "warning",
                    "empty-instructions",
                    f"this {what} brings no instructions{detail}; add content or delete it",
                )
            )
    out.extend(_dangling(ws))
    return out


def _dangling(ws: Workspace) -> list[Finding]:
    """Broken symlinks where the loader looks: an instruction file, `.claude/rules` or a rule."""
    out: list[Finding] = []
    for path, target in ws.reader.dangling_links():
        name = path.rsplit("/", 1)[-1]
        rules_dir = path == ".claude/rules" or path.endswith("/.claude/rules")
        in_rules = ".claude/rules/" in f"/{path}" and name.endswith(".md")
        if not (rules_dir or in_rules or ws.instruction_dir(path) is not None):
            continue
        what = "no rule in it loads" if rules_dir else "the loader skips it"
        out.append(Finding(
            path, Span.at(0, 0), "warning", "unreadable-file",
            f"`{path}` is a symlink to `{target}`, which does not exist: {what}. Fix or remove "
            f"the link"))
    return out
