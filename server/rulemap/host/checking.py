"""The checks as the language server runs them: one document at once, or the whole workspace
in the worker (`rulemap.host.findings` holds what they found). Each answers of a snapshot."""

from __future__ import annotations

from typing import Any

from rulemap.checks import Checked
from rulemap.host.cancel import CancelToken
from rulemap.host.snapshot import Snapshot, workspace_of
from rulemap.model import Finding

__all__ = ["Checked", "doc_url", "document_findings", "renames", "whole_check"]


def document_findings(snap: Snapshot, key: str) -> list[Finding]:
    """The findings of `key` that do not depend on the rest of the graph, finalized
    (suppressions, ignore globs and severity overrides applied)."""
    from rulemap import checks

    return checks.document_findings(workspace_of(snap), key)


def whole_check(snap: Snapshot, stop: CancelToken | None = None) -> Checked:
    """Every finding of the workspace (the same as `Snapshot.findings`, without touching its
    cache, which another thread may be invalidating meanwhile), and the graph-wide ones.
    `stop`: once cancelled, the check raises `Cancelled` before its next family or agent."""
    from rulemap import analysis, checks

    ws = workspace_of(snap)
    analysis.select_profiles(ws)
    return checks.run_checks_split(ws, stop.check if stop is not None else None)


def renames(snap: Snapshot) -> Any:
    """The renames git knows (in the worker: git runs there), for `AnalysisHost.keep_renames`."""
    from rulemap.checks import stale_reference

    return stale_reference.renames(workspace_of(snap))


def doc_url(code: str) -> str:
    """The documentation page of a finding's code."""
    from rulemap.checks.registry import doc_url as url

    return url(code)
