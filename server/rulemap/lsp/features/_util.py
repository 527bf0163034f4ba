"""Shared helpers of the feature providers: positions, locations, Markdown formatting.

Every public feature function is wrapped in `never_raise`: an editor request must get an empty
answer, not an exception, when a workspace is half-updated or a file vanished. Tests set
`RAISE = True` so that bugs still surface there.

The providers ask a `rulemap.host.Snapshot` (the engine's plain data) and only convert: to
lsprotocol types, client positions, and Markdown for people.
"""

from __future__ import annotations

import functools
import logging
import posixpath
import re
from collections.abc import Callable, Iterable
from typing import Any, TypeVar, cast

from lsprotocol import types

from rulemap.host import Snapshot
from rulemap.host.text import Encoding
from rulemap.lsp.convert import span_contains, to_pos, to_range
from rulemap.model import Document, Glob, Pos, Span

log = logging.getLogger("rulemap.lsp.features")

RAISE = False  # tests flip this so that a bug is not silently turned into an empty answer

_BACKTICKS = re.compile(r"`+")

F = TypeVar("F", bound=Callable[..., Any])


def never_raise(default: Callable[[], Any]) -> Callable[[F], F]:
    def decorate(function: F) -> F:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return function(*args, **kwargs)
            except Exception:
                if RAISE:
                    raise
                log.exception("%s failed", function.__name__)
                return default()

        return cast(F, wrapper)

    return decorate


# ----- URIs and positions -------------------------------------------------------------------


def zero_range() -> types.Range:
    return types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
    )


def file_location(snap: Snapshot, key: str) -> types.Location:
    return types.Location(uri=snap.uri(key), range=zero_range())


def span_location(snap: Snapshot, key: str, span: Span, encoding: Encoding) -> types.Location:
    doc = snap.document(key)
    return types.Location(uri=snap.uri(key), range=to_range(doc.lines, span, encoding))


def core_pos(doc: Document, position: types.Position, encoding: Encoding) -> Pos | None:
    """The client position in code points, or None when it is past the end of the document."""
    if position.line < 0 or position.line >= len(doc.lines):
        return None
    return to_pos(doc.lines, position, encoding)


def overlaps(span: Span, range_: types.Range, lines: list[str], encoding: Encoding) -> bool:
    """Whether a core span touches a client range (both inclusive at the ends)."""
    start = to_pos(lines, range_.start, encoding)
    end = to_pos(lines, range_.end, encoding)
    return not (span.end < start or span.start > end)


# ----- documents ----------------------------------------------------------------------------


def readable_doc(snap: Snapshot, key: str) -> Document | None:
    """The parsed document, or None when the key names nothing readable (in tests, a failure
    to parse is raised rather than answered as None)."""
    if RAISE:
        doc = snap.document(key)
        return None if doc.unreadable else doc
    return snap.readable(key)


def glob_at(globs: Iterable[Glob], pos: Pos) -> Glob | None:
    """The glob written at `pos`, if any."""
    for glob in globs:
        if span_contains(glob.span, pos):
            return glob
    return None


# ----- formatting ---------------------------------------------------------------------------


def tokens(chars: int) -> int:
    return round(chars / 4)


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def code(text: str) -> str:
    """Inline Markdown code that survives backticks in the text."""
    fence = "`" * (longest_backtick_run(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def longest_backtick_run(text: str) -> int:
    if "`" not in text:
        return 0
    return max(len(run) for run in _BACKTICKS.findall(text))


def fenced(text: str, language: str = "markdown") -> str:
    fence = "`" * max(3, longest_backtick_run(text) + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def link(snap: Snapshot, key: str) -> str:
    """A Markdown link to a workspace file, shown as its key in code (code spans bind tighter
    than link brackets, so `[` `]` in the key need no escape)."""
    return f"[{code(key)}]({snap.uri(key)})"


# ----- import paths -------------------------------------------------------------------------


def relative_import(target: str, importer: str, like: str = "") -> str:
    """How `importer` writes an import of `target` (both keys), in the style of `like`."""
    if target.startswith("/"):
        return target
    base = posixpath.dirname(importer) or "."
    rel = posixpath.relpath(target, base)
    if like.startswith("./") and not rel.startswith("../"):
        rel = "./" + rel
    return rel


def escape_path(path: str) -> str:
    return path.replace(" ", "\\ ")

