"""`rulemap check`'s questions beyond the findings themselves (`Snapshot.findings`): the
did-you-means a person reads, the files the summary counts, and which fix `--fix` applies.
Plain data: `rulemap.model`'s `Finding` and `Fix`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulemap.fixes import safe_fix
from rulemap.host.snapshot import Snapshot, workspace_of

if TYPE_CHECKING:
    from rulemap.model import Finding

__all__ = ["checked_count", "safe_fix", "with_suggestions"]


def with_suggestions(snap: Snapshot, findings: list[Finding]) -> list[Finding]:
    """`findings` with their did-you-means worked out (a check leaves them pending: each
    costs a search)."""
    from rulemap import analysis

    return analysis.with_suggestions(workspace_of(snap), findings)


def checked_count(snap: Snapshot) -> int:
    """How many files `rulemap check` looks at (the summary's "in 2 of 13 files")."""
    from rulemap import analysis

    return len(analysis.checked_documents(workspace_of(snap)))
