"""`rulemap check`'s text output, grouped like ruff's: a file, then its findings.

    AGENTS.md
      10:10  error    broken-import  `@docs/deploy.md,`: `docs/deploy.md,` does not exist
    packages/web/AGENTS.md
       3:51  warning  suspicious-import [*]  `@../../docs/conventions.md.` names
             `../../docs/conventions.md.`, which does not exist; …

    Found 2 findings (1 error, 1 warning) in 2 of 13 files.
    [*] 1 fixable with `rulemap check --fix`.

Messages wrap at the terminal's width (or $COLUMNS); piped, each finding stays on one line so
`grep` finds a message whole. `--statistics` counts findings per code instead.

In colour (`color`, `--color`), as ruff: the path bold, the severity in its colour (error
red, warning yellow, information and hint blue), the code bold, `[*]` cyan. The repository's
text is escaped for a terminal first (`terminal_text`) whatever the colour, so only the
report's own styles reach the terminal, and without colour the bytes are those the text
guard printed before.
"""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Iterable

from rulemap.cli.agents_line import agents_line
from rulemap.cli.fitting import fit_words, shorten_middle
from rulemap.cli.terminal import styled, terminal_text
from rulemap.host import Snapshot
from rulemap.host.catalog import check
from rulemap.host.checks import checked_count, safe_fix
from rulemap.model import SEVERITIES, Finding

FIXABLE = "[*]"
_MIN_WIDTH = 40  # narrower than this, wrapping stops helping


