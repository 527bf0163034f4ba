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
    from dataclasses import replace

    from rulemap import analysis

    ws = workspace_of(snap)
    explanation = analysis.explain(ws, target, cwd=cwd, profile=profile)
    # the files with its names it never reads where they are, as `check` says them
    # (misplaced-file): an explanation without them would leave the user guessing why
    loaded = {f.path for f in explanation.files}
    unread = [f for f in analysis.active_profile(ws, profile).misplaced(ws)
              if f.path not in loaded]
    if not unread:
        return explanation
    return replace(explanation, notes=(*explanation.notes, *(
        f"`{f.path}` is not read here: {f.message}" for f in unread)))
