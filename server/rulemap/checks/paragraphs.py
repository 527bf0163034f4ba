"""Paragraphs of the text an agent receives, for `duplicate-text` and `drifted-copy`.

A paragraph is a run of lines between blank lines; a fenced code block is one paragraph with
its blank lines (a fence alone is nothing). Its normalised form (whitespace collapsed) is what
two copies are compared by. Split once per document and text, kept in the derived cache until
the document changes.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from rulemap.derived import KeyFamily
from rulemap.records import record

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_RUN = re.compile(r"(?:^[ \t]*\S[^\n]*(?:\n|\Z))+", re.MULTILINE)
# a line that says nothing alone: a heading, a list marker, a fence, a rule, a table ruler
_BARE = re.compile(r"^\s*(#{1,6}\s.*|#{1,6}|[-*+]|\d{1,9}[.)]|`{3,}\w*|~{3,}\w*|[-*_=|:\s]+)\s*$")
# Paragraphs shorter than this (normalised) are not compared at all: headings, "See below.",
# a list marker — `duplicate-text` asks for more still (its MIN_CHARS).
MIN_COMPARED: Final = 20


@record(slots=True)  # not frozen: cheaper to make (commands.Command says why)
class Paragraph:
    norm: str  # whitespace collapsed
    first: int  # 0-based line of the file (`split` alone: of the text it was split from)
    last: int  # 0-based, inclusive
    raw: str  # as written, lines joined with "\n"


_PARAGRAPHS: Final = KeyFamily[tuple[Paragraph, ...]]("paragraphs")


def paragraphs_of(ws: Workspace, path: str, text: str) -> tuple[Paragraph, ...]:
    """The paragraphs of `text` (what an agent receives of `path`), at their lines in `path`,
    cached until `path` changes."""
    key = _PARAGRAPHS.key(path, text)
    found = ws.derived.get(key)
    if found is None:
        found = ws.derived.put(key, _placed(ws.document(path).lines, split(text)),
                               reads=[path])
    return found


def _placed(lines: list[str], found: tuple[Paragraph, ...]) -> tuple[Paragraph, ...]:
    """`found` (lines of the text an agent receives) with the lines of the original file:
    each paragraph's first and last lines looked up in order (the agent's text is the file's
    lines less frontmatter, comments or a cut tail, in the same order)."""
    out: list[Paragraph] = []
    cursor = 0
    for paragraph in found:
        body = paragraph.raw.split("\n")
        top = _find(lines, body[0], cursor)
        if top is None:
            out.append(paragraph)  # not found as written (a transformed line): as it is
            continue
        bottom = _find(lines, body[-1], top + len(body) - 1) if len(body) > 1 else top
        bottom = top + len(body) - 1 if bottom is None else bottom
        cursor = bottom + 1
        out.append(Paragraph(paragraph.norm, top, bottom, paragraph.raw))
    return tuple(out)


def _find(lines: list[str], line: str, start: int) -> int | None:
    try:
        return lines.index(line, start)
    except ValueError:
        return None


def split(text: str) -> tuple[Paragraph, ...]:
    """The paragraphs of `text`, at its lines as a document numbers them (\n, \r\n and \r
    each end one: a `\r` left on a line kept `_placed` from finding it in the file, and the
    paragraphs of a CRLF file below a stripped comment were reported too high)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    out: list[Paragraph] = []
    lines = text.split("\n")
    if "```" not in text and "~~~" not in text:
        # no fence: runs of non-blank lines, found by one regular expression
        top = position = 0
        for run in _RUN.finditer(text):
            top += text.count("\n", position, run.start())
            block = run.group()
            _add(out, lines, top, top + block.count("\n", 0, len(block.rstrip("\n"))))
            position = run.start()
        return tuple(out)
    start: int | None = None
    fence: str | None = None
    for number, line in enumerate(lines):
        # (substring tests and `isspace` allocate nothing: this loop is most of the cost)
        opened = _FENCE.match(line) if "```" in line or "~~~" in line else None
        if fence is not None:
            if opened is not None and opened.group(1)[0] == fence[0] \
                    and len(opened.group(1)) >= len(fence) and not line.strip(" `~"):
                fence = None
            continue
        if opened is not None:
            fence = opened.group(1)
            if start is None:
                start = number
            continue
        if not line or line.isspace():
            if start is not None:
                _add(out, lines, start, number - 1)
                start = None
        elif start is None:
            start = number
    if start is not None:
        _add(out, lines, start, len(lines) - 1)
    return tuple(out)


def _add(out: list[Paragraph], lines: list[str], first: int, last: int) -> None:
    while last > first and not lines[last].strip():
        last -= 1
    body = lines[first:last + 1]
    raw = "\n".join(body)
    if len(raw) < MIN_COMPARED:  # (collapsing whitespace only shortens it)
        return
    norm = " ".join(raw.split())
    if len(norm) < MIN_COMPARED:
        return
    if (_BARE.match(body[0]) and not _FENCE.match(body[0])
            and all(_BARE.match(line) for line in body)):
        return  # (a fenced block's `# comment` is code, not a heading)
    out.append(Paragraph(norm, first, last, raw))

