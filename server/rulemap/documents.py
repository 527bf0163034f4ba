"""Bytes → Document: decoding, frontmatter, the Markdown scan, rule globs and brought text.

What a document says to an agent beyond Markdown — its import tokens, the frontmatter key that
scopes a rule — is the agent's: a profile hands it in as a `DocumentSyntax` (the workspace's,
the default model's: `Layout.syntax`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from rulemap.globs import GlobError, expand_braces, pattern_error, validate
from rulemap.model import Document, Frontmatter, Glob, Pos, Span, Suppressions
from rulemap.records import record
from rulemap.text.decoding import decode as decode
from rulemap.text.frontmatter import parse_frontmatter
from rulemap.text.markdown import ImportSyntax, brought_text, scan
from rulemap.text.positions import line_starts, split_lines

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@record(frozen=True)
class DocumentSyntax:
    """An agent's reading of a document: its import tokens (None: it has no imports) and the
    frontmatter key whose globs scope a rule ('' : its rules are never scoped)."""

    imports: ImportSyntax | None = None
    globs_key: str = ""


NO_SYNTAX: Final = DocumentSyntax()


def unreadable_document(path: str, why: str, is_rule: bool) -> Document:
    return Document(
        path=path,
        text="",
        lines=[""],
        unreadable=why,
        imports=[],
        brought="",
        kept_lines=[],
        frontmatter=Frontmatter(present=False, data=None),
        suppressions=Suppressions(),
        is_rule=is_rule,
        globs=None,
        rule_skip=why if is_rule else None,
    )


def parse_document(
    path: str, text: str, is_rule: bool, bom: bool = False, syntax: DocumentSyntax = NO_SYNTAX
) -> Document:
    lines = split_lines(text)
    starts = line_starts(text)
    frontmatter = parse_frontmatter(lines, starts)
    # A rule's frontmatter is loader metadata; any other file is brought whole, frontmatter
    # included, so `@` tokens there are read like the rest.
    first_line = frontmatter.span.end.line + 1 if frontmatter.span and is_rule else 0
    scanned = scan(text, first_line, lines, starts, imports=syntax.imports)
    drop_first = first_line if is_rule else 0
    brought, kept = brought_text(text, scanned.comment_lines, drop_first, starts)
    if is_rule and frontmatter.present:
        # the blank lines between the frontmatter and the body are not brought either
        while kept and not lines[kept[0]].strip():
            brought = _drop_first_line(brought)
            kept.pop(0)
    globs, rule_skip = (None, None)
    if is_rule:
        globs, rule_skip = _rule_globs(frontmatter, lines, syntax.globs_key)
    return Document(
        path=path,
        text=text,
        lines=lines,
        unreadable=None,
        imports=scanned.imports,
        brought=brought,
        kept_lines=kept,
        frontmatter=frontmatter,
        suppressions=scanned.suppressions,
        is_rule=is_rule,
        globs=globs,
        rule_skip=rule_skip,
        bom=bom,
    )


def _drop_first_line(text: str) -> str:
    match = _LINE_BREAK.search(text)
    return "" if match is None else text[match.end() :]


def _rule_globs(
    frontmatter: Frontmatter, lines: list[str], key: str
) -> tuple[list[Glob] | None, str | None]:
    """The rule's globs under `key` (None = unconditional) and why the rule is skipped, if it
    is."""
    if frontmatter.error:
        return None, "its frontmatter is invalid"
    data = frontmatter.data or {}
    if not key or key not in data:
        return None, None
    value = data[key]
    spans = frontmatter.value_spans.get(key, [])
    key_span = frontmatter.key_spans.get(key, Span.at(0, 0))
    if value is None or value == [] or (isinstance(value, str) and not value.strip()):
        return None, None
    written: list[tuple[str, Span]] = []
    if isinstance(value, str):
        span = spans[0] if spans else key_span
        written = split_comma_string(value, span, lines)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            span = spans[index] if index < len(spans) else key_span
            if not isinstance(item, str):
                return None, f"`{key}` must list strings"
            written.append((item, span))
    else:
        return None, f"`{key}` must be a list of globs or a comma-separated string"
    globs: list[Glob] = []
    for pattern, span in written:
        error = validate(pattern)
        expanded: list[str] = []
        if error is None:
            try:
                expanded = expand_braces(pattern)
            except GlobError as exc:
                error = str(exc)
            else:
                error = next(filter(None, map(pattern_error, expanded)), None)
                if error is not None:
                    expanded = []
        globs.append(Glob(pattern=pattern, span=span, expanded=expanded, error=error))
    return globs, None


def split_comma_string(
    value: str,
    span: Span,
    lines: list[str],
    split: Callable[[str], list[str]] | None = None,
) -> list[tuple[str, Span]]:
    """`'src/**/*.ts, tests/**'` → each glob with its own span when the scalar is on one line
    (`split`: how the dialect splits the string, default commas outside `{...}`)."""
    pieces = [p.strip() for p in (split or split_top_level_commas)(value)]
    pieces = [p for p in pieces if p]
    line = span.start.line
    if span.start.line != span.end.line or line >= len(lines):
        return [(p, span) for p in pieces]
    text = lines[line]
    out: list[tuple[str, Span]] = []
    cursor = span.start.col
    for piece in pieces:
        found = text.find(piece, cursor)
        if found < 0:
            out.append((piece, span))
            continue
        out.append((piece, Span(Pos(line, found), Pos(line, found + len(piece)))))
        cursor = found + len(piece)
    return out


def split_top_level_commas(value: str, opening: str = "{", closing: str = "}") -> list[str]:
    """Split on commas outside `{...}` so `src/*.{ts,tsx}, docs/**` stays two globs (a dialect
    that also groups with `[...]` passes `"{["`, `"}]"`)."""
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in value:
        if ch in opening:
            depth += 1
        elif ch in closing:
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return parts
