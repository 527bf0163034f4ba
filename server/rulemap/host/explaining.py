"""`rulemap explain`'s question, and how its answer is told: what an agent loads for a target
(`rulemap.model.Explanation`), each file's size in the agent's own unit, the budget's amounts
and line as a person reads them (`12,400 chars`). `rulemap session` and the editor's hovers
tell them the same way."""

from __future__ import annotations

from rulemap.compare import (
    amount,
    budget_line,
    budget_share,
    is_cut,
    limit_name,
    size_of,
    text_size,
    total_of,
    unit_of,
)
from rulemap.host.snapshot import Snapshot, workspace_of
from rulemap.model import Explanation

__all__ = [
    "amount", "budget_line", "budget_share", "explain", "is_cut", "limit_name", "size_of",
    "text_size", "total_of", "unit_of",
]


def explain(
    snap: Snapshot, target: str | None, cwd: str | None = None, profile: str | None = None
) -> Explanation:
    """What `profile` (None: the configuration's, else the default agent) loads for `target`
    (None: at start-up) from `cwd` (None: the configured one). Raises UnknownProfile for a
    name no agent is registered under (a snapshot's own agent would quietly be the default)."""
    from rulemap import analysis

    return analysis.explain(workspace_of(snap), target, cwd=cwd, profile=profile)
