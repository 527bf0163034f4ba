"""LSP ↔ core conversions: URIs, positions in the negotiated encoding, ranges, severities."""

from __future__ import annotations

from lsprotocol import types

from rulemap.host.text import Encoding, col_from_encoding, encode_span
from rulemap.model import Pos, Severity, Span

SEVERITY: dict[Severity, types.DiagnosticSeverity] = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}


def encoding_of(kind: types.PositionEncodingKind | str | None) -> Encoding:
    value = getattr(kind, "value", kind)
    if value == "utf-8":
        return "utf-8"
    if value == "utf-32":
        return "utf-32"
    return "utf-16"


def to_range(lines: list[str], span: Span, encoding: Encoding) -> types.Range:
    (sl, sc), (el, ec) = encode_span(lines, span, encoding)
    return types.Range(
        start=types.Position(line=sl, character=sc), end=types.Position(line=el, character=ec)
    )


def to_pos(lines: list[str], position: types.Position, encoding: Encoding) -> Pos:
    """A client position → core (line, code point column), clamped to the text."""
    line = max(0, position.line)
    if line >= len(lines):
        return Pos(len(lines) - 1 if lines else 0, len(lines[-1]) if lines else 0)
    return Pos(line, col_from_encoding(lines[line], position.character, encoding))


def span_contains(span: Span, pos: Pos) -> bool:
    return span.start <= pos <= span.end
