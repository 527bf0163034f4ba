"""Hover on a repository path an instruction file names (`` `src/api.ts` ``, `[x](docs/a.md)`,
`[x](mdc:path)`, an `@` mention its readers do not import): what it resolves to — the file or
folder — or that it names nothing, and where it moved when git or a file of the same name
says (`stale-reference`, docs/checks.md)."""

from __future__ import annotations

from lsprotocol import types

from rulemap.host import Snapshot
from rulemap.host.text import Encoding
from rulemap.lsp.convert import to_range
from rulemap.lsp.features._util import code, link
from rulemap.model import Document, Pos


def reference_hover(
    snap: Snapshot, key: str, doc: Document, at: Pos, encoding: Encoding
) -> types.Hover | None:
    """The hover of the path under `at` in `key`, or None when there is none."""
    found = snap.path_reference_at(key, at)
    if found is None:
        return None
    resolution, moved = found
    ref = resolution.ref
    head = f"**{code(ref.written)}**"
    if resolution.found:
        target = resolution.found
        kind = "folder" if snap.files_under(target.rstrip("/") + "/") else "file"
        body = f"{head} → {link(snap, target) if kind == 'file' else code(target)} ({kind})"
    elif resolution.found == "":
        return None  # not a path the workspace is asked about
    else:
        places = " or ".join(code(p) for p in resolution.candidates) or "the workspace"
        body = f"{head}\n\n✗ no such file or folder (looked for {places})"
        if moved is not None:
            body += f"; moved to {link(snap, moved)}?"
    value = types.MarkupContent(kind=types.MarkupKind.Markdown, value=body)
    return types.Hover(contents=value, range=to_range(doc.lines, ref.span, encoding))
