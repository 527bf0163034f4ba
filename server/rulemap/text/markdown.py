"""Scans Markdown for what the loader cares about: imports, code, comments, suppressions.

One pass over the lines classifies each as fenced code, block-level HTML comment, or prose.
Prose lines are grouped into blocks (paragraphs, separated by blank lines) in which code spans
and inline comments are found; imports are the tokens of prose outside those zones that the
caller's `ImportSyntax` matches — an agent's fact, so its profile gives it (the default model's
`@path`: `profiles/cogitator/settings.py`).
We write this ourselves because the Markdown libraries (markdown-it, mistune) either drop
source positions of inline tokens or parse far more than we need on every keystroke.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import field

from rulemap.model import ImportRef, Pos, Span, Suppressions
from rulemap.records import record
from rulemap.text.lazy_pattern import lazy_pattern
from rulemap.text.positions import line_of, line_starts, split_lines

_FENCE_OPEN = lazy_pattern(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_COMMENT_OPEN = lazy_pattern(r"^ {0,3}<!--")
_PROSE_SPECIAL = lazy_pattern(r"[\\`<]")
# indented_code only: a list item marker (so indented lines below it are list content) and an
# ATX heading (which ends its block at once)
_LIST_ITEM = lazy_pattern(r"^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
_ATX_HEADING = lazy_pattern(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_DIRECTIVE = lazy_pattern(r"rulemap-disable(-next-line)?\b((?:[\s,]+[A-Za-z][\w-]*)*)",
                          re.IGNORECASE)


@record(frozen=True)
class ImportSyntax:
    """How an agent writes an import in prose, as its profile says. `token` matches one where
    a word starts, outside code and comments (group 1: the path as written, in which
    `escaped_space` stands for a space); a paragraph without `sigil` holds none. A token in a
    link's text ends with that text, at `](`."""

    sigil: str
    token: re.Pattern[str]
    escaped_space: str


@record
class Scan:
    lines: list[str]
    starts: list[int]
    code_lines: set[int] = field(default_factory=set)  # fenced code (fences included)
    comment_lines: set[int] = field(default_factory=set)  # block-level HTML comments
    imports: list[ImportRef] = field(default_factory=list)
    suppressions: Suppressions = field(default_factory=Suppressions)
    # (start, end) code point offsets of code spans and inline comments in prose
    inline_code: list[tuple[int, int]] = field(default_factory=list)


def scan(
    text: str,
    first_line: int = 0,
    lines: list[str] | None = None,
    starts: list[int] | None = None,
    *,
    indented_code: bool = False,
    imports: ImportSyntax | None = None,
) -> Scan:
    """Scan `text`; lines before `first_line` (frontmatter) are skipped. `lines` and `starts`
    may be passed when the caller has them already.

    `imports`: the agent's import syntax; None finds no import (and then looks for code
    spans in every paragraph, not only in those that could hold an import).

    `indented_code`: also treat CommonMark indented code blocks (4 spaces or a tab, not
    interrupting a paragraph, outside lists) as code, so no import is found there — Claude
    Code's dialect (its Markdown lexer drops them). Off by default: the cogitator dialect
    names only spans and fences (docs/semantics.md)."""
    if lines is None:
        lines = split_lines(text)
    result = Scan(lines=lines, starts=starts if starts is not None else line_starts(text))
    fence: tuple[str, int] | None = None
    in_comment = False
    comment_text: list[tuple[int, str]] = []
    block: list[int] = []
    in_indented = False  # inside an indented code block (indented_code only)
    in_list = False  # a list item opened and no unindented line after a blank closed it
    after_heading = False  # an ATX heading ends its block: an indented line may open code

    def flush_block() -> None:
        if block:
            _scan_prose(text, result, block, comment_text, imports)
            block.clear()

    for number in range(first_line, len(lines)):
        line = lines[number]
        if fence is not None:
            result.code_lines.add(number)
            closing = _FENCE_OPEN.match(line)
            if (
                closing
                and closing.group(1)[0] == fence[0]
                and len(closing.group(1)) >= fence[1]
                and not closing.group(2).strip()
            ):
                fence = None
            continue
        if in_comment:
            result.comment_lines.add(number)
            comment_text.append((number, line))
            if "-->" in line:
                in_comment = False
            continue
        if indented_code:
            if in_indented:
                if not line.strip() or _indent(line) >= 4:
                    result.code_lines.add(number)
                    continue
                in_indented = False
            if line.strip():
                if (not block or after_heading) and not in_list and _indent(line) >= 4:
                    flush_block()
                    in_indented = True
                    after_heading = False
                    result.code_lines.add(number)
                    continue
                if _LIST_ITEM.match(line):
                    in_list = True
                elif in_list and not block and _indent(line) < 2:
                    in_list = False  # an unindented paragraph after a blank line ends it
                if after_heading:
                    flush_block()
                after_heading = _ATX_HEADING.match(line) is not None
        opening = _FENCE_OPEN.match(line)
        if opening and not (opening.group(1)[0] == "`" and "`" in opening.group(2)):
            flush_block()
            fence = (opening.group(1)[0], len(opening.group(1)))
            result.code_lines.add(number)
            continue
        if _COMMENT_OPEN.match(line):
            flush_block()
            result.comment_lines.add(number)
            comment_text.append((number, line))
            rest = line[line.index("<!--") + 4 :]
            in_comment = "-->" not in rest
            continue
        if not line.strip():
            flush_block()
            continue
        block.append(number)
    flush_block()
    _collect_suppressions(result, comment_text)
    return result


