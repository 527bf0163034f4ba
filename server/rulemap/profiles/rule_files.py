"""What Copilot's `.instructions.md` and Cursor's `.mdc` rules share: a frontmatter header read
the way their editors read it, and comma-separated or listed globs with their spans.

Neither editor parses the header as strict YAML: Cursor writes `globs: *.ts,*.tsx` unquoted
(an alias to YAML), VS Code's own header parser takes `applyTo: **/*.py`. So when the safe YAML
parser (`text/frontmatter.py`) refuses a header, it is read again line by line (`key: value`,
`- item` lists, `[a, b]` flow lists, quoted strings, `true`/`false`); only a header that fails
both is invalid.
"""

from __future__ import annotations

import re
from dataclasses import field
from typing import TYPE_CHECKING

from rulemap.documents import split_comma_string, split_top_level_commas
from rulemap.globs import GlobError, expand_braces, pattern_error
from rulemap.model import Document, Glob, ScopedGlobs, Span
from rulemap.profiles.named_files import FILES_NAMED as FILES_NAMED
from rulemap.profiles.named_files import files_named as files_named
from rulemap.records import record

if TYPE_CHECKING:
    pass

_KEY_LINE = re.compile(r"^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*?))?[ \t]*$")
_ITEM_LINE = re.compile(r"^([ \t]+|)-[ \t]+(.*?)[ \t]*$")


@record
class Header:
    """A rule file's header as its editor reads it, and its body (what the agent receives)."""

    present: bool
    data: dict[str, object]
    key_spans: dict[str, Span] = field(default_factory=dict)
    value_spans: dict[str, list[Span]] = field(default_factory=dict)
    error: str | None = None  # neither YAML nor the line reader could read it
    error_span: Span | None = None
    body: str = ""
    body_line: int = 0  # first line of the body in the original text
    lenient: bool = False  # YAML refused it; the line reader read it


def read_header(doc: Document) -> Header:
    fm = doc.frontmatter
    if not fm.present or fm.span is None:
        return Header(False, {}, body=doc.text)
    body = doc.text[fm.body_offset :]
    body_line = fm.span.end.line + 1
    if fm.error is None:
        return Header(True, dict(fm.data or {}), dict(fm.key_spans), dict(fm.value_spans),
                      body=body, body_line=body_line)
    lenient = _read_lines(doc.lines, fm.span.end.line)
    if isinstance(lenient, Header):
        lenient.body, lenient.body_line = body, body_line
        return lenient
    return Header(True, {}, error=fm.error, error_span=fm.error_span or lenient, body=body,
                  body_line=body_line)


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _scalar(value: str) -> object:
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    if value in ("", "~", "null"):
        return None
    return _unquote(value)


def _read_lines(lines: list[str], end: int) -> Header | Span:
    """The header between line 0 and `end` (the fences) read line by line, or the span of
    the first line it cannot read."""
    header = Header(True, {}, lenient=True)
    current: str | None = None  # the key whose `- item` lines follow
    for number in range(1, end):
        line = lines[number]
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        item = _ITEM_LINE.match(line)
        if item is not None and current is not None:
            if header.data.get(current) is None:
                header.data[current] = []
            listed = header.data[current]
            if not isinstance(listed, list):
                return Span.at(number, 0, len(line))
            col = line.index("-") + 1
            col += len(line[col:]) - len(line[col:].lstrip())
            listed.append(_unquote(item.group(2)))
            header.value_spans.setdefault(current, []).append(
                Span.at(number, col, col + len(item.group(2))))
            continue
        match = _KEY_LINE.match(line)
        if match is None:
            return Span.at(number, 0, len(line))
        key, value = match.group(1), match.group(2) or ""
        header.key_spans[key] = Span.at(number, 0, len(key))
        current = key if not value else None
        col = match.start(2) if match.group(2) is not None else len(line)
        if value.startswith("[") and value.endswith("]"):
            items: list[object] = []
            spans: list[Span] = []
            cursor = col + 1
            for piece in split_top_level(value[1:-1]):
                text = piece.strip()
                if not text:
                    continue
                found = line.find(text, cursor)
                spans.append(Span.at(number, found, found + len(text)))
                cursor = found + len(text)
                items.append(_unquote(text))
            header.data[key] = items
            header.value_spans[key] = spans
            continue
        header.data[key] = _scalar(value)
        if value:
            header.value_spans[key] = [Span.at(number, col, col + len(value))]
    return header


def split_top_level(value: str) -> list[str]:
    """Split on commas outside `{...}` and `[...]` (VS Code's `splitGlobAware`): `*.{ts,tsx}`
    stays one glob."""
    return split_top_level_commas(value, "{[", "}]")


@record(frozen=True)
class WrittenGlob:
    pattern: str  # as written, trimmed
    span: Span  # where it is written (inside the frontmatter value)
    expanded: tuple[str, ...]  # after brace expansion (empty when `error`)
    error: str | None = None


def as_scoped(key: str, base: str, written: list[WrittenGlob] | None) -> ScopedGlobs | None:
    """Written globs as the views take them (`ScopedGlobs`)."""
    if not written:
        return None
    return ScopedGlobs(key, base, tuple(
        Glob(g.pattern, g.span, list(g.expanded), g.error) for g in written
    ))


def written_globs(header: Header, key: str, lines: list[str]) -> list[WrittenGlob] | str | None:
    """The globs of `key`: a comma-separated string or a list of strings. None when the key is
    absent or empty; a message when it holds something else."""
    if key not in header.data:
        return None
    value = header.data[key]
    spans = header.value_spans.get(key, [])
    key_span = header.key_spans.get(key, Span.at(0, 0, 3))
    written: list[tuple[str, Span]] = []
    if value is None or value == "" or value == []:
        return None
    if isinstance(value, str):
        written = _split_string(value, spans[0] if spans else key_span, lines)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if not isinstance(item, str):
                return f"`{key}` must list strings (globs)"
            span = spans[index] if index < len(spans) else key_span
            if item.strip():
                written.append((item.strip(), span))
    else:
        return f"`{key}` must be a comma-separated string of globs or a list of globs"
    out: list[WrittenGlob] = []
    for pattern, span in written:
        try:
            expanded = tuple(expand_braces(pattern))
        except GlobError as exc:
            out.append(WrittenGlob(pattern, span, (), str(exc)))
            continue
        error = next(filter(None, map(pattern_error, expanded)), None)
        out.append(WrittenGlob(pattern, span, () if error else expanded, error))
    return out or None


def _split_string(value: str, span: Span, lines: list[str]) -> list[tuple[str, Span]]:
    """Each comma-separated glob with its own span when the value sits on one line (commas
    inside `{...}` and `[...]` do not split: VS Code's dialect)."""
    return split_comma_string(value, span, lines, split_top_level)


def requote(line: str, span: Span, new: str) -> str:
    """`new` in the quotes the written glob had (a fix keeps the line's YAML valid)."""
    written = line[span.start.col : span.end.col] if span.start.line == span.end.line else ""
    if written[:1] in ("'", '"') and written[-1:] == written[:1]:
        return written[0] + new + written[0]
    return new
