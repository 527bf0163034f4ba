"""The findings a host holds for its folder: the last whole check's, and each edited
document's own since.

The whole-workspace check answers every question but takes seconds on a big monorepo, so the
language server runs it off the event loop (on the host's replica: `host/replica.py`). While
it runs, an edited document gets the findings of the per-document check families
(`rulemap.checks.PER_DOCUMENT`: unreadable, empty, frontmatter, globs, each import token)
limited to it, at once; the graph-wide ones — cycles, depth, trust, and every selected agent's
own findings — stay as the last whole check gave them (`Checked.graph`) until the next one
follows. `Findings.of` merges the two (`checks.merge`).
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING

from rulemap.model import Finding
from rulemap.records import record

if TYPE_CHECKING:
    from rulemap.checks import Checked


@record
class Findings:
    """Per document key: the whole check's findings as of `full_gen`, its graph-wide part, and
    the own findings of the documents changed since (`dirty`: the generation of their last
    change)."""

    full: dict[str, list[Finding]] = field(default_factory=dict)
    graph: dict[str, list[Finding]] = field(default_factory=dict)
    full_gen: int = -1
    local: dict[str, list[Finding]] = field(default_factory=dict)
    dirty: dict[str, int] = field(default_factory=dict)

    def of(self, key: str) -> list[Finding]:
        """The freshest findings of one document: the whole check's, or, for a document
        changed since, its own findings plus the graph-wide ones of the last whole check."""
        full = self.full.get(key, [])
        if self.dirty.get(key, -1) <= self.full_gen:
            return full
        local = self.local.get(key)
        if local is None:
            return full
        from rulemap.checks import merge

        # every graph-wide finding stays: a check family's, and every selected agent's own
        return merge(local, self.graph.get(key, []))

    def keys(self) -> set[str]:
        """Every key some finding points into (an imported file that closes a cycle, say)."""
        return {*self.full, *self.local}

    def changed(self, keys: set[str], generation: int) -> None:
        """`keys` changed at `generation`: their whole-check findings are stale."""
        for key in keys:
            self.dirty[key] = generation

    def keep_documents(self, lint: set[str]) -> None:
        """Forget the own findings of documents that are no longer linted."""
        for key in [k for k in self.local if k not in lint]:
            self.local.pop(key, None)

    def set_whole(self, checked: Checked, generation: int) -> None:
        """Findings of a whole-workspace check of the graph as it was at `generation`."""
        self.full, self.full_gen = _by_path(checked.all), generation
        self.graph = _by_path(checked.graph)
        for key in [k for k, g in self.dirty.items() if g <= generation]:
            self.dirty.pop(key, None)
            self.local.pop(key, None)


def _by_path(findings: list[Finding]) -> dict[str, list[Finding]]:
    grouped: dict[str, list[Finding]] = {}
    for finding in findings:
        grouped.setdefault(finding.path, []).append(finding)
    return grouped
