"""Running the core's checks for the server: one document at once, or the whole workspace.

The whole-workspace check answers every question but takes seconds on a big monorepo, so the
server runs it off the event loop. While it runs, an edited document gets the findings of the
per-document check families (`rulemap.checks.PER_DOCUMENT`: unreadable, empty, frontmatter,
globs, each import token) limited to it, at once; the graph-wide ones — cycles, depth, trust,
and every selected agent's own findings — stay as the last whole check gave them
(`Checked.graph`) until the next one follows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulemap import analysis, checks
from rulemap.checks import Checked
from rulemap.model import Finding

if TYPE_CHECKING:
    from rulemap.workspace import Workspace


def document_findings(ws: Workspace, key: str) -> list[Finding]:
    """The findings of `key` that do not depend on the rest of the graph, finalized
    (suppressions, ignore globs and severity overrides applied)."""
    return checks.document_findings(ws, key)


def full_findings(ws: Workspace) -> Checked:
    """Every finding of the workspace (the same as `analysis.check(ws)`, without touching its
    cache, which another thread may be invalidating meanwhile), and the graph-wide ones."""
    analysis.select_profiles(ws)
    return checks.run_checks_split(ws)