def output_width() -> int | None:
    """How wide to wrap: $COLUMNS when set, the terminal's when stdout is one, else None
    (no wrapping)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return max(int(columns), _MIN_WIDTH)
    try:
        if sys.stdout.isatty():
            return max(os.get_terminal_size(sys.stdout.fileno()).columns, _MIN_WIDTH)
    except (AttributeError, ValueError, OSError):
        pass
    return None


SEVERITY_STYLE = {"error": "red", "warning": "yellow", "information": "blue", "hint": "blue"}


def render(
    snap: Snapshot, findings: list[Finding], width: int | None = None, color: bool = False
) -> str:
    """The grouped report and its summary (`width`: wrap messages there; None: no wrap;
    `color`: ANSI styles, as ruff)."""
    lines: list[str] = []
    # one set of columns for the whole report, so every group's messages line up
    place_width = max((len(_place(f)) for f in findings), default=0)
    severity_width = max((len(f.severity) for f in findings), default=0)
    for path, group in _by_file(findings):
        # a name that is not UTF-8: `\xNN`, as every format; a control character escaped
        shown = terminal_text(path)
        if width is not None:  # else whole, for grep
            shown = shorten_middle(shown, width)
        lines.append(styled(shown, "bold", color))
        lines.extend(_rows(group, width, place_width, severity_width, color))
    if lines:
        lines.append("")
    lines.append(agents_line(snap, width))  # which agents the findings are for, and why
    lines.extend(_summary_lines(snap, findings, width, color))
    return "\n".join(lines) + "\n"


_PASSED = "All checks passed"


def _summary_lines(
    snap: Snapshot, findings: list[Finding], width: int | None, color: bool
) -> list[str]:
    lines: list[str] = []
    for line in summary(snap, findings):
        lines.extend(
            textwrap.wrap(line, width, break_long_words=False, break_on_hyphens=False)
            if width else [line]
        )
    if color and lines and lines[0].startswith(_PASSED):
        lines[0] = styled(_PASSED, "green", color) + lines[0][len(_PASSED):]
    return lines


def _by_file(findings: Iterable[Finding]) -> list[tuple[str, list[Finding]]]:
    groups: dict[str, list[Finding]] = {}
    for finding in sorted(findings, key=Finding.sort_key):
        groups.setdefault(finding.path, []).append(finding)
    return sorted(groups.items())


def _place(finding: Finding) -> str:
    return f"{finding.span.start.line + 1}:{finding.span.start.col + 1}"


def _rows(
    group: list[Finding], width: int | None, place_width: int, severity_width: int,
    color: bool = False,
) -> list[str]:
    hang = " " * (2 + place_width + 2)
    out: list[str] = []
    for finding in group:
        place = _place(finding)
        mark = f" {FIXABLE}" if safe_fix(finding) is not None else ""
        head = (
            f"  {place:>{place_width}}  {finding.severity:<{severity_width}}  "
            f"{finding.code}{mark}  "
        )
        message = " ".join(terminal_text(finding.message).split())
        # the row's head in colour: laid out plain, so the widths are the characters shown
        shown_head = (
            f"  {place:>{place_width}}  "
            + styled(finding.severity, SEVERITY_STYLE.get(finding.severity, "bold"), color)
            + " " * (severity_width - len(finding.severity))
            + f"  {styled(finding.code, 'bold', color)}"
            + (f" {styled(FIXABLE, 'cyan', color)}" if mark else "")
            + "  "
        )
        if width is None:
            out.append(shown_head + message)
            continue
        # a word no line can hold (a long path) loses its middle rather than break
        message = fit_words(message, width - len(hang))
        first_word = message.split(" ", 1)[0]
        if len(head) + len(first_word) > width:
            # not even the first word fits beside the row: the message starts below it
            out.append(shown_head.rstrip())
            head = shown_head = hang
        wrapped = (
            textwrap.wrap(
                message,
                width=width,
                initial_indent=head,
                subsequent_indent=hang,
                break_long_words=False,
                break_on_hyphens=False,
            )
            or [head.rstrip()]
        )
        out.append(shown_head + wrapped[0][len(head):] if wrapped[0].startswith(head)
                   else shown_head.rstrip())
        out.extend(wrapped[1:])
    return out


def _plural(count: int, word: str) -> str:
    if word in ("information",):
        return f"{count} {word}"
    return f"{count} {word}{'s' if count != 1 else ''}"


def summary(snap: Snapshot, findings: list[Finding]) -> list[str]:
    """`Found 12 findings (3 errors, 9 warnings) in 5 of 40 files.` and, when some can be
    fixed, `[*] 4 fixable with `rulemap check --fix`.`"""
    checked = checked_count(snap)
    if not findings:
        return [
            f"All checks passed: no findings in {_plural(checked, 'file')} "
            "(instruction files, rules and imports)."
        ]
    counts = [
        _plural(n, severity)
        for severity in SEVERITIES
        if (n := sum(1 for f in findings if f.severity == severity))
    ]
    with_findings = len({f.path for f in findings})
    out = [
        f"Found {_plural(len(findings), 'finding')} ({', '.join(counts)}) in "
        f"{with_findings} of {_plural(max(checked, with_findings), 'file')}."
    ]
    fixable = sum(1 for f in findings if safe_fix(f) is not None)
    if fixable:
        out.append(f"{FIXABLE} {fixable} fixable with `rulemap check --fix`.")
    return out


def statistics(
    snap: Snapshot, findings: list[Finding], width: int | None = None, color: bool = False
) -> str:
    """Findings counted per code, most first (ruff's `--statistics`):
    `   12  import-missing  [*]  what the code means` (its meaning shortened at a word to
    `width`), then the summary."""
    counts: dict[str, int] = {}
    fixable: set[str] = set()
    for finding in findings:
        counts[finding.code] = counts.get(finding.code, 0) + 1
        if safe_fix(finding) is not None:
            fixable.add(finding.code)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    lines: list[str] = []
    if rows:
        count_width = max(len(str(n)) for _, n in rows)
        code_width = max(len(code) for code, _ in rows)
        for code, n in rows:
            mark = FIXABLE if code in fixable else " " * len(FIXABLE)
            about = registered.summary if (registered := check(code)) is not None else ""
            head = f"  {n:>{count_width}}  {code:<{code_width}}  {mark}  "
            if width is not None and len(head + about) > width:
                about = _shortened(about, width - len(head))
            shown_head = (
                f"  {n:>{count_width}}  {styled(code, 'bold', color)}"
                + " " * (code_width - len(code))
                + f"  {styled(mark, 'cyan', color) if mark.strip() else mark}  "
            )
            lines.append((shown_head + about).rstrip())
        lines.append("")
    lines.extend(_summary_lines(snap, findings, width, color))
    return "\n".join(lines) + "\n"


def _shortened(text: str, room: int) -> str:
    """`text` in at most `room` characters, cut after a whole word and marked `…`."""
    if len(text) <= room:
        return text
    cut = text[: max(room - 1, 0)]
    if " " in cut and not text[len(cut)].isspace():
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip() + "…" if cut.strip() else ""
