"""Shared helpers of the feature tests (a distinct module name: tests/core has a conftest)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lsprotocol import types

from rulemap.analysis import new_workspace
from rulemap.readers import MemoryReader
from rulemap.text.positions import col_from_encoding, split_lines
from rulemap.workspace import Workspace


def ws_of(files: Mapping[str, str | bytes], symlinks: Mapping[str, str] | None = None,
          **config: Any) -> Workspace:
    from rulemap.config import parse_config

    reader = MemoryReader("/w", files, symlinks)
    return new_workspace(reader, parse_config(config, "test") if config else None, home="/home/u")


def P(line: int, character: int) -> types.Position:
    return types.Position(line=line, character=character)


def R(sl: int, sc: int, el: int, ec: int) -> types.Range:
    return types.Range(start=P(sl, sc), end=P(el, ec))


def rng(r: types.Range) -> tuple[int, int, int, int]:
    return (r.start.line, r.start.character, r.end.line, r.end.character)


def apply_edits(text: str, edits: list[types.TextEdit], encoding: str = "utf-16") -> str:
    """Apply LSP text edits (positions in `encoding`) to `text` with `\\n` line ends."""
    lines = split_lines(text)
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def offset(pos: types.Position) -> int:
        if pos.line >= len(lines):
            return len(text)
        return starts[pos.line] + col_from_encoding(lines[pos.line], pos.character, encoding)  # type: ignore[arg-type]

    def start(edit: types.TextEdit) -> tuple[int, int]:
        return (edit.range.start.line, edit.range.start.character)

    for edit in sorted(edits, key=start, reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


def hover_text(hover: types.Hover | None) -> str:
    assert hover is not None
    contents = hover.contents
    assert isinstance(contents, types.MarkupContent)
    assert contents.kind == types.MarkupKind.Markdown
    return contents.value
