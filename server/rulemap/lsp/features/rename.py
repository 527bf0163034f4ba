"""`workspace/willRenameFiles`: keep every `@import` pointing at files that move.

The edits apply to the documents at their old locations, before the rename happens (that is
what "will rename" means), so every edit is keyed by the importer's current URI.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from lsprotocol import types

from rulemap.lsp.convert import to_range
from rulemap.lsp.features._util import (
    editable_key,
    escape_path,
    import_graph,
    never_raise,
    readable_doc,
    uri_of,
)
from rulemap.model import ImportRef, ImportStatus, Resolved
from rulemap.text.positions import Encoding
from rulemap.workspace import Workspace


@never_raise(lambda: None)
def will_rename_files(
    ws: Workspace, renames: Sequence[tuple[str, str]], encoding: Encoding = "utf-16"
) -> types.WorkspaceEdit | None:
    """Edits for `renames` ((old key, new key) of files or directories): imports of a moved
    file (or of a file inside a moved directory) are rewritten, and so are relative imports
    inside moved files; each keeps the style it was written in (relative, `./`, absolute,
    escaped spaces). None when no import changes."""
    moves = [(_clean(old), _clean(new)) for old, new in renames if _clean(old) and _clean(new)]
    moves = [(old, new) for old, new in moves if old != new]
    if not moves:
        return None

    def moved(key: str) -> str:
        for old, new in moves:
            if key == old:
                return new
            if key.startswith(old + "/"):
                return new + key[len(old) :]
        return key

    changes: dict[str, list[types.TextEdit]] = {}
    for importer in _one_name_per_file(ws, import_graph(ws).documents):
        new_importer = moved(importer)
        doc = None
        for ref, resolved in ws.imports(importer):
            if resolved.status is not ImportStatus.OK:
                continue
            new_target = moved(resolved.target)
            if new_target == resolved.target and new_importer == importer:
                continue
            text = _rewrite(ws, ref, resolved, new_importer, new_target)
            if text is None or text == ref.raw:
                continue
            doc = doc or readable_doc(ws, importer)
            if doc is None:
                break
            changes.setdefault(uri_of(ws, importer), []).append(
                types.TextEdit(range=to_range(doc.lines, ref.span, encoding), new_text="@" + text)
            )
    return types.WorkspaceEdit(changes=changes) if changes else None


def _one_name_per_file(ws: Workspace, documents: Sequence[str]) -> list[str]:
    """One key per real file inside the workspace: a file reached under several names
    (symlinks) is edited once — several edits of one file, each computed for another name,
    would break it — under its own name when that is a document, else its first alias. A file
    whose real path is outside the workspace is not edited at all."""
    chosen: dict[str, str] = {}
    for key in sorted(documents):
        real = editable_key(ws, key)
        if real is None:
            continue
        if real not in chosen or key == real:
            chosen[real] = key
    return sorted(chosen.values())


def _clean(key: str) -> str:
    key = posixpath.normpath(key) if key else ""
    return "" if key in (".", "") else key


def _rewrite(
    ws: Workspace, ref: ImportRef, resolved: Resolved, new_importer: str, new_target: str
) -> str | None:
    """The new raw path of `ref`, written as it was (None: leave it alone)."""
    path = ref.path
    if path.startswith("~"):
        home = ws.home
        if home is None or new_target.startswith("/"):
            return None
        absolute = ws.abs(new_target)
        if not absolute.startswith(home.rstrip("/") + "/"):
            return None
        written = "~/" + absolute[len(home.rstrip("/")) + 1 :]
    elif path.startswith("/"):
        if new_target == resolved.target:
            return None  # an absolute import does not change when its importer moves
        written = ws.abs(new_target)
    else:
        if new_target.startswith("/"):
            written = new_target
        else:
            base = posixpath.dirname(new_importer) or "."
            written = posixpath.relpath(new_target, base)
            if path.startswith("./") and not written.startswith("../"):
                written = "./" + written
    if path.endswith("/") and not written.endswith("/"):
        written += "/"
    return escape_path(written)
