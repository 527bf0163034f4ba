"""Code lenses on instruction files and rules: for how many files they load, and their size."""

from __future__ import annotations

from lsprotocol import types

from rulemap.host import Snapshot
from rulemap.host.budgets import short_amount, text_size
from rulemap.lsp.features._util import (
    never_raise,
    plural,
    readable_doc,
    zero_range,
)
from rulemap.model import Document

SHOW_REFERENCES = "rulemap.showReferences"


@never_raise(list)
def code_lenses(
    snap: Snapshot, key: str, command: str | None = SHOW_REFERENCES
) -> list[types.CodeLens]:
    """One lens on line 0: "loaded for 1,204 files · 3.1k chars", "matches 37 files · 812
    chars", "imported by 2 files · 640 chars", or why the file never loads.

    With `command`, the lens runs it with arguments `[uri, {"line": 0, "character": 0}]` (the
    client shows `textDocument/references` there); with None it is a title only. The
    snapshot's agent is the one whose loading, glob dialect and size unit it shows.
    """
    if not snap.is_markdown(key):
        return []
    doc = snap.document(key)
    title: str | None
    if doc.unreadable:
        title = f"never loaded: {doc.unreadable}"
    elif snap.is_rule(key):
        title = _rule_title(snap, key)
    elif snap.is_instruction(key):
        title = _instruction_title(snap, key)
    else:
        title = None
    readable = readable_doc(snap, key)
    count = len(snap.importers(key))
    if title is None:
        if not count and not snap.is_imported(key):
            return []
        title = f"imported by {plural(count, 'file')}"
        if readable is not None:
            title += f" · {_size(snap, readable)}"
    elif count:
        title += f" · imported by {plural(count, 'file')}"
    lens_command = None
    if command:
        lens_command = types.Command(
            title=title, command=command, arguments=[snap.uri(key), {"line": 0, "character": 0}]
        )
    else:
        lens_command = types.Command(title=title, command="")
    return [types.CodeLens(range=zero_range(), command=lens_command)]


def _size(snap: Snapshot, doc: Document) -> str:
    """The file's size in the agent's unit: "3.1k chars", "812 bytes", "45k tokens"."""
    unit = snap.unit()
    return short_amount(text_size(doc.brought, unit), unit)


def _rule_title(snap: Snapshot, rule: str) -> str:
    doc = snap.document(rule)
    if doc.rule_skip:
        return f"never loaded: {doc.rule_skip}"
    size = _size(snap, doc)
    # the agent's verdict, in its glob dialect ("matches 3 files")
    status = snap.load_status(rule)
    if not status.loads and not status.scoped:
        read = _read_as(snap, rule)
        if read is not None:
            return read + f" · {size}"
        return f"never loaded: {status.why_not} · {size}"
    if status.scoped:
        return f"matches {plural(status.files, 'file')} · {size}"
    return f"loaded for every file ({status.files:,}) · {size}"


def _instruction_title(snap: Snapshot, key: str) -> str:
    size = _size(snap, snap.document(key))
    status = snap.load_status(key)
    if status.scoped:  # another agent's rule (Copilot's applyTo, Cursor's globs)
        return f"matches {plural(status.files, 'file')} · {size}"
    if status.loads:
        return f"loaded for {plural(status.files, 'file')} · {size}"
    read = _read_as(snap, key)
    if read is not None:
        return read + f" · {size}"
    if status.why_not is None:
        return size
    return f"never loaded: {status.why_not} · {size}"


def _read_as(snap: Snapshot, key: str) -> str | None:
    """"loaded as CLAUDE.md (a symlink to AGENTS.md) for 19 files": the agent reads the
    file's text under another name (None: it does not)."""
    from rulemap.host.aliasing import read_as

    found = read_as(snap, key)
    if found is None:
        return None
    how = "matches" if found.status.scoped else "loaded for"
    return (f"loaded as {found.through.phrase().replace('`', '')}: {how} "
            f"{plural(found.status.files, 'file')}")
