"""A document's Markdown layout, as the editor's completion and outline read it.

Why here: which lines are fenced code or block HTML comments, where inline code runs, and
where a frontmatter block closes — even one being typed — are the parser's facts
(`text/markdown.py`, `text/frontmatter.py`); an `@` typed inside code is no import, a `#`
inside it no heading. The edges ask here instead of scanning themselves.
"""

from __future__ import annotations

from rulemap.host.snapshot import Snapshot
from rulemap.text import frontmatter
from rulemap.text.markdown import Scan, scan

__all__ = ["Scan", "frontmatter_end", "markdown_layout"]


def markdown_layout(snap: Snapshot, key: str, first_line: int = 0) -> Scan:
    """The code lines, comment lines, line starts and inline code of `key`'s text, from
    `first_line` on (the lines before it, a frontmatter block, are skipped)."""
    return scan(snap.document(key).text, first_line)


def frontmatter_end(snap: Snapshot, key: str) -> int | None:
    """The line of `key`'s closing frontmatter fence; an unclosed `---` block of a rule (being
    typed) runs to the end. None when there is no frontmatter (a leading `---` of a non-rule
    with invalid YAML is prose)."""
    doc = snap.document(key)
    if not doc.is_rule and doc.frontmatter.error:
        return None
    if doc.frontmatter.span is not None:
        return doc.frontmatter.span.end.line
    end = frontmatter.frontmatter_end(doc.lines)
    if end is None and doc.is_rule and doc.lines and doc.lines[0].rstrip() == "---":
        return len(doc.lines)
    return end
