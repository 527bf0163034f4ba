"""References: who imports an instruction file, which files a rule (or one glob) matches."""

from __future__ import annotations

from lsprotocol import types

from rulemap.lsp.features._util import (
    core_pos,
    file_location,
    glob_at,
    import_at,
    importers,
    is_markdown,
    never_raise,
    readable_doc,
    span_location,
)
from rulemap.text.positions import Encoding
from rulemap.workspace import Workspace


@never_raise(list)
def references(
    ws: Workspace,
    key: str,
    pos: types.Position,
    encoding: Encoding = "utf-16",
    limit: int = 200,
) -> list[types.Location]:
    """
    - on an `@import`: every import of the same target (its importers);
    - on a `paths` glob: the files that glob matches;
    - elsewhere in a rule: its importers, then the files it matches;
    - elsewhere in an instruction file or an imported file: the imports that point at it;
    - in any other file: the `paths` globs of the rules that match it.
    At most `limit` locations.
    """
    limit = max(0, limit)
    if not is_markdown(ws, key):
        return _matching_globs(ws, key, encoding)[:limit]
    doc = readable_doc(ws, key)
    at = core_pos(doc, pos, encoding) if doc is not None else None
    if doc is not None and at is not None:
        found = import_at(ws, key, at)
        if found is not None:
            return _importer_locations(ws, found[1].target, encoding, limit)
        if ws.is_rule(key):
            glob = glob_at(doc, at)
            if glob is not None and glob.error is None:
                pattern = glob.pattern.lstrip("!")
                return [file_location(ws, m) for m in ws.glob_matches(key, pattern, limit)][:limit]
    out = _importer_locations(ws, key, encoding, limit)
    if ws.is_rule(key) and ws.is_scoped(key):
        out.extend(file_location(ws, m) for m in ws.rule_matches(key)[: max(0, limit - len(out))])
    return out[:limit]


def _importer_locations(
    ws: Workspace, target: str, encoding: Encoding, limit: int
) -> list[types.Location]:
    out: list[types.Location] = []
    for importer, ref in importers(ws, target):
        if len(out) >= limit:
            break
        out.append(span_location(ws, importer, ref.span, encoding))
    return out


def _matching_globs(ws: Workspace, key: str, encoding: Encoding) -> list[types.Location]:
    if key.startswith("/"):
        return []
    out: list[types.Location] = []
    for rule, pattern in ws.rules_for_file(key):
        doc = ws.document(rule)
        glob = next((g for g in doc.globs or [] if g.pattern == pattern), None)
        if glob is not None:
            out.append(span_location(ws, rule, glob.span, encoding))
        else:
            out.append(file_location(ws, rule))
    return out
