"""Document links and go-to-definition on `@imports`."""

from __future__ import annotations

from lsprotocol import types

from rulemap.host import Snapshot
from rulemap.host.budgets import short_amount
from rulemap.host.text import Encoding
from rulemap.lsp.convert import to_range
from rulemap.lsp.features._util import (
    core_pos,
    file_location,
    never_raise,
    readable_doc,
)
from rulemap.model import ImportStatus, Pos, Span


@never_raise(list)
def document_links(
    snap: Snapshot, key: str, encoding: Encoding = "utf-16", tooltips: bool = True
) -> list[types.DocumentLink]:
    """A link on the path of every import that resolves to an existing file; with a tooltip
    naming it and its size when the client shows link tooltips (`tooltipSupport`: sending one
    to a client that did not ask for it is against the protocol)."""
    if not snap.is_markdown(key):
        return []
    doc = readable_doc(snap, key)
    if doc is None:
        return []
    out: list[types.DocumentLink] = []
    for ref, resolved in snap.imports(key):
        if resolved.status is not ImportStatus.OK:
            continue
        # the path only, without the `@`
        span = Span(Pos(ref.span.start.line, ref.span.start.col + 1), ref.span.end)
        size = ""
        if tooltips:
            target = snap.document(resolved.target)
            size = target.unreadable or short_amount(target.chars, "chars")
        out.append(
            types.DocumentLink(
                range=to_range(doc.lines, span, encoding),
                target=snap.uri(resolved.target),
                tooltip=f"Open {resolved.target} ({size})" if tooltips else None,
            )
        )
    return out


@never_raise(list)
def definition(
    snap: Snapshot, key: str, pos: types.Position, encoding: Encoding = "utf-16"
) -> list[types.Location]:
    """The file an import at `pos` points at (nothing for a missing or skipped target)."""
    if not snap.is_markdown(key):
        return []
    doc = readable_doc(snap, key)
    at = core_pos(doc, pos, encoding) if doc is not None else None
    if at is None:
        return []
    found = snap.import_at(key, at)
    if found is None or found[1].status is not ImportStatus.OK:
        return []
    return [file_location(snap, found[1].target)]
