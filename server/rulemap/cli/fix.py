"""`rulemap check --fix` and `--diff`: the edge that writes files and reports.

The engine applies the safe fixes in memory, pass after pass (`host/fix_passes.py`: over the
workspace's `OverlayReader`, re-checked until no safe fix is left). Only then is anything
written, each file whole (`host/fixing.py`, through `readers/safe_write.py`, which writes a
file only while it still holds the bytes read, keeps its mode, owner and hard links, and
refuses a path outside the workspace, a symlink, a read-only file and anything not a regular
file); this edge says what was done. `--diff` prints the same edits as a unified diff and
writes nothing.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable

from rulemap.host import AnalysisHost
from rulemap.host.fixing import FixResult, fix_in_memory, safe_fix, unified_diff, write
from rulemap.model import Finding


def diff(result: FixResult) -> str:
    return "".join(
        unified_diff(path, result.original[path], result.edited[path])
        for path in result.changed
    )


def report(result: FixResult, files: list[str], verb: str = "Fixed") -> list[str]:
    """`Fixed 3 findings in 2 files (2 suspicious-import, 1 instructions-shadowed):` and a
    line per finding; `No fixes to apply.` when there were none."""
    fixed = [(f, title) for f, title in result.fixed if _edited_file(f, title, result, files)]
    if not fixed:
        return [f"No fixes to apply{'' if not result.refused else ' that may be written'}."]
    codes: dict[str, int] = {}
    for finding, _ in fixed:
        codes[finding.code] = codes.get(finding.code, 0) + 1
    per_code = ", ".join(f"{n} {code}" for code, n in sorted(codes.items(), key=_most_first))
    count = f"{len(fixed)} finding{'s' if len(fixed) != 1 else ''}"
    where = f"{len(files)} file{'s' if len(files) != 1 else ''}"
    lines = [f"{verb} {count} in {where} ({per_code}):"]
    for finding, title in fixed:
        at = f"{finding.path}:{finding.span.start.line + 1}:{finding.span.start.col + 1}"
        agent = f" ({finding.profile})" if finding.profile else ""
        lines.append(f"  {at}  {finding.code}{agent}  {title}")
    return lines


def _most_first(item: tuple[str, int]) -> tuple[int, str]:
    return (-item[1], item[0])


def _edited_file(finding: Finding, title: str, result: FixResult, files: list[str]) -> bool:
    fix = next((x for x in finding.fixes if x.title == title), None)
    return fix is not None and fix.path in files


def refusals(result: FixResult) -> None:
    for why in result.refused.values():
        print(f"rulemap: not fixed: {why}", file=sys.stderr)


def run(
    host: AnalysisHost,
    findings: list[Finding],
    preview: bool,
    reopen: Callable[[], AnalysisHost],
    keep: Callable[[list[Finding]], list[Finding]] | None = None,
) -> tuple[AnalysisHost, list[Finding], list[str], FixResult]:
    """Fix (or, `preview`, only diff) and return the host and findings to report, the
    lines that say what was done, and what was done. `reopen` opens the workspace afresh, for
    the re-check of what was written; `keep`: the findings a later pass may fix (`check
    PATH...`)."""
    result = fix_in_memory(host, findings, keep)
    if preview:
        refusals(result)
        # the files' own bytes (UTF-8; a name that is not UTF-8 as its exact bytes), whatever
        # the locale says stdout can encode: a patch with a replaced character would not apply.
        # On a terminal it is read, not applied: its control characters escaped (cli/terminal.py)
        from rulemap.cli.terminal import Guarded

        if isinstance(sys.stdout, Guarded) and sys.stdout.mode == "text":
            sys.stdout.write(diff(result))
            sys.stdout.flush()  # before the summary on stderr
        else:
            sys.stdout.flush()
            sys.stdout.buffer.write(diff(result).encode("utf-8", "surrogateescape"))
            sys.stdout.buffer.flush()
        return host, findings, report(result, result.changed, verb="Would fix"), result
    written = write(host, result)
    refusals(result)
    if not written:
        return host, findings, report(result, written), result
    fresh = reopen()
    return fresh, fresh.snapshot().findings(), report(result, written), result


def _not_fixable_in(findings: list[Finding], refused: frozenset[str]) -> list[Finding]:
    """The findings as the text report shows them after `--fix` refused files: a fix that
    `--fix` would refuse again is not marked `[*]` nor counted fixable (the JSON and SARIF
    formats keep every fix: an editor may still apply it)."""
    return [
        dataclasses.replace(f, fixes=[]) if (fix := safe_fix(f)) is not None
        and fix.path in refused else f
        for f in findings
    ]


def run_check(
    opener: Callable[[bool], AnalysisHost],
    output: str,
    fix: bool,
    preview: bool,
    statistics: bool,
    suggest: bool = False,
    limit: Callable[[list[Finding]], list[Finding]] = list,
) -> int:
    """`rulemap check` with `--fix`, `--diff` or `--statistics`. `opener(editable)` opens the
    host (editable: its reader takes edited texts before they are written); `limit`: the
    findings of the files `check PATH...` names (only those are fixed and reported)."""
    from rulemap.cli.agents_line import say_agents
    from rulemap.cli.check_flags import shown as with_hints
    from rulemap.cli.check_text import output_width, render
    from rulemap.cli.check_text import statistics as per_code
    from rulemap.cli.formats import write_report
    from rulemap.cli.terminal import color_chosen, styles_pass
    from rulemap.cli.usage import UsageError

    if output != "text" and (preview or statistics):
        flag = "--diff" if preview else "--statistics"
        raise UsageError(f"{flag} prints text; leave out --format {output}")
    host = opener(fix or preview)
    findings = limit(host.snapshot().findings())
    said: list[str] = []
    refused: frozenset[str] = frozenset()
    if fix or preview:
        host, findings, said, result = run(host, findings, preview, lambda: opener(False),
                                           limit)
        findings = limit(findings)
        refused = frozenset(result.refused)
    if preview:
        print("\n".join(said), file=sys.stderr)
    elif said:
        # the findings' format stays machine-readable: what was fixed goes to stderr then
        stream = sys.stdout if output == "text" else sys.stderr
        print("\n".join(said), file=stream)
        if output == "text":
            print(file=stream)
    if not preview:
        snap = host.snapshot()
        shown = _not_fixable_in(findings, refused) if refused else findings
        if statistics:
            colored = color_chosen() and styles_pass(sys.stdout)
            sys.stdout.write(per_code(snap, shown, output_width(), colored))
        elif output == "text":
            sys.stdout.write(render(snap, with_hints(snap, shown, output, suggest), output_width()))
        else:
            write_report(snap, with_hints(snap, findings, output, suggest), output, sys.stdout)
    if preview or statistics or output == "github":  # text and JSON carry it themselves
        say_agents(host.snapshot())
    # a file --fix may not write keeps findings it was asked to fix: never a silent success
    return 1 if refused or any(f.severity == "error" for f in findings) else 0
