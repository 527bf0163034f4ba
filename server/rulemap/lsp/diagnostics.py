"""Findings → LSP diagnostics: code, doc link, related information, tags and fixes as `data`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from lsprotocol import types

from rulemap.host.text import Encoding, path_bytes, printable
from rulemap.lsp.convert import SEVERITY, to_range
from rulemap.model import Finding, Fix, Span

if TYPE_CHECKING:
    from rulemap.host import Snapshot

SOURCE = "rulemap"
_TAGS = {
    "unnecessary": types.DiagnosticTag.Unnecessary,
    "deprecated": types.DiagnosticTag.Deprecated,
}


def uri_for(path: str) -> str:
    """The `file:` URI of an absolute POSIX path (the same spelling the features use). Quoted
    from the path's bytes: a name that is not valid UTF-8 (lone surrogates) gets its exact
    bytes, `%FF` (quoting the str would raise, and stop the whole publish)."""
    return "file://" + quote(path_bytes(path), safe="/")


def _lines(snap: Snapshot, key: str) -> list[str]:
    try:
        return snap.document(key).lines
    except Exception:  # pragma: no cover - documents never raise, but never fail a publish
        return []


def _span_json(span: Span) -> dict[str, Any]:
    return {"start": [span.start.line, span.start.col], "end": [span.end.line, span.end.col]}


def _fix_json(snap: Snapshot, fix: Fix, encoding: Encoding) -> dict[str, Any]:
    out: dict[str, Any] = {
        "title": fix.title,
        "kind": fix.kind,
        "path": fix.path,
        "uri": uri_for(snap.abs(fix.path)),
        "newText": fix.new_text,
        "span": _span_json(fix.span),
    }
    if fix.kind != "create":
        rng = to_range(_lines(snap, fix.path), fix.span, encoding)
        out["range"] = {
            "start": {"line": rng.start.line, "character": rng.start.character},
            "end": {"line": rng.end.line, "character": rng.end.character},
        }
    return out


def to_diagnostic(
    snap: Snapshot, finding: Finding, lines: list[str], encoding: Encoding
) -> types.Diagnostic:
    related = [
        types.DiagnosticRelatedInformation(
            location=types.Location(
                uri=uri_for(snap.abs(r.path)),
                range=to_range(
                    lines if r.path == finding.path else _lines(snap, r.path), r.span, encoding
                ),
            ),
            message=printable(r.message),
        )
        for r in finding.related
    ]
    from rulemap.host.checking import doc_url  # the checks: not imported before a check ran

    data: dict[str, Any] = {"code": finding.code}
    if finding.fixes:
        data["fixes"] = [_fix_json(snap, f, encoding) for f in finding.fixes]
    return types.Diagnostic(
        range=to_range(lines, finding.span, encoding),
        # a name that is not UTF-8 as `\xNN`, as the CLI shows it: pygls would send a lone
        # surrogate as a `\udcff` escape, which strict JSON readers (serde_json) reject
        message=printable(finding.message),
        severity=SEVERITY[finding.severity],
        code=finding.code,
        code_description=types.CodeDescription(href=doc_url(finding.code)),
        source=SOURCE,
        related_information=related or None,
        tags=[_TAGS[t] for t in finding.tags if t in _TAGS] or None,
        data=data,
    )


def to_diagnostics(
    snap: Snapshot, key: str, findings: list[Finding], encoding: Encoding
) -> list[types.Diagnostic]:
    if not findings:
        return []
    lines = _lines(snap, key)
    out = []
    for finding in findings:
        if lines and finding.span.start.line >= len(lines):
            continue  # a stale graph finding past the end of an edited document
        out.append(to_diagnostic(snap, finding, lines, encoding))
    return out
