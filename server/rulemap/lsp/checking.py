"""Running the core's checks for the server: one document at once, or the whole workspace.

The whole-workspace check (`rulemap.checks.run_checks`) answers every question but takes
seconds on a big monorepo, so the server runs it off the event loop. While it runs, an edited
document gets the findings that depend only on that document (unreadable, empty, frontmatter,
globs, and each import token) from the same check functions, limited to it, at once; the
graph-wide ones (cycles, depth, duplicates, budget) follow from the next full check.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rulemap import analysis
from rulemap.model import Finding

if TYPE_CHECKING:
    from rulemap.workspace import RuleInfo, Workspace

# Codes only the whole-graph check produces; everything else comes from document_findings.
GRAPH_CODES = frozenset({"import-cycle", "import-too-deep", "duplicate-load", "budget-overflow"})


class _OneDocument:
    """The workspace seen by the per-document check families: its lint set is one document."""

    def __init__(self, ws: Workspace, key: str):
        self._ws = ws
        self._key = key

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ws, name)

    def lint_documents(self) -> list[str]:
        return [self._key]

    @property
    def rules(self) -> list[RuleInfo]:
        return [r for r in self._ws.rules if r.path == self._key]


def document_findings(ws: Workspace, key: str) -> list[Finding]:
    """The findings of `key` that do not depend on the rest of the graph, finalized
    (suppressions, ignore globs and severity overrides applied)."""
    from rulemap.checks import files, finalize, frontmatter, imports

    view: Any = _OneDocument(ws, key)
    raw: list[Finding] = [*files.check(view), *frontmatter.check(view)]
    for ref, resolved in ws.imports(key):
        raw.extend(imports._check_token(ws, key, ref, resolved))
    return finalize(ws, raw)


def full_findings(ws: Workspace) -> list[Finding]:
    """Every finding of the workspace (the same as `analysis.check(ws)`, without touching its cache,
    which another thread may be invalidating meanwhile)."""
    from rulemap.checks import run_checks

    analysis.select_profiles(ws)
    return run_checks(ws)
