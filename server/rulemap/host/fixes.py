"""Quick fixes as plain edits: a finding's own fixes, and an inline suppression.

Why here: which edits are allowed is the engine's call — never outside the workspace, not
through a symlink that leads out, never creating a file that exists — and the suppression
comment's syntax is the checks' (`rulemap-disable-next-line`). The language server converts
these to `CodeAction`s and positions in the client's encoding; nothing is written here.

The findings come from the caller — the ones the client was shown (published diagnostics):
computing fixes never runs a check.
"""

from __future__ import annotations

import re

from rulemap.host.snapshot import Snapshot
from rulemap.model import Document, Finding, Fix, Pos, Span
from rulemap.records import record

_NEXT_LINE = re.compile(r"^(\s*<!--\s*rulemap-disable-next-line\b)(.*?)(\s*-->\s*)$", re.IGNORECASE)


@record(frozen=True)
class TextChange:
    """Replace `span` (code points) of the file `path` with `new_text`; `lines` are the file's
    current lines, to say where `span` is in the client's encoding."""

    path: str
    uri: str
    span: Span
    new_text: str
    lines: list[str]


@record(frozen=True)
class FixAction:
    """One quick fix: either create the file `create` (a URI; empty) or apply `change`."""

    title: str
    change: TextChange | None = None
    create: str | None = None
    preferred: bool = False


def fix_actions(snap: Snapshot, finding: Finding, first_preferred: bool = True) -> list[FixAction]:
    """The finding's own fixes that may be applied now, in its order; the first is preferred
    (for an error or a warning) when `first_preferred`."""
    out: list[FixAction] = []
    for index, fix in enumerate(finding.fixes):
        preferred = first_preferred and index == 0 and finding.severity in ("error", "warning")
        action = _fix_action(snap, fix, preferred)
        if action is not None:
            out.append(action)
    return out


def _fix_action(snap: Snapshot, fix: Fix, preferred: bool) -> FixAction | None:
    # no edit may land outside the workspace, through a symlink that leads out included
    # (docs/security.md); one inside keeps the name the user sees (their buffer is that one)
    if snap.editable_key(fix.path) is None:
        return None
    if fix.kind == "create":
        if snap.exists(fix.path):
            return None
        return FixAction(fix.title, create=snap.uri(fix.path))
    target = snap.readable(fix.path)
    if target is None:
        return None
    change = TextChange(fix.path, snap.uri(fix.path), fix.span, fix.new_text, target.lines)
    return FixAction(fix.title, change=change, preferred=preferred)


def suppress_action(snap: Snapshot, doc: Document, finding: Finding) -> FixAction | None:
    """A comment that silences `finding`: for the whole file when it sits in the frontmatter,
    else on its line (joining an existing `rulemap-disable-next-line` comment above)."""
    if snap.editable_key(doc.path) is None:
        return None
    code = finding.code
    line = finding.span.start.line
    fm = doc.frontmatter
    in_frontmatter = (
        fm.span is not None and line <= fm.span.end.line and (doc.is_rule or not fm.error)
    )
    if in_frontmatter:
        assert fm.span is not None
        title = f"Suppress `{code}` in this file"
        end = fm.span.end.line
        comment = f"<!-- rulemap-disable {code} -->"
        if end + 1 < len(doc.lines):
            span, text = Span(Pos(end + 1, 0), Pos(end + 1, 0)), comment + "\n"
        else:
            at = Pos(end, len(doc.lines[end]))
            span, text = Span(at, at), "\n" + comment
    else:
        title = f"Suppress `{code}` on this line"
        line = min(line, len(doc.lines) - 1)
        previous = line - 1
        while previous >= 0 and not doc.lines[previous].strip():
            previous -= 1
        match = _NEXT_LINE.match(doc.lines[previous]) if previous >= 0 else None
        if match is not None:
            codes = [c for c in re.split(r"[\s,]+", match.group(2)) if c]
            codes.append(code)
            text = f"{match.group(1)} {', '.join(codes)}{match.group(3).rstrip()}"
            span = Span(Pos(previous, 0), Pos(previous, len(doc.lines[previous])))
        else:
            current = doc.lines[line]
            indent = current[: len(current) - len(current.lstrip(" "))][:3]
            text = f"{indent}<!-- rulemap-disable-next-line {code} -->\n"
            span = Span(Pos(line, 0), Pos(line, 0))
    change = TextChange(doc.path, snap.uri(doc.path), span, text, doc.lines)
    return FixAction(title, change=change)
