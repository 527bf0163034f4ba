"""References: who imports an instruction file, which files a rule (or one glob) matches."""

from __future__ import annotations

from lsprotocol import types

from rulemap.host import Snapshot
from rulemap.host.text import Encoding
from rulemap.lsp.features._util import (
    core_pos,
    file_location,
    glob_at,
    never_raise,
    readable_doc,
    span_location,
)


@never_raise(list)
def references(
    snap: Snapshot,
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
    if not snap.is_markdown(key):
        return _matching_globs(snap, key, encoding)[:limit]
    doc = readable_doc(snap, key)
    at = core_pos(doc, pos, encoding) if doc is not None else None
    if doc is not None and at is not None:
        found = snap.import_at(key, at)
        if found is not None:
            return _importer_locations(snap, found[1].target, encoding, limit)
        scoped = snap.rule_globs(key)
        if scoped is not None:
            glob = glob_at(scoped.globs, at)
            if glob is not None and glob.error is None:
                pattern = glob.pattern.lstrip("!")
                # the agent's dialect (the workspace's, walked only as far as `limit`)
                matches = (snap.matches(key, pattern) if snap.own_glob_dialect()
                           else snap.tree_matches(key, pattern, limit))[:limit]
                return [file_location(snap, m) for m in matches]
    out = _importer_locations(snap, key, encoding, limit)
    if snap.is_scoped(key):
        room = max(0, limit - len(out))
        out.extend(file_location(snap, m) for m in snap.tree_matches(key, limit=room)[:room])
    return out[:limit]


def _importer_locations(
    snap: Snapshot, target: str, encoding: Encoding, limit: int
) -> list[types.Location]:
    out: list[types.Location] = []
    for importer, ref in snap.importers(target):
        if len(out) >= limit:
            break
        out.append(span_location(snap, importer, ref.span, encoding))
    return out


def _matching_globs(snap: Snapshot, key: str, encoding: Encoding) -> list[types.Location]:
    if key.startswith("/"):
        return []
    out: list[types.Location] = []
    for rule, pattern in snap.rules_for_file(key):
        doc = snap.document(rule)
        glob = next((g for g in doc.globs or [] if g.pattern == pattern), None)
        if glob is not None:
            out.append(span_location(snap, rule, glob.span, encoding))
        else:
            out.append(file_location(snap, rule))
    return out
