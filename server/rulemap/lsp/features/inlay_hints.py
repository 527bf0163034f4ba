"""Inlay hints after each `@import`: the size of what it brings, or why it brings nothing."""

from __future__ import annotations

from lsprotocol import types

from rulemap import analysis
from rulemap.compare import Unit, amount, short_amount, text_size
from rulemap.lsp.convert import to_pos, to_range
from rulemap.lsp.features._util import is_markdown, never_raise, readable_doc
from rulemap.model import ImportStatus, Resolved, Span
from rulemap.text.positions import Encoding
from rulemap.workspace import Workspace

_STATUS_LABEL = {
    ImportStatus.MISSING: "missing",
    ImportStatus.DIRECTORY: "directory",
    ImportStatus.OUTSIDE: "outside workspace",
    ImportStatus.HOME: "home, skipped",
}


@never_raise(list)
def inlay_hints(
    ws: Workspace,
    key: str,
    range_: types.Range | None = None,
    encoding: Encoding = "utf-16",
    profile: str | None = None,
) -> list[types.InlayHint]:
    """A hint after every import in `range_` (all when None): "812 chars", "missing", …;
    sizes in the unit of `profile`'s budget (None: the workspace's agent): "812 bytes"."""
    if not is_markdown(ws, key):
        return []
    doc = readable_doc(ws, key)
    if doc is None:
        return []
    first, last = 0, len(doc.lines) - 1
    if range_ is not None:
        first = to_pos(doc.lines, range_.start, encoding).line
        last = to_pos(doc.lines, range_.end, encoding).line
    unit: Unit = analysis.budget_of(ws, profile).unit
    out: list[types.InlayHint] = []
    for ref, resolved in ws.imports(key):
        if not first <= ref.span.end.line <= last:
            continue
        label, tooltip = _label(ws, resolved, unit)
        end = to_range(doc.lines, Span(ref.span.end, ref.span.end), encoding).end
        out.append(types.InlayHint(position=end, label=label, tooltip=tooltip, padding_left=True))
    return out


def _label(ws: Workspace, resolved: Resolved, unit: Unit) -> tuple[str, str]:
    if resolved.status is not ImportStatus.OK:
        return _STATUS_LABEL[resolved.status], f"{resolved.target}: not loaded"
    target = ws.document(resolved.target)
    if target.unreadable:
        return "unreadable", f"{resolved.target}: {target.unreadable}"
    size = text_size(target.brought, unit)
    return short_amount(size, unit), f"{resolved.target}: {amount(size, unit)}"
