"""Code lenses on instruction files and rules: for how many files they load, and their size."""

from __future__ import annotations

from lsprotocol import types

from rulemap.lsp.features._util import (
    import_graph,
    importers,
    instruction_dir,
    is_markdown,
    never_raise,
    plural,
    readable_doc,
    short_chars,
    uri_of,
    zero_range,
)
from rulemap.profiles.base import directory_chain
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
    config = ws.config
    chain = directory_chain(config.cwd)
    owner = ws.rule_owner(rule) or ""
    size = short_chars(doc.chars)
    if doc.rule_skip:
        return f"never loaded: {doc.rule_skip}"
    if not config.rules:
        return f"never loaded: rules are off (`rules = false`) · {size}"
    if owner not in chain:
        return f"never loaded: `{owner}/.claude/rules` is below the cwd · {size}"
    if ws.is_scoped(rule):
        return f"matches {plural(len(ws.rule_matches(rule)), 'file')} · {size}"
    return f"loaded for every file ({len(ws.files):,}) · {size}"


def _instruction_title(ws: Workspace, key: str) -> str:
    doc = ws.document(key)
    config = ws.config
    chain = directory_chain(config.cwd)
    cwd_dir = chain[-1]
    size = short_chars(doc.chars)
    directory = instruction_dir(ws, key)
    if directory is None:
        return size
    if directory in chain:
        return f"loaded for {plural(len(ws.files), 'file')} · {size}"
    below = not cwd_dir or directory.startswith(cwd_dir + "/")
    if config.nested and below:
        return f"loaded for {plural(len(ws.files.under(directory + '/')), 'file')} · {size}"
    if not below:
        return f"never loaded: `{directory}/` is outside the cwd · {size}"
    return f"never loaded: nested files are off (`nested = false`) · {size}"
