"""`rulemap check --fix` and `--diff`: the edge that reads, edits and writes files.

The edits come from the core (`rulemap.fixes`: which fixes are safe, the edited text). Here
they are applied in memory through an `OverlayReader` and re-checked, pass after pass, until
no safe fix is left (a fix can uncover another; an edit that overlapped another waits for the
next pass). Only then is anything written, each file whole, through `readers/safe_write.py`,
which writes a file only while it still holds the bytes read here, keeps its mode, owner and
hard links, and refuses a path outside the workspace, a symlink, a read-only file and anything
not a regular file. `--diff` prints the same edits as a unified diff and writes nothing.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from rulemap import analysis, fixes
from rulemap.analysis import ReaderFactory
from rulemap.host.commands import OpenWorkspace
from rulemap.model import Finding
from rulemap.readers import safe_write
from rulemap.readers.base import ReadError, WalkingReader
from rulemap.readers.overlay import OverlayReader

MAX_PASSES = 10  # each pass fixes what the last one uncovered; real files need one or two


def overlaid(factory: ReaderFactory, root: str) -> ReaderFactory:
    """`factory`, with room in the workspace's reader for edited texts not written yet."""

    def build(at: str, allowed: tuple[str, ...]) -> WalkingReader:
        reader = factory(at, allowed)
        return OverlayReader(reader) if at == root else reader

    return build


@dataclass
class FixResult:
    original: dict[str, str] = field(default_factory=dict)  # key -> text as on disk
    edited: dict[str, str] = field(default_factory=dict)  # key -> text after the fixes
    fixed: list[tuple[Finding, str]] = field(default_factory=list)  # (finding, fix title)
    refused: dict[str, str] = field(default_factory=dict)  # key -> why it is not edited
    snapshots: dict[str, safe_write.Snapshot] = field(default_factory=dict)  # key -> as read

    @property
    def changed(self) -> list[str]:
        return sorted(k for k, text in self.edited.items() if text != self.original[k])


def fix_in_memory(ws: OpenWorkspace, findings: list[Finding]) -> tuple[list[Finding], FixResult]:
    """Apply the safe fixes of `findings` to the workspace's overlay until none is left; the
    findings of the fixed texts and what was done."""
    reader = ws.reader
    assert isinstance(reader, OverlayReader), "open the workspace with `overlaid` readers"
    result = FixResult()
    # an edit is asked for again while its finding remains: it did not fix it. Each kind of
    # edit is applied again only while the findings asking for it grow fewer, so a fix that
    # does not cure its finding is made once, never once per pass
    asked_before: dict[tuple[str, str, str, str], int] = {}
    for _ in range(MAX_PASSES):
        asked = _asked(findings)
        changed: set[str] = set()
        for path, edits in fixes.plan(findings).items():
            fresh = [
                e for e in edits
                if (key := _edit_key(e)) not in asked_before or asked[key] < asked_before[key]
            ]
            text = _text_of(ws, path, result) if fresh else None
            if text is None:
                continue
            new_text, applied = fixes.apply(text, fresh)
            if not applied or new_text == text:
                continue
            asked_before.update((_edit_key(e), asked[_edit_key(e)]) for e in applied)
            result.edited[path] = new_text
            result.fixed.extend((f, e.title) for e in applied for f in e.findings)
            reader.set_buffer(ws.abs(path), new_text)
            changed.add(path)
        if not changed:
            break
        ws.update(changed=changed)
        findings = analysis.check(ws)
    return findings, result


def _edit_key(edit: fixes.Edit) -> tuple[str, str, str, str]:
    return (edit.path, edit.findings[0].code, edit.title, edit.new_text)


def _asked(findings: list[Finding]) -> dict[tuple[str, str, str, str], int]:
    """How many places ask for each kind of edit (same file, code, title and new text)."""
    places: dict[tuple[str, str, str, str], set[object]] = {}
    for finding in findings:
        fix = fixes.safe_fix(finding)
        if fix is not None:
            key = (fix.path, finding.code, fix.title, fix.new_text)
            places.setdefault(key, set()).add(fix.span)
    return {key: len(spans) for key, spans in places.items()}


