"""Shared helpers of the feature providers: URIs, safe document access, the import graph.

Every public feature function is wrapped in `never_raise`: an editor request must get an empty
answer, not an exception, when a workspace is half-updated or a file vanished. Tests set
`RAISE = True` so that bugs still surface there.
"""

from __future__ import annotations

import functools
import logging
import posixpath
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast
from urllib.parse import quote

from lsprotocol import types

from rulemap import analysis
from rulemap.lsp.convert import span_contains, to_pos, to_range
from rulemap.model import Document, Glob, ImportRef, ImportStatus, Pos, Resolved, Span
from rulemap.text.positions import Encoding
from rulemap.workspace import Workspace
from rulemap.workspace.core import ImportReach

log = logging.getLogger("rulemap.lsp.features")

RAISE = False  # tests flip this so that a bug is not silently turned into an empty answer

MARKDOWN_SUFFIXES = (".md", ".mdx", ".mdc", ".markdown")
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


def uri_of(ws: Workspace, key: str) -> str:
    """The file URI of a key (root-relative or absolute)."""
    return "file://" + quote(ws.abs(key), safe="/")


def editable_key(ws: Workspace, key: str) -> str | None:
    """The key an edit of `key` must name, or None when no edit may touch it: the real file
    behind `key` (symlinks resolved) when it lies inside the workspace root — never outside,
    not even under a directory the user granted with `allowImportsFrom` (a read grant is not a
    write grant). For a file that does not exist yet, the real path of where it would be."""
    if not key or key.startswith("/"):
        return None
    real = ws.identity(key)
    root = ws.real_root.rstrip("/")
    if not real.startswith(root + "/"):
        return None
    return real[len(root) + 1 :]


def zero_range() -> types.Range:
    return types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
    )


def file_location(ws: Workspace, key: str) -> types.Location:
    return types.Location(uri=uri_of(ws, key), range=zero_range())


def span_location(ws: Workspace, key: str, span: Span, encoding: Encoding) -> types.Location:
    doc = ws.document(key)
    return types.Location(uri=uri_of(ws, key), range=to_range(doc.lines, span, encoding))


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


def is_markdown(ws: Workspace, key: str) -> bool:
    """Files whose `@` tokens are imports for the editor: instruction files, rules, Markdown."""
    return (
        ws.is_instruction(key)
        or key.lower().endswith(MARKDOWN_SUFFIXES)
        or (key in import_graph(ws).imported)
    )


def readable_doc(ws: Workspace, key: str) -> Document | None:
    """The parsed document, or None when the key names nothing readable."""
    try:
        doc = ws.document(key)
    except Exception:
        if RAISE:
            raise
        return None
    if doc.unreadable:
        return None
    return doc


def import_at(ws: Workspace, key: str, pos: Pos) -> tuple[ImportRef, Resolved] | None:
    for ref, resolved in ws.imports(key):
        if span_contains(ref.span, pos):
            return ref, resolved
    return None


def glob_at(doc: Document, pos: Pos) -> Glob | None:
    for glob in doc.globs or []:
        if span_contains(glob.span, pos):
            return glob
    return None


def setting(settings: object, dotted: str, default: Any) -> Any:
    """`hover.sourceFiles` from {"hover": {"sourceFiles": …}}, {"hover.sourceFiles": …} or an
    object with attributes (`hover.sourceFiles` / `hover_source_files`)."""
    if settings is None:
        return default
    if isinstance(settings, Mapping):
        if dotted in settings:
            return settings[dotted]
        current: Any = settings
        for part in dotted.split("."):
            if not isinstance(current, Mapping) or part not in current:
                return default
            current = current[part]
        return current
    snake = "".join("_" + c.lower() if c.isupper() else c for c in dotted.replace(".", "_"))
    current = settings
    for part in dotted.split("."):
        if not hasattr(current, part):
            return getattr(settings, snake, default)
        current = getattr(current, part)
    return current


# ----- formatting ---------------------------------------------------------------------------


def tokens(chars: int) -> int:
    return round(chars / 4)


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def code(text: str) -> str:
    """Inline Markdown code that survives backticks in the text."""
    fence = "`" * (_longest_backtick_run(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _longest_backtick_run(text: str) -> int:
    if "`" not in text:
        return 0
    return max(len(run) for run in _BACKTICKS.findall(text))


def fenced(text: str, language: str = "markdown") -> str:
    fence = "`" * max(3, _longest_backtick_run(text) + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def link(ws: Workspace, key: str) -> str:
    """A Markdown link to a workspace file, shown as its key in code (code spans bind tighter
    than link brackets, so `[` `]` in the key need no escape)."""
    return f"[{code(key)}]({uri_of(ws, key)})"


# ----- the import graph ---------------------------------------------------------------------


def import_graph(ws: Workspace) -> ImportReach:
    """Every document reachable through imports (the engine's, cached in its derived cache),
    so that `ws.importers()` is complete afterwards."""
    return ws.import_reach()


def importers(ws: Workspace, key: str) -> list[tuple[str, ImportRef]]:
    ws.import_reach()
    return ws.importers(key)


def load_target(ws: Workspace, key: str) -> tuple[bool, str | None]:
    """A target whose load includes `key` (the engine decides: `analysis.load_target`)."""
    return analysis.load_target(ws, key)


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


def is_import_ok(resolved: Resolved) -> bool:
    return resolved.status is ImportStatus.OK
