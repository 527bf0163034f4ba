"""Document symbols (frontmatter keys and globs, headings with their hierarchy, imports) and
workspace symbols (instruction files and rules)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lsprotocol import types

from rulemap.host import Snapshot
from rulemap.host.markdown import markdown_layout
from rulemap.host.text import Encoding
from rulemap.lsp.convert import to_range
from rulemap.lsp.features._util import (
    file_location,
    never_raise,
    readable_doc,
)
from rulemap.model import Document, ImportStatus, Pos, Span

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_NOT_SETEXT_TEXT = re.compile(r"^ {0,3}([-*+>#]|\d+[.)])(\s|$)")
MAX_WORKSPACE_SYMBOLS = 500


@dataclass
class _Heading:
    level: int
    title: str
    line: int
    end_line: int = 0
    children: list[types.DocumentSymbol] = field(default_factory=list)


@never_raise(list)
def document_symbols(
    snap: Snapshot, key: str, encoding: Encoding = "utf-16"
) -> list[types.DocumentSymbol]:
    if not snap.is_markdown(key):
        return []
    doc = readable_doc(snap, key)
    if doc is None:
        return []
    out: list[types.DocumentSymbol] = []
    body_start = 0
    fm = doc.frontmatter
    if fm.span is not None and (doc.is_rule or not fm.error):
        out.append(_frontmatter_symbol(doc, encoding))
        body_start = fm.span.end.line + 1
    headings = _headings(snap, key, doc, body_start)
    imports = []
    for ref, resolved in snap.imports(key):
        detail = (
            resolved.target
            if resolved.status is ImportStatus.OK
            else (f"{resolved.target} ({resolved.status.value})")
        )
        symbol = types.DocumentSymbol(
            name="@" + ref.raw,
            kind=types.SymbolKind.File,
            range=to_range(doc.lines, ref.span, encoding),
            selection_range=to_range(doc.lines, ref.span, encoding),
            detail=detail,
        )
        imports.append((ref.span.start.line, symbol))
    return out + _tree(doc, headings, imports, encoding)


def _frontmatter_symbol(doc: Document, encoding: Encoding) -> types.DocumentSymbol:
    fm = doc.frontmatter
    assert fm.span is not None
    children = []
    for key, key_span in fm.key_spans.items():
        values = fm.value_spans.get(key, [])
        end = max([key_span.end, *(v.end for v in values)])
        grandchildren = []
        # the globs under this key (a rule's globs lie in its globs key's value, whichever key
        # that is for the agent: documents.DocumentSyntax)
        if doc.globs and any(key_span.start <= g.span.start and g.span.end <= end
                             for g in doc.globs):
            for glob in doc.globs:
                if not (fm.span.start <= glob.span.start and glob.span.end <= fm.span.end):
                    continue
                end = max(end, glob.span.end)
                grandchildren.append(
                    types.DocumentSymbol(
                        name=glob.pattern,
                        kind=types.SymbolKind.String,
                        range=to_range(doc.lines, glob.span, encoding),
                        selection_range=to_range(doc.lines, glob.span, encoding),
                        detail=glob.error,
                    )
                )
        value = (fm.data or {}).get(key)
        detail = None if isinstance(value, (list, dict)) else str(value)[:80]
        children.append(
            types.DocumentSymbol(
                name=key,
                kind=types.SymbolKind.Property,
                range=to_range(doc.lines, Span(key_span.start, end), encoding),
                selection_range=to_range(doc.lines, key_span, encoding),
                detail=detail,
                children=grandchildren or None,
            )
        )
    first = Span(Pos(0, 0), Pos(0, len(doc.lines[0])))
    return types.DocumentSymbol(
        name="frontmatter",
        kind=types.SymbolKind.Namespace,
        range=to_range(doc.lines, fm.span, encoding),
        selection_range=to_range(doc.lines, first, encoding),
        detail=fm.error,
        children=children or None,
    )


def _headings(snap: Snapshot, key: str, doc: Document, body_start: int) -> list[_Heading]:
    scanned = markdown_layout(snap, key, body_start)
    skip = scanned.code_lines | scanned.comment_lines
    lines = doc.lines
    found: list[_Heading] = []
    for number in range(body_start, len(lines)):
        if number in skip:
            continue
        text = lines[number]
        atx = _ATX.match(text)
        if atx:
            found.append(_Heading(len(atx.group(1)), (atx.group(2) or "").strip(), number))
            continue
        below = number + 1
        if (
            below < len(lines)
            and below not in skip
            and text.strip()
            and not _NOT_SETEXT_TEXT.match(text)
            and not _SETEXT.match(text)
            and (
                number == body_start
                or not lines[number - 1].strip()
                or number - 1 in skip
                or _ATX.match(lines[number - 1])
            )
        ):
            setext = _SETEXT.match(lines[below])
            if setext:
                found.append(_Heading(1 if setext.group(1)[0] == "=" else 2, text.strip(), number))
    for index, heading in enumerate(found):
        heading.end_line = len(lines) - 1
        for later in found[index + 1 :]:
            if later.level <= heading.level:
                heading.end_line = max(heading.line, later.line - 1)
                break
    return found


def _tree(
    doc: Document,
    headings: list[_Heading],
    imports: list[tuple[int, types.DocumentSymbol]],
    encoding: Encoding,
) -> list[types.DocumentSymbol]:
    """Nest headings by level; each import goes under the innermost heading holding it."""
    top: list[types.DocumentSymbol] = []
    stack: list[tuple[_Heading, types.DocumentSymbol]] = []
    pending = sorted(imports, key=lambda item: item[0])
    cursor = 0

    def place(symbol: types.DocumentSymbol) -> None:
        if stack:
            parent = stack[-1][1]
            parent.children = [*(parent.children or []), symbol]
        else:
            top.append(symbol)

    for heading in headings:
        while cursor < len(pending) and pending[cursor][0] < heading.line:
            _close(stack, pending[cursor][0])
            place(pending[cursor][1])
            cursor += 1
        while stack and stack[-1][0].level >= heading.level:
            stack.pop()
        end = Pos(heading.end_line, len(doc.lines[heading.end_line]))
        title_line = Span(Pos(heading.line, 0), Pos(heading.line, len(doc.lines[heading.line])))
        symbol = types.DocumentSymbol(
            name=heading.title or "#" * heading.level,
            kind=types.SymbolKind.String,
            range=to_range(doc.lines, Span(Pos(heading.line, 0), end), encoding),
            selection_range=to_range(doc.lines, title_line, encoding),
            detail="#" * heading.level,
        )
        place(symbol)
        stack.append((heading, symbol))
    while cursor < len(pending):
        _close(stack, pending[cursor][0])
        place(pending[cursor][1])
        cursor += 1
    return top


def _close(stack: list[tuple[_Heading, types.DocumentSymbol]], line: int) -> None:
    """Pop the headings whose section ends before `line`."""
    while stack and stack[-1][0].end_line < line:
        stack.pop()


@never_raise(list)
def workspace_symbols(snap: Snapshot, query: str = "") -> list[types.WorkspaceSymbol]:
    """Instruction files and rules whose path contains the query's characters in order."""
    needle = query.lower().strip()
    out: list[types.WorkspaceSymbol] = []
    for path in snap.all_documents():
        if needle and not _subsequence(needle, path.lower()):
            continue
        if snap.is_rule(path):
            container = "rule (path-scoped)" if snap.is_scoped(path) else "rule"
            kind = types.SymbolKind.Event
        else:
            container = "instruction file"
            kind = types.SymbolKind.File
        out.append(
            types.WorkspaceSymbol(
                location=file_location(snap, path), name=path, kind=kind, container_name=container
            )
        )
        if len(out) >= MAX_WORKSPACE_SYMBOLS:
            break
    return out


def _subsequence(needle: str, haystack: str) -> bool:
    position = 0
    for ch in needle:
        position = haystack.find(ch, position)
        if position < 0:
            return False
        position += 1
    return True
