"""`rulemap check --fix`: which fixes are safe unattended, and the edited text they give.

Pure: findings and texts in, texts out. Reading and writing files is the CLI's edge
(`cli/fix.py` through `readers/host.py`).

A fix is applied without a person looking only when it is the *single* quick fix of an
error or warning (the code action editors mark preferred) and its finding's code is one whose
fix is exact rather than a guess:
- `suspicious-import`: drop the punctuation the import swallowed (`@docs/a.md,` → `@docs/a.md`,
  whose target exists) or spell a Gemini import its loader reads (`@./x.md`);
- `instructions-shadowed`: add `@AGENTS.md` at the end of the `CLAUDE.md` that hides it.
Never applied: "did you mean" replacements (`broken-import`, `unmatched-glob`: the nearest name
may be the wrong file), creating a missing file (an empty file silences the error without
giving the agent anything), wrapping a mention in backticks (an information finding: the
author may want the import) and suppressions (they hide a finding, not fix it).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from rulemap.checks.registry import codes_where
from rulemap.model import Finding, Fix, Span
from rulemap.records import record
from rulemap.text.positions import line_starts, split_lines

# the codes the check registry marks `fix="safe"`: one list, where each code is declared
SAFE_CODES = codes_where("safe")

_BOM = "\ufeff"


def safe_fix(finding: Finding) -> Fix | None:
    """The fix `--fix` applies for `finding`, or None (see the module's docstring)."""
    if finding.code not in SAFE_CODES or finding.severity not in ("error", "warning"):
        return None
    if len(finding.fixes) != 1:
        return None  # a choice between fixes is the author's
    fix = finding.fixes[0]
    if fix.kind != "replace" or fix.path.startswith("/"):
        return None
    return fix


@record(frozen=True)
class Edit:
    """One replacement in one file, and the findings it fixes (several agents may report
    the same token with the same fix)."""

    path: str
    span: Span
    new_text: str
    title: str
    findings: tuple[Finding, ...]


def plan(findings: Iterable[Finding]) -> dict[str, list[Edit]]:
    """The safe edits per file, sorted by position, none overlapping another.

    Identical edits are merged. Of overlapping ones the first in (start, end, new text) order
    is kept and the rest left for the next pass, so the result never depends on the order of
    the findings; two insertions at the same place also overlap (their order would be a
    guess)."""
    merged: dict[tuple[str, Span, str], tuple[str, list[Finding]]] = {}
    for finding in findings:
        fix = safe_fix(finding)
        if fix is None:
            continue
        key = (fix.path, fix.span, fix.new_text)
        merged.setdefault(key, (fix.title, []))[1].append(finding)
    by_path: dict[str, list[Edit]] = {}
    for (path, span, new_text), (title, found) in sorted(
        merged.items(), key=lambda item: (item[0][0], item[0][1], item[0][2])
    ):
        edits = by_path.setdefault(path, [])
        if edits and _overlap(edits[-1].span, span):
            continue
        edits.append(Edit(path, span, new_text, title, tuple(found)))
    return by_path


def _overlap(before: Span, after: Span) -> bool:
    """Whether `after` (sorted after `before`) touches `before`'s replaced text."""
    if after.start < before.end:
        return True
    return after.start == before.end and (before.start == before.end or after.start == after.end)


def apply(text: str, edits: Iterable[Edit]) -> tuple[str, list[Edit]]:
    """`text` (as read from disk: a byte order mark is kept) with the `edits` applied, and the
    edits that were. An edit whose span is not in the text (a stale finding) is left out.

    New lines in an edit take the file's own line ending, so a CRLF file stays CRLF."""
    bom = _BOM if text.startswith(_BOM) else ""
    body = text[len(bom):]
    lines = split_lines(body)
    starts = line_starts(body)
    newline = _line_ending(body)
    applied: list[Edit] = []
    pieces: list[str] = []
    cursor = 0
    for edit in sorted(edits, key=lambda e: (e.span, e.new_text)):
        start = _offset(lines, starts, edit.span.start.line, edit.span.start.col)
        end = _offset(lines, starts, edit.span.end.line, edit.span.end.col)
        if start is None or end is None or start < cursor or end < start:
            continue
        pieces.append(body[cursor:start])
        pieces.append(edit.new_text.replace("\n", newline) if newline != "\n" else edit.new_text)
        cursor = end
        applied.append(edit)
    pieces.append(body[cursor:])
    return bom + "".join(pieces), applied


def _offset(lines: list[str], starts: list[int], line: int, col: int) -> int | None:
    if not 0 <= line < len(lines) or not 0 <= col <= len(lines[line]):
        return None
    return starts[line] + col


def _line_ending(text: str) -> str:
    """The file's first line ending ("\\n" for a file without one)."""
    position = text.find("\n")
    if position > 0 and text[position - 1] == "\r":
        return "\r\n"
    if position < 0 and "\r" in text:
        return "\r"
    return "\n"


def unified_diff(path: str, old: str, new: str) -> str:
    """A unified diff of one file that `git apply` accepts for every line-ending style (`a/`
    and `b/` prefixes, three lines of context, "\\ No newline at end of file" where one is
    missing).

    Lines are split where git splits them, at "\\n" only: a carriage return stays part of its
    line (a CRLF line ends "\\r\\n"; a file of lone "\\r" endings is one line to git), so
    the patch's lines are the file's lines byte for byte."""
    out: list[str] = []
    for line in difflib.unified_diff(
        _lines_with_ends(old), _lines_with_ends(new), f"a/{path}", f"b/{path}"
    ):
        if line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)


# git's lines: up to and including "\n"; a last line may lack it
_GIT_LINES = re.compile(r"[^\n]*\n|[^\n]+\Z")


def _lines_with_ends(text: str) -> list[str]:
    return _GIT_LINES.findall(text)
