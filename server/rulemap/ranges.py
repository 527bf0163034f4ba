"""Converting core spans (code point columns) to LSP/SARIF positions in a chosen encoding."""

from __future__ import annotations

from rulemap.model import Span
from rulemap.text.positions import Encoding, col_to_encoding


def encode_span(
    lines: list[str], span: Span, encoding: Encoding
) -> tuple[tuple[int, int], tuple[int, int]]:
    def point(line: int, col: int) -> tuple[int, int]:
        if line >= len(lines):
            return (line, col)
        return (line, col_to_encoding(lines[line], col, encoding))

    return point(span.start.line, span.start.col), point(span.end.line, span.end.col)
