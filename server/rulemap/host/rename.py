"""Renames as plain edits: which `@import`s must change when files or directories move.

Why here: how an import is written and resolved — relative to its importer, `./`, absolute,
`~/` in the home directory, escaped spaces, a file reached under several names through
symlinks — is the engine's knowledge; the language server's `workspace/willRenameFiles` only
turns these `TextChange`s into a WorkspaceEdit.

The edits apply to the documents at their old locations, before the rename happens (that is
what "will rename" means), so every edit names the importer's current key.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from rulemap.host.fixes import TextChange
from rulemap.host.snapshot import Snapshot
from rulemap.model import ImportRef, ImportStatus, Resolved


def import_rewrites(snap: Snapshot, renames: Sequence[tuple[str, str]]) -> list[TextChange]:
    """Edits for `renames` ((old key, new key) of files or directories): imports of a moved
    file (or of a file inside a moved directory) are rewritten, and so are relative imports
    inside moved files; each keeps the style it was written in. Empty when no import
    changes."""
    moves = [(_clean(old), _clean(new)) for old, new in renames if _clean(old) and _clean(new)]
    moves = [(old, new) for old, new in moves if old != new]
    if not moves:
        return []

    def moved(key: str) -> str:
        for old, new in moves:
            if key == old:
                return new
            if key.startswith(old + "/"):
                return new + key[len(old) :]
        return key

    out: list[TextChange] = []
    for importer in _one_name_per_file(snap, snap.import_documents()):
        new_importer = moved(importer)
        doc = None
        for ref, resolved in snap.imports(importer):
            if resolved.status is not ImportStatus.OK:
                continue
            new_target = moved(resolved.target)
            if new_target == resolved.target and new_importer == importer:
                continue
            text = _rewrite(snap, ref, resolved, new_importer, new_target)
            if text is None or text == ref.raw:
                continue
            doc = doc or snap.readable(importer)
            if doc is None:
                break
            out.append(TextChange(importer, snap.uri(importer), ref.span, "@" + text, doc.lines))
    return out


def _one_name_per_file(snap: Snapshot, documents: Sequence[str]) -> list[str]:
    """One key per real file inside the workspace: a file reached under several names
    (symlinks) is edited once — several edits of one file, each computed for another name,
    would break it — under its own name when that is a document, else its first alias. A file
    whose real path is outside the workspace is not edited at all."""
    chosen: dict[str, str] = {}
    for key in sorted(documents):
        real = snap.editable_key(key)
        if real is None:
            continue
        if real not in chosen or key == real:
            chosen[real] = key
    return sorted(chosen.values())


def _clean(key: str) -> str:
    key = posixpath.normpath(key) if key else ""
    return "" if key in (".", "") else key


def _rewrite(
    snap: Snapshot, ref: ImportRef, resolved: Resolved, new_importer: str, new_target: str
) -> str | None:
    """The new raw path of `ref`, written as it was (None: leave it alone)."""
    path = ref.path
    if path.startswith("~"):
        home = snap.home
        if home is None or new_target.startswith("/"):
            return None
        absolute = snap.abs(new_target)
        if not absolute.startswith(home.rstrip("/") + "/"):
            return None
        written = "~/" + absolute[len(home.rstrip("/")) + 1 :]
    elif path.startswith("/"):
        if new_target == resolved.target:
            return None  # an absolute import does not change when its importer moves
        written = snap.abs(new_target)
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
    return written.replace(" ", "\\ ")
