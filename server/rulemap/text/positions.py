"""Line splitting and column conversion between code points, UTF-16 and UTF-8.

The core keeps columns in code points (Python string indices). LSP clients negotiate UTF-16
(the default) or UTF-8, SARIF uses UTF-16 code units; the edges convert with these functions.
"""

from __future__ import annotations

import bisect
import functools
import re
from typing import Literal

Encoding = Literal["utf-16", "utf-8", "utf-32"]

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """Lines without their terminators, split on \\n, \\r\\n and \\r as LSP does."""
    return _LINE_BREAK.split(text)


def line_of(starts: list[int], offset: int) -> int:
    """The 0-based line holding `offset`, given `line_starts`."""
    return bisect.bisect_right(starts, offset) - 1 if starts else 0


def line_starts(text: str) -> list[int]:
    """Code point offset where each line starts."""
    if "\r" not in text:
        starts = [0]
        position = text.find("\n")
        while position >= 0:
            starts.append(position + 1)
            position = text.find("\n", position + 1)
        return starts
    starts = [0]
    starts.extend(m.end() for m in _LINE_BREAK.finditer(text))
    return starts


def col_to_encoding(line_text: str, col: int, encoding: Encoding) -> int:
    """A code point column on `line_text` expressed in `encoding` units."""
    col = max(0, min(col, len(line_text)))
    if encoding == "utf-32" or line_text.isascii():  # isascii is O(1) on CPython's str
        return col
    if len(line_text) < _LONG_LINE:
        prefix = line_text[:col]
        if encoding == "utf-16":
            return len(prefix.encode("utf-16-le", errors="surrogatepass")) // 2
        return len(prefix.encode("utf-8", errors="surrogatepass"))
    # a long line with many findings (300 mentions on one 150,000-character line): index its
    # non-ASCII characters once instead of encoding a prefix per finding
    where, extra8, extra16 = _wide_characters(line_text)
    before = bisect.bisect_left(where, col)
    return col + (extra16[before] if encoding == "utf-16" else extra8[before])


_LONG_LINE = 4096


@functools.lru_cache(maxsize=16)
def _wide_characters(line_text: str) -> tuple[list[int], list[int], list[int]]:
    """Indices of the non-ASCII characters of a line, and the extra UTF-8 bytes and UTF-16
    units of all those before each (cumulative, one entry more than indices)."""
    where: list[int] = []
    extra8 = [0]
    extra16 = [0]
    for match in _NON_ASCII.finditer(line_text):
        ch = match.group()
        where.append(match.start())
        extra8.append(extra8[-1] + len(ch.encode("utf-8", errors="surrogatepass")) - 1)
        extra16.append(extra16[-1] + (1 if ord(ch) > 0xFFFF else 0))
    return where, extra8, extra16


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def col_from_encoding(line_text: str, units: int, encoding: Encoding) -> int:
    """The code point column at `units` of `encoding` on `line_text` (clamped to the line)."""
    if units <= 0:
        return 0
    if encoding == "utf-32":
        return min(units, len(line_text))
    seen = 0
    for index, ch in enumerate(line_text):
        if encoding == "utf-16":
            width = 2 if ord(ch) > 0xFFFF else 1
        else:
            width = len(ch.encode("utf-8", errors="surrogatepass"))
        if seen + width > units:
            return index
        seen += width
        if seen == units:
            return index + 1
    return len(line_text)
