"""The reach of an import: whether a real load reads it, at which hop, or why not.

Why here: the answer joins three engine facts — which target's load includes the importer
(`analysis.load_target`), what the agent's load for it holds (read, cut, skipped, left out,
imports not followed) and the import graph's hop count against `maxImportDepth` — and the
editor only words it. `ImportReach` is that verdict as plain data.
"""

from __future__ import annotations

from typing import Literal

from rulemap.host.snapshot import Snapshot
from rulemap.model import Explanation, ImportRef, LoadedFile
from rulemap.records import record

ReachKind = Literal[
    "read",  # `entry` is the imported file in `explanation`
    "skipped",  # the load skipped the import: `why`
    "left-out",  # the target is left out of the load (over its limit)
    "importer-left-out",  # the importer itself is left out
    "not-followed",  # the importer loads, but this agent does not read imports
    "graph",  # no load tells: the import graph's `hop` (None: nothing that loads imports it)
]


@record(frozen=True)
class ImportReach:
    """How the `@import` of a target at one line of an importer is reached.

    `importer_loads` is False when no load from the cwd reads the importer (then only the
    graph's `hop` is known). `explanation` is the load consulted (None when there is none).
    """

    kind: ReachKind
    importer_loads: bool
    explanation: Explanation | None = None
    entry: LoadedFile | None = None
    why: str | None = None
    hop: int | None = None  # import hops to the target in the graph (the importer's + 1)
    max_depth: int = 0


def import_reach(snap: Snapshot, importer: str, ref: ImportRef, target: str) -> ImportReach:
    """Where the import `ref` of `target` in `importer` stands in a real load of the agent."""
    line = ref.span.start.line
    found, load_for = snap.load_target(importer)
    if not found:
        return _graph(snap, importer, importer_loads=False)
    explanation = snap.explain(load_for)
    for entry in explanation.files:
        if entry.imported_by == importer and entry.import_line == line:
            return ImportReach("read", True, explanation, entry=entry)
    for skip in explanation.skipped:
        if skip.importer == importer and skip.line == line:
            return ImportReach("skipped", True, explanation, why=skip.why)
    if target in explanation.left_out:
        return ImportReach("left-out", True, explanation)
    if importer in explanation.left_out:
        return ImportReach("importer-left-out", True, explanation)
    if any(entry.path == importer for entry in explanation.files):
        return ImportReach("not-followed", True, explanation)
    return _graph(snap, importer, importer_loads=True, explanation=explanation)


def _graph(
    snap: Snapshot, importer: str, importer_loads: bool, explanation: Explanation | None = None
) -> ImportReach:
    hop = snap.import_hops(importer)
    return ImportReach(
        "graph", importer_loads, explanation, hop=None if hop is None else hop + 1,
        max_depth=snap.max_import_depth(),
    )
