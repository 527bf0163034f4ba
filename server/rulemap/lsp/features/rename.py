"""`workspace/willRenameFiles`: keep every `@import` pointing at files that move.

The host decides which imports change and how they are written (`rulemap.host.rename`); here
its edits become one WorkspaceEdit keyed by each importer's current URI (the edits apply
before the rename happens: that is what "will rename" means).
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from rulemap.host import Snapshot
from rulemap.host.rename import import_rewrites
from rulemap.host.text import Encoding
from rulemap.lsp.convert import to_range
from rulemap.lsp.features._util import never_raise


@never_raise(lambda: None)
def will_rename_files(
    snap: Snapshot, renames: Sequence[tuple[str, str]], encoding: Encoding = "utf-16"
) -> types.WorkspaceEdit | None:
    """Edits for `renames` ((old key, new key) of files or directories): imports of a moved
    file (or of a file inside a moved directory) are rewritten, and so are relative imports
    inside moved files; each keeps the style it was written in (relative, `./`, absolute,
    escaped spaces). None when no import changes."""
    changes: dict[str, list[types.TextEdit]] = {}
    for change in import_rewrites(snap, renames):
        changes.setdefault(change.uri, []).append(
            types.TextEdit(range=to_range(change.lines, change.span, encoding),
                           new_text=change.new_text)
        )
    return types.WorkspaceEdit(changes=changes) if changes else None


def merged_edits(edits: Sequence[types.WorkspaceEdit]) -> types.WorkspaceEdit | None:
    """One WorkspaceEdit of each folder's (None: none): a rename that moves files of several
    workspace folders is answered once."""
    if not edits:
        return None
    if len(edits) == 1:
        return edits[0]
    changes: dict[str, list[types.TextEdit]] = {}
    document_changes: list[types.TextDocumentEdit] = []
    for edit in edits:
        for uri, items in (edit.changes or {}).items():
            changes.setdefault(uri, []).extend(items)
        document_changes.extend(edit.document_changes or [])  # type: ignore[arg-type]
    return types.WorkspaceEdit(changes=changes or None, document_changes=document_changes or None)
