"""`rulemap explain`'s question: what an agent loads for a target (`rulemap.model.Explanation`).
How its sizes and budget are told in the agent's own unit (`12,400 chars`) is
`host/budgets.py`'s, for every view."""

from __future__ import annotations

from rulemap.host.snapshot import Snapshot, workspace_of
from rulemap.model import Explanation

__all__ = ["explain"]


def explain(
    snap: Snapshot, target: str | None, cwd: str | None = None, profile: str | None = None
) -> Explanation:
    """What `profile` (None: the configuration's, else the default agent) loads for `target`
    (None: at start-up) from `cwd` (None: the configured one). Raises UnknownProfile for a
    name no agent is registered under (a snapshot's own agent would quietly be the default)."""
    from rulemap import analysis

    return analysis.explain(workspace_of(snap), target, cwd=cwd, profile=profile)
