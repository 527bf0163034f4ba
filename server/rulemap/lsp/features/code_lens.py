"""Code lenses on instruction files and rules: for how many files they load, and their size."""

from __future__ import annotations

from lsprotocol import types

from rulemap import analysis
from rulemap.lsp.features._util import (
    import_graph,
    importers,
    is_markdown,
    never_raise,
    plural,
    readable_doc,
    short_chars,
    uri_of,
    zero_range,
)
from rulemap.workspace import Workspace

SHOW_REFERENCES = "rulemap.showReferences"


@never_raise(list)
def code_lenses(
    ws: Workspace, key: str, command: str | None = SHOW_REFERENCES
) -> list[types.CodeLens]:
    """One lens on line 0: "loaded for 1,204 files · 3.1k chars", "matches 37 files · 812
    chars", "imported by 2 files · 640 chars", or why the file never loads.

    With `command`, the lens runs it with arguments `[uri, {"line": 0, "character": 0}]` (the
    client shows `textDocument/references` there); with None it is a title only.
    """
    if not is_markdown(ws, key):
        return []
    doc = ws.document(key)
    title: str | None
    if doc.unreadable:
        title = f"never loaded: {doc.unreadable}"
    elif ws.is_rule(key):
        title = _rule_title(ws, key)
    elif ws.is_instruction(key):
        title = _instruction_title(ws, key)
    else:
        title = None
    readable = readable_doc(ws, key)
    count = len(importers(ws, key))
    if title is None:
        if not count and key not in import_graph(ws).imported:
            return []
        title = f"imported by {plural(count, 'file')}"
        if readable is not None:
            title += f" · {short_chars(readable.chars)}"
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


def _rule_title(ws: Workspace, rule: str) -> str:
    doc = ws.document(rule)
    if doc.rule_skip:
        return f"never loaded: {doc.rule_skip}"
    size = short_chars(doc.chars)
    status = analysis.load_status(ws, rule)
    if not status.loads and not status.scoped:
        return f"never loaded: {status.why_not} · {size}"
    if status.scoped:
        return f"matches {plural(status.files, 'file')} · {size}"
    return f"loaded for every file ({status.files:,}) · {size}"


def _instruction_title(ws: Workspace, key: str) -> str:
    size = short_chars(ws.document(key).chars)
    status = analysis.load_status(ws, key)
    if status.loads:
        return f"loaded for {plural(status.files, 'file')} · {size}"
    if status.why_not is None:
        return size
    return f"never loaded: {status.why_not} · {size}"
