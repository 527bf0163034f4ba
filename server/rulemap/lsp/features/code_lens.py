"""Code lenses on instruction files and rules: for how many files they load, and their size."""

from __future__ import annotations

from lsprotocol import types

from rulemap import analysis
from rulemap.compare import short_amount, text_size
from rulemap.lsp.features._util import (
    import_graph,
    importers,
    is_markdown,
    never_raise,
    plural,
    readable_doc,
    uri_of,
    zero_range,
)
from rulemap.model import Document
from rulemap.workspace import Workspace

SHOW_REFERENCES = "rulemap.showReferences"


@never_raise(list)
def code_lenses(
    ws: Workspace, key: str, command: str | None = SHOW_REFERENCES, profile: str | None = None
) -> list[types.CodeLens]:
    """One lens on line 0: "loaded for 1,204 files · 3.1k chars", "matches 37 files · 812
    chars", "imported by 2 files · 640 chars", or why the file never loads.

    With `command`, the lens runs it with arguments `[uri, {"line": 0, "character": 0}]` (the
    client shows `textDocument/references` there); with None it is a title only. `profile`
    (None: the workspace's) is the agent whose loading, glob dialect and size unit it shows.
    """
    if not is_markdown(ws, key):
        return []
    doc = ws.document(key)
    title: str | None
    if doc.unreadable:
        title = f"never loaded: {doc.unreadable}"
    elif ws.is_rule(key):
        title = _rule_title(ws, key, profile)
    elif ws.is_instruction(key):
        title = _instruction_title(ws, key, profile)
    else:
        title = None
    readable = readable_doc(ws, key)
    count = len(importers(ws, key))
    if title is None:
        if not count and key not in import_graph(ws).imported:
            return []
        title = f"imported by {plural(count, 'file')}"
        if readable is not None:
            title += f" · {_size(ws, readable, profile)}"
    elif count:
        title += f" · imported by {plural(count, 'file')}"
    lens_command = None
    if command:
        lens_command = types.Command(
            title=title, command=command, arguments=[uri_of(ws, key), {"line": 0, "character": 0}]
        )
    else:
        lens_command = types.Command(title=title, command="")
    return [types.CodeLens(range=zero_range(), command=lens_command)]


def _size(ws: Workspace, doc: Document, profile: str | None) -> str:
    """The file's size in the agent's unit: "3.1k chars", "812 bytes", "45k tokens"."""
    unit = analysis.budget_of(ws, profile).unit
    return short_amount(text_size(doc.brought, unit), unit)


def _rule_title(ws: Workspace, rule: str, profile: str | None) -> str:
    doc = ws.document(rule)
    if doc.rule_skip:
        return f"never loaded: {doc.rule_skip}"
    size = _size(ws, doc, profile)
    # the agent's verdict, in its glob dialect ("matches 3 files")
    status = analysis.load_status(ws, rule, profile)
    if not status.loads and not status.scoped:
        return f"never loaded: {status.why_not} · {size}"
    if status.scoped:
        return f"matches {plural(status.files, 'file')} · {size}"
    return f"loaded for every file ({status.files:,}) · {size}"


def _instruction_title(ws: Workspace, key: str, profile: str | None) -> str:
    size = _size(ws, ws.document(key), profile)
    status = analysis.load_status(ws, key, profile)
    if status.loads:
        return f"loaded for {plural(status.files, 'file')} · {size}"
    if status.why_not is None:
        return size
    return f"never loaded: {status.why_not} · {size}"
