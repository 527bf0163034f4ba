"""Gemini CLI's `@path` tokens, found the way its memory import processor finds them.

Gemini's dialect is not cogitator's (`text/markdown.py`), so it has its own scanner:

- a token is an `@` at the start of the text or right after a space, tab, CR or LF, and runs to
  the next of those four characters (no `\\ ` escape: `@my\\ file.md` is the path `my\\`);
- it is an import only when its path starts with `.`, `/` or an ASCII letter (`@_notes.md`,
  `@1.md` and `@~/x.md` stay plain text);
- only backtick code is excluded: a run of backticks up to the next run of as many, anywhere in
  the text (across lines and paragraphs, as a lazy `(`+)[\\s\\S]*?\\1` regex finds them).
  `~~~` fences, indented code and HTML comments are prose to Gemini.

Everything here is a pure function of the text; positions are code points of the original.
"""

from __future__ import annotations

import bisect
import re
from typing import Literal

from rulemap.model import Pos, Span
from rulemap.records import record
from rulemap.text.positions import line_starts

_WHITESPACE = " \t\n\r"  # the only characters Gemini treats as token boundaries
_BACKTICKS = re.compile(r"`+")
_URL = re.compile(r"^(?:file|https?)://")

# import: Gemini processes it; code: inside backtick code, left as text; refused: the path does
# not start with `.`, `/` or a letter, so Gemini does not treat the token as an import at all
TokenKind = Literal["import", "code", "refused"]


@record(frozen=True)
class GeminiToken:
    path: str  # everything after `@` up to the next space, tab, CR or LF
    span: Span  # the whole token, `@` included
    offset: int  # code point offset of `@`
    kind: TokenKind

    @property
    def is_url(self) -> bool:
        """Gemini refuses `file://`, `http://` and `https://` paths (and drops the token)."""
        return _URL.match(self.path) is not None


def code_regions(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of what Gemini's backtick regex `(`+)([\\s\\S]*?)\\1` matches,
    computed in linear time (the regex itself backtracks quadratically on long runs).

    At a backtick run of length n (or what remains of one after the previous match), the
    regex takes the largest k <= n for which k backticks follow later: inside the same run
    when 2k <= n, else at the first later run at least k long; with no later run at all the
    search ends. Each run is passed over once: a match consumes every run it scans."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text)]
    count = len(runs)
    if count == 0:
        return []
    # longest run after each index, to know without scanning whether a closing run exists
    longest_after = [0] * (count + 1)
    for index in range(count - 1, -1, -1):
        start, end = runs[index]
        longest_after[index] = max(end - start, longest_after[index + 1])
    regions: list[tuple[int, int]] = []
    index = 0
    position = runs[0][0]
    while index < count:
        start, end = runs[index]
        here = max(start, position)
        if here >= end:
            index += 1
            continue
        length = end - here
        later = longest_after[index + 1]
        width = length if later >= length else max(later, length // 2)
        if width == 0:
            break  # a lone backtick with none after it: the regex finds nothing more
        if 2 * width <= length:
            regions.append((here, here + 2 * width))
            position = here + 2 * width
            continue
        closing = index + 1
        while runs[closing][1] - runs[closing][0] < width:
            closing += 1
        close_start = runs[closing][0]
        regions.append((here, close_start + width))
        position = close_start + width
        index = closing
    return regions


def scan_gemini(text: str, starts: list[int] | None = None) -> list[GeminiToken]:
    """Every `@` token Gemini's scanner sees, in order, with what it does with each."""
    if "@" not in text:
        return []
    if starts is None:
        starts = line_starts(text)
    regions = code_regions(text) if "`" in text else []
    region_starts = [a for a, _ in regions]
    tokens: list[GeminiToken] = []
    length = len(text)
    at = text.find("@")
    while at >= 0:
        if at > 0 and text[at - 1] not in _WHITESPACE:
            at = text.find("@", at + 1)
            continue
        end = at + 1
        while end < length and text[end] not in _WHITESPACE:
            end += 1
        path = text[at + 1 : end]
        if path:
            first = path[0]
            accepted = first in "./" or ("a" <= first <= "z") or ("A" <= first <= "Z")
            inside = bisect.bisect_right(region_starts, at) - 1
            kind: TokenKind = "import" if accepted else "refused"
            if inside >= 0 and at < regions[inside][1]:
                kind = "code"
            line = bisect.bisect_right(starts, at) - 1
            col = at - starts[line]
            span = Span(Pos(line, col), Pos(line, col + 1 + len(path)))
            tokens.append(GeminiToken(path, span, at, kind))
        at = text.find("@", end)
    return tokens
