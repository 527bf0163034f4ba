"""`rulemap check --fix` and `--diff`: the safe fixes applied in memory, pass after pass
(`fix_passes.py`), then written here, each file whole, through `readers/safe_write.py` — which
writes a file only while it still holds the bytes read, keeps its mode, owner and hard links,
and refuses a path outside the workspace, a symlink, a read-only file and anything not a
regular file — or shown as a unified diff."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulemap.fixes import safe_fix, unified_diff
from rulemap.host.analysis_host import AnalysisHost
from rulemap.host.fix_passes import FixResult
from rulemap.host.snapshot import workspace_of

if TYPE_CHECKING:
    from collections.abc import Callable

    from rulemap.analysis import ReaderFactory
    from rulemap.model import Finding
    from rulemap.readers.base import WalkingReader

__all__ = ["FixResult", "fix_in_memory", "overlaid", "safe_fix", "unified_diff", "write"]


def overlaid(factory: ReaderFactory, root: str) -> ReaderFactory:
    """`factory`, with room in the workspace's reader for edited texts not written yet."""
    from rulemap.readers.overlay import OverlayReader

    def build(at: str, allowed: tuple[str, ...]) -> WalkingReader:
        reader = factory(at, allowed)
        return OverlayReader(reader) if at == root else reader

    return build


def fix_in_memory(
    host: AnalysisHost, findings: list[Finding],
    keep: Callable[[list[Finding]], list[Finding]] | None = None,
) -> FixResult:
    """Apply the safe fixes of `findings` to the host's edited texts (it was opened
    `editable`) until none is left: what was done. `keep`: the findings a later pass may
    fix, of each re-check (None: all)."""
    from rulemap.host.fix_passes import fix_in_memory as fixed

    return fixed(workspace_of(host.snapshot()), findings, keep)[1]


def write(host: AnalysisHost, result: FixResult) -> list[str]:
    """Write every changed file; the keys written (a refusal lands in `result.refused`)."""
    from rulemap.readers import safe_write

    root = host.snapshot().root
    written = []
    for path in result.changed:
        try:
            safe_write.replace(root, result.snapshots[path], result.edited[path].encode("utf-8"))
        except safe_write.WriteRefused as exc:
            result.refused[path] = str(exc)
            continue
        written.append(path)
    return written