def _scan_prose(
    text: str,
    result: Scan,
    block: list[int],
    comments: list[tuple[int, str]],
    imports: ImportSyntax | None,
) -> None:
    """Find code spans, inline comments and imports in one paragraph."""
    first, last = block[0], block[-1]
    start = result.starts[first]
    end = result.starts[last] + len(result.lines[last])
    chunk = text[start:end]
    if imports is not None and imports.sigil not in chunk and "<!--" not in chunk:
        return  # no import and no comment: code spans here matter to nobody
    excluded: list[tuple[int, int]] = []
    i = 0
    length = len(chunk)
    while i < length:
        special = _PROSE_SPECIAL.search(chunk, i)
        if special is None:
            break
        i = special.start()
        ch = chunk[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "`":
            run_end = i
            while run_end < length and chunk[run_end] == "`":
                run_end += 1
            run = run_end - i
            close = _find_backtick_run(chunk, run_end, run)
            if close < 0:
                i = run_end
                continue
            excluded.append((i, close + run))
            i = close + run
            continue
        if ch == "<" and chunk.startswith("<!--", i):
            close_at = chunk.find("-->", i + 4)
            stop = length if close_at < 0 else close_at + 3
            excluded.append((i, stop))
            _add_comment_lines(result, comments, start + i, start + stop)
            i = stop
            continue
        i += 1
    result.inline_code.extend((start + a, start + b) for a, b in excluded)
    if imports is None:
        return
    escaped_space = imports.escaped_space
    # spans are found left to right and never overlap: a bisection finds the one that could
    # hold an import (a paragraph with 3,000 imports and as many code spans stays linear)
    excluded_starts = [a for a, _ in excluded]
    for match in imports.token.finditer(chunk):
        at = match.start()
        if at > 0 and not chunk[at - 1].isspace():
            continue
        inside = bisect.bisect_right(excluded_starts, at) - 1
        if inside >= 0 and at < excluded[inside][1]:
            continue
        raw = match.group(1)
        link_end = raw.find("](")
        if link_end > 0:
            # `[Name @handle](https://…)`: the token is link text, which ends at the `]` (Claude
            # Code scans the text tokens its Markdown lexer gives, and a link's text is one)
            raw = raw[:link_end]
        offset = start + at
        line = line_of(result.starts, offset)
        col = offset - result.starts[line]
        end_col = col + 1 + len(raw)
        result.imports.append(
            ImportRef(
                raw=raw,
                path=raw.replace(escaped_space, " "),
                span=Span(Pos(line, col), Pos(line, end_col)),
                offset=offset,
            )
        )


def _indent(line: str) -> int:
    """Columns of leading whitespace, a tab advancing to the next multiple of 4."""
    column = 0
    for ch in line:
        if ch == " ":
            column += 1
        elif ch == "\t":
            column += 4 - column % 4
        else:
            break
    return column


def _find_backtick_run(chunk: str, start: int, run: int) -> int:
    """Index of the next run of exactly `run` backticks at or after `start`, or -1."""
    i = start
    length = len(chunk)
    while True:
        i = chunk.find("`", i)
        if i < 0:
            return -1
        j = i
        while j < length and chunk[j] == "`":
            j += 1
        if j - i == run:
            return i
        i = j


def _add_comment_lines(
    result: Scan, comments: list[tuple[int, str]], start: int, stop: int
) -> None:
    first = line_of(result.starts, start)
    last = line_of(result.starts, max(start, stop - 1))
    for number in range(first, last + 1):
        comments.append((number, result.lines[number]))


def _collect_suppressions(result: Scan, comments: list[tuple[int, str]]) -> None:
    for number, line in comments:
        for match in _DIRECTIVE.finditer(line):
            codes = {c.lower() for c in re.split(r"[\s,]+", match.group(2)) if c} or {"*"}
            if match.group(1):
                target = _next_content_line(result, number)
                result.suppressions.line_codes.setdefault(target, set()).update(codes)
            else:
                result.suppressions.file_codes.update(codes)


def _next_content_line(result: Scan, number: int) -> int:
    """The line a `disable-next-line` comment on `number` applies to."""
    closing = number
    # a multi-line comment applies to the line after its end
    while closing < len(result.lines) and "-->" not in result.lines[closing]:
        closing += 1
    target = closing + 1
    while target < len(result.lines) and not result.lines[target].strip():
        target += 1
    return target


def brought_text(
    text: str, drop_lines: set[int], first_line: int, starts: list[int] | None = None
) -> tuple[str, list[int]]:
    """The text without `drop_lines` and lines before `first_line`, and the kept line numbers.

    Line terminators are kept exactly as they are in the original.
    """
    if not drop_lines and first_line == 0:
        return text, []
    if starts is None:
        starts = line_starts(text)
    pieces: list[str] = []
    kept: list[int] = []
    for number, begin in enumerate(starts):
        if number < first_line or number in drop_lines:
            continue
        end = starts[number + 1] if number + 1 < len(starts) else len(text)
        pieces.append(text[begin:end])
        kept.append(number)
    return "".join(pieces), kept
