"""Quick fixes from the findings' fixes, plus an inline suppression for every finding.

Diagnostics are matched back to findings by code and range (then code and start line, for a
client that sends slightly stale ranges). Nothing is written here: every action is a
WorkspaceEdit the user applies (a missing file is created with `CreateFile`).
"""

from __future__ import annotations

import re

from lsprotocol import types

from rulemap import analysis
from rulemap.lsp.convert import to_range
from rulemap.lsp.features._util import (
    editable_key,
    never_raise,
    overlaps,
    readable_doc,
    uri_of,
)
from rulemap.model import Document, Finding, Fix, Pos, Span
from rulemap.text.positions import Encoding
from rulemap.workspace import Workspace

_NEXT_LINE = re.compile(r"^(\s*<!--\s*rulemap-disable-next-line\b)(.*?)(\s*-->\s*)$", re.IGNORECASE)


@never_raise(list)
def code_actions(
    ws: Workspace,
    key: str,
    range_: types.Range,
    diagnostics: list[types.Diagnostic] | None = None,
    encoding: Encoding = "utf-16",
    published: list[Finding] | None = None,
) -> list[types.CodeAction]:
    """Quick fixes for the diagnostics in the request's context (or, when the client sends
    none, for every finding overlapping `range_`). `published`: the findings the client was
    given for `key` (the language server passes them: a request never runs a check on its
    event loop); without them, the workspace's check answers."""
    doc = readable_doc(ws, key)
    if doc is None:
        return []
    found = published if published is not None else analysis.check(ws)
    findings = [f for f in found if f.path == key]
    pairs: list[tuple[Finding, types.Diagnostic | None]] = []
    if diagnostics:
        for sent in diagnostics:
            finding = _match(findings, sent, doc.lines, encoding)
            if finding is not None:
                pairs.append((finding, sent))
    else:
        pairs = [(f, None) for f in findings if overlaps(f.span, range_, doc.lines, encoding)]
    actions: list[types.CodeAction] = []
    seen: set[str] = set()
    for finding, diagnostic in pairs:
        attached = [diagnostic] if diagnostic is not None else None
        for index, fix in enumerate(finding.fixes):
            action = _fix_action(ws, fix, finding, attached, encoding, preferred=index == 0)
            if action is not None and action.title not in seen:
                seen.add(action.title)
                actions.append(action)
        suppression = _suppress_action(ws, doc, finding, attached, encoding)
        if suppression is not None and suppression.title not in seen:
            seen.add(suppression.title)
            actions.append(suppression)
    return actions


def _code_of(diagnostic: types.Diagnostic) -> str | None:
    return None if diagnostic.code is None else str(diagnostic.code)


def _match(
    findings: list[Finding], diagnostic: types.Diagnostic, lines: list[str], encoding: Encoding
) -> Finding | None:
    code = _code_of(diagnostic)
    same_code = [f for f in findings if f.code == code]
    exact = [f for f in same_code if to_range(lines, f.span, encoding) == diagnostic.range]
    if not exact:
        exact = [f for f in same_code if f.span.start.line == diagnostic.range.start.line]
    if not exact:
        return None
    for finding in exact:
        if finding.message == diagnostic.message:
            return finding
    return exact[0]


def _fix_action(
    ws: Workspace,
    fix: Fix,
    finding: Finding,
    diagnostics: list[types.Diagnostic] | None,
    encoding: Encoding,
    preferred: bool,
) -> types.CodeAction | None:
    # no edit may land outside the workspace, through a symlink that leads out included
    # (docs/security.md); one inside keeps the name the user sees (their buffer is that one)
    if editable_key(ws, fix.path) is None:
        return None
    if fix.kind == "create":
        if ws.reader.exists(ws.abs(fix.path)):
            return None
        edit = types.WorkspaceEdit(
            document_changes=[
                types.CreateFile(
                    uri=uri_of(ws, fix.path),
                    options=types.CreateFileOptions(overwrite=False, ignore_if_exists=True),
                )
            ]
        )
        return types.CodeAction(
            title=fix.title, kind=types.CodeActionKind.QuickFix, diagnostics=diagnostics, edit=edit
        )
    target = readable_doc(ws, fix.path)
    if target is None:
        return None
    edit = types.WorkspaceEdit(
        changes={
            uri_of(ws, fix.path): [
                types.TextEdit(
                    range=to_range(target.lines, fix.span, encoding), new_text=fix.new_text
                )
            ]
        }
    )
    return types.CodeAction(
        title=fix.title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=diagnostics,
        edit=edit,
        is_preferred=True if preferred and finding.severity in ("error", "warning") else None,
    )


def _suppress_action(
    ws: Workspace,
    doc: Document,
    finding: Finding,
    diagnostics: list[types.Diagnostic] | None,
    encoding: Encoding,
) -> types.CodeAction | None:
    if editable_key(ws, doc.path) is None:
        return None
    code = finding.code
    line = finding.span.start.line
    fm = doc.frontmatter
    in_frontmatter = (
        fm.span is not None and line <= fm.span.end.line and (doc.is_rule or not fm.error)
    )
    if in_frontmatter:
        assert fm.span is not None
        title = f"Suppress `{code}` in this file"
        end = fm.span.end.line
        comment = f"<!-- rulemap-disable {code} -->"
        if end + 1 < len(doc.lines):
            edit = _insert(doc, Pos(end + 1, 0), comment + "\n", encoding)
        else:
            edit = _insert(doc, Pos(end, len(doc.lines[end])), "\n" + comment, encoding)
    else:
        title = f"Suppress `{code}` on this line"
        line = min(line, len(doc.lines) - 1)
        previous = line - 1
        while previous >= 0 and not doc.lines[previous].strip():
            previous -= 1
        match = _NEXT_LINE.match(doc.lines[previous]) if previous >= 0 else None
        if match is not None:
            codes = [c for c in re.split(r"[\s,]+", match.group(2)) if c]
            codes.append(code)
            new_line = f"{match.group(1)} {', '.join(codes)}{match.group(3).rstrip()}"
            span = Span(Pos(previous, 0), Pos(previous, len(doc.lines[previous])))
            edit = _replace(doc, span, new_line, encoding)
        else:
            text = doc.lines[line]
            indent = text[: len(text) - len(text.lstrip(" "))][:3]
            comment = f"{indent}<!-- rulemap-disable-next-line {code} -->\n"
            edit = _insert(doc, Pos(line, 0), comment, encoding)
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=diagnostics,
        edit=types.WorkspaceEdit(changes={uri_of(ws, doc.path): [edit]}),
    )


def _insert(doc: Document, at: Pos, text: str, encoding: Encoding) -> types.TextEdit:
    return _replace(doc, Span(at, at), text, encoding)


def _replace(doc: Document, span: Span, text: str, encoding: Encoding) -> types.TextEdit:
    return types.TextEdit(range=to_range(doc.lines, span, encoding), new_text=text)
