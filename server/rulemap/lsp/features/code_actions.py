"""Quick fixes from the findings' fixes, plus an inline suppression for every finding.
A did-you-mean (a close glob for one that matches nothing) is worked out when its quick fix
is asked for: the published diagnostics leave it out, as a check leaves it pending.

Diagnostics are matched back to findings by code and range (then code and start line, for a
client that sends slightly stale ranges). The findings are the published ones (the server
passes what the client was shown): a code action never runs a check. The edits come from the
host (`rulemap.host.fixes`) as plain data; here they become a WorkspaceEdit the user applies
(a missing file is created with `CreateFile`).
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from rulemap.host import Snapshot
from rulemap.host.fixes import FixAction, fix_actions, suppress_action
from rulemap.host.text import Encoding
from rulemap.lsp.convert import to_range
from rulemap.lsp.features._util import never_raise, overlaps, readable_doc
from rulemap.model import Finding


@never_raise(list)
def code_actions(
    snap: Snapshot,
    key: str,
    range_: types.Range,
    diagnostics: list[types.Diagnostic] | None,
    encoding: Encoding,
    published: Sequence[Finding],
) -> list[types.CodeAction]:
    """Quick fixes for the diagnostics in the request's context (or, when the client sends
    none, for every finding overlapping `range_`). `published`: the findings the client was
    given for `key`."""
    doc = readable_doc(snap, key)
    if doc is None:
        return []
    findings = [f for f in published if f.path == key]
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
        suppression = suppress_action(snap, doc, finding)
        finding = snap.with_suggestion(finding)  # a did-you-mean is looked for only here
        for fix in [*fix_actions(snap, finding), *([suppression] if suppression else [])]:
            if fix.title not in seen:
                seen.add(fix.title)
                actions.append(_action(fix, attached, encoding))
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


def _action(
    fix: FixAction, diagnostics: list[types.Diagnostic] | None, encoding: Encoding
) -> types.CodeAction:
    if fix.create is not None:
        edit = types.WorkspaceEdit(
            document_changes=[
                types.CreateFile(
                    uri=fix.create,
                    options=types.CreateFileOptions(overwrite=False, ignore_if_exists=True),
                )
            ]
        )
        return types.CodeAction(
            title=fix.title, kind=types.CodeActionKind.QuickFix, diagnostics=diagnostics, edit=edit
        )
    assert fix.change is not None
    change = fix.change
    text_edit = types.TextEdit(
        range=to_range(change.lines, change.span, encoding), new_text=change.new_text
    )
    return types.CodeAction(
        title=fix.title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=diagnostics,
        edit=types.WorkspaceEdit(changes={change.uri: [text_edit]}),
        is_preferred=True if fix.preferred else None,
    )
