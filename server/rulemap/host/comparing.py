"""`rulemap compare`'s question: what each agent loads for one target, side by side
(`Comparison`, a `Column` per agent), and how its table counts each file's size."""

from __future__ import annotations

from collections.abc import Sequence

from rulemap.compare import Column, Comparison, is_cut, size_of, unit_of
from rulemap.host.snapshot import Snapshot, workspace_of

__all__ = ["Column", "Comparison", "compare", "is_cut", "size_of", "unit_of"]


def compare(
    snap: Snapshot, target: str | None, cwd: str | None, profiles: Sequence[str] | None
) -> Comparison:
    """Every one of `profiles` (None: the workspace's selected agents) loading `target` from
    `cwd` (None: the configured one)."""
    from rulemap.compare import compare as side_by_side

    return side_by_side(workspace_of(snap), target, cwd, profiles)