def _text_of(ws: OpenWorkspace, path: str, result: FixResult) -> str | None:
    """The current text of `path` to edit (with its byte order mark), or None when it may
    not be edited (the reason kept in `result.refused`)."""
    if path in result.edited:
        return result.edited[path]
    if path in result.refused:
        return None
    why = None
    if ws.identity(path) != f"{ws.real_root}/{path}":
        why = f"{path} is a symlink or lies behind one; edit the file it points to"
    else:
        try:
            snapshot = safe_write.read_for_edit(ws.root, path)
            text = snapshot.data.decode("utf-8")
        except (safe_write.WriteRefused, ReadError) as exc:
            why = str(exc) if isinstance(exc, safe_write.WriteRefused) else f"{path}: {exc}"
        except UnicodeDecodeError:
            why = f"{path} is not valid UTF-8"
        else:
            if text.removeprefix("\ufeff") != ws.document(path).text:
                why = f"{path} changed while it was checked; run the check again"
    if why is not None:
        result.refused[path] = why
        return None
    result.original[path] = text
    result.snapshots[path] = snapshot
    return text


def write(ws: OpenWorkspace, result: FixResult) -> list[str]:
    """Write every changed file; the keys written (a refusal lands in `result.refused`)."""
    written = []
    for path in result.changed:
        try:
            safe_write.replace(ws.root, result.snapshots[path], result.edited[path].encode("utf-8"))
        except safe_write.WriteRefused as exc:
            result.refused[path] = str(exc)
            continue
        written.append(path)
    return written


def diff(result: FixResult) -> str:
    return "".join(
        fixes.unified_diff(path, result.original[path], result.edited[path])
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
    ws: OpenWorkspace,
    findings: list[Finding],
    preview: bool,
    reopen: Callable[[], OpenWorkspace],
) -> tuple[OpenWorkspace, list[Finding], list[str], FixResult]:
    """Fix (or, `preview`, only diff) and return the workspace and findings to report, the
    lines that say what was done, and what was done. `reopen` opens the workspace afresh, for
    the re-check of what was written."""
    _, result = fix_in_memory(ws, findings)
    if preview:
        refusals(result)
        # the files' own bytes (UTF-8; a name that is not UTF-8 as its exact bytes), whatever
        # the locale says stdout can encode: a patch with a replaced character would not apply
        sys.stdout.flush()
        sys.stdout.buffer.write(diff(result).encode("utf-8", "surrogateescape"))
        sys.stdout.buffer.flush()
        return ws, findings, report(result, result.changed, verb="Would fix"), result
    written = write(ws, result)
    refusals(result)
    if not written:
        return ws, findings, report(result, written), result
    fresh = reopen()
    return fresh, analysis.check(fresh), report(result, written), result


def _not_fixable_in(findings: list[Finding], refused: frozenset[str]) -> list[Finding]:
    """The findings as the text report shows them after `--fix` refused files: a fix that
    `--fix` would refuse again is not marked `[*]` nor counted fixable (the JSON and SARIF
    formats keep every fix: an editor may still apply it)."""
    return [
        dataclasses.replace(f, fixes=[]) if (fix := fixes.safe_fix(f)) is not None
        and fix.path in refused else f
        for f in findings
    ]


def run_check(
    opener: Callable[[bool], OpenWorkspace],
    output: str,
    fix: bool,
    preview: bool,
    statistics: bool,
) -> int:
    """`rulemap check` with `--fix`, `--diff` or `--statistics`. `opener(editable)` opens the
    workspace (editable: over an overlay reader)."""
    from rulemap.cli.check_text import output_width, render
    from rulemap.cli.check_text import statistics as per_code
    from rulemap.cli.formats import FORMATTERS
    from rulemap.cli.main import UsageError

    if output != "text" and (preview or statistics):
        flag = "--diff" if preview else "--statistics"
        raise UsageError(f"{flag} prints text; leave out --format {output}")
    ws = opener(fix or preview)
    findings = analysis.check(ws)
    said: list[str] = []
    refused: frozenset[str] = frozenset()
    if fix or preview:
        ws, findings, said, result = run(ws, findings, preview, lambda: opener(False))
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
        shown = _not_fixable_in(findings, refused) if refused else findings
        if statistics:
            sys.stdout.write(per_code(ws, shown, output_width()))
        elif output == "text":
            sys.stdout.write(render(ws, shown, output_width()))
        else:
            sys.stdout.write(FORMATTERS[output](ws, findings))
    # a file --fix may not write keeps findings it was asked to fix: never a silent success
    return 1 if refused or any(f.severity == "error" for f in findings) else 0
