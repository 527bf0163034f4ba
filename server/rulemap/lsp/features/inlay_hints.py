"""Inlay hints after each `@import`: the size of what it brings, or why it brings nothing."""

from __future__ import annotations

from lsprotocol import types

from rulemap.host import Snapshot
from rulemap.host.budgets import Unit, amount, short_amount, text_size
from rulemap.host.text import Encoding
from rulemap.lsp.convert import to_pos, to_range
from rulemap.lsp.features._util import never_raise, readable_doc
from rulemap.model import ImportStatus, Resolved, Span

_STATUS_LABEL = {
    ImportStatus.MISSING: "missing",
    ImportStatus.DIRECTORY: "directory",
    ImportStatus.OUTSIDE: "outside workspace",
    ImportStatus.HOME: "home, skipped",
}


@never_raise(list)
def inlay_hints(
    snap: Snapshot,
    key: str,
    range_: types.Range | None = None,
    encoding: Encoding = "utf-16",
) -> list[types.InlayHint]:
    """A hint after every import in `range_` (all when None): "812 chars", "missing", …;
    sizes in the unit of the snapshot's agent's budget: "812 bytes"."""
    if not snap.is_markdown(key):
        return []
    doc = readable_doc(snap, key)
    if doc is None:
        return []
    first, last = 0, len(doc.lines) - 1
    if range_ is not None:
        first = to_pos(doc.lines, range_.start, encoding).line
        last = to_pos(doc.lines, range_.end, encoding).line
    unit: Unit = snap.unit()
    out: list[types.InlayHint] = []
    for ref, resolved in snap.imports(key):
        if not first <= ref.span.end.line <= last:
            continue
        label, tooltip = _label(snap, resolved, unit)
        end = to_range(doc.lines, Span(ref.span.end, ref.span.end), encoding).end
        out.append(types.InlayHint(position=end, label=label, tooltip=tooltip, padding_left=True))
    return out


def _label(snap: Snapshot, resolved: Resolved, unit: Unit) -> tuple[str, str]:
    if resolved.status is not ImportStatus.OK:
        return _STATUS_LABEL[resolved.status], f"{resolved.target}: not loaded"
    target = snap.document(resolved.target)
    if target.unreadable:
        return "unreadable", f"{resolved.target}: {target.unreadable}"
    size = text_size(target.brought, unit)
    return short_amount(size, unit), f"{resolved.target}: {amount(size, unit)}"
