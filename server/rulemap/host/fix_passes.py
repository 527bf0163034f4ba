"""`check --fix`'s passes, in memory: the safe fixes of the findings applied to the workspace's
`OverlayReader` and re-checked, pass after pass, until no safe fix is left (a fix can uncover
another; an edit that overlapped another waits for the next pass). The edits themselves come
from `rulemap.fixes` (which fixes are safe, the edited text); the files are read for editing
through `readers/safe_write.py` (a snapshot of the bytes, so that the CLI writes a file only
while it still holds them). Nothing is written here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field

from rulemap import analysis, fixes
from rulemap.model import Finding
from rulemap.readers import safe_write
from rulemap.readers.base import ReadError
from rulemap.readers.overlay import OverlayReader
from rulemap.records import record
from rulemap.workspace import Workspace

MAX_PASSES = 10  # each pass fixes what the last one uncovered; real files need one or two


@record
class FixResult:
    original: dict[str, str] = field(default_factory=dict)  # key -> text as on disk
    edited: dict[str, str] = field(default_factory=dict)  # key -> text after the fixes
    fixed: list[tuple[Finding, str]] = field(default_factory=list)  # (finding, fix title)
    refused: dict[str, str] = field(default_factory=dict)  # key -> why it is not edited
    snapshots: dict[str, safe_write.Snapshot] = field(default_factory=dict)  # key -> as read

    @property
    def changed(self) -> list[str]:
        return sorted(k for k, text in self.edited.items() if text != self.original[k])


def fix_in_memory(
    ws: Workspace, findings: list[Finding],
    keep: Callable[[list[Finding]], list[Finding]] | None = None,
) -> tuple[list[Finding], FixResult]:
    """Apply the safe fixes of `findings` to the workspace's overlay until none is left; the
    findings of the fixed texts and what was done. `keep`: the findings each later pass may
    fix, of the whole re-check (`check PATH...` fixes only its PATHs' files)."""
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
        if keep is not None:
            findings = keep(findings)
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


def _text_of(ws: Workspace, path: str, result: FixResult) -> str | None:
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


