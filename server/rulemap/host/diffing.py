"""`rulemap diff`'s questions: which files' effective instructions differ between two commits
(or a commit and the working tree), per agent, grouped (`Diff`).

Two ways to the same answer. The quick one opens BASE once over a reader that can switch to
HEAD's (`Switching`): BASE's loads and findings are taken, the reader switched, the workspace
told which files differ, and HEAD's taken (`diff_by_update`). When that cannot stand for a
fresh HEAD workspace, HEAD is opened too and both compared (`diff_hosts`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeAlias

from rulemap.diff import Change, Diff, FindingChange, Group
from rulemap.diff.groups import counts_by_profile
from rulemap.diff.result import WORKTREE
from rulemap.host.analysis_host import AnalysisHost
from rulemap.host.snapshot import workspace_of

if TYPE_CHECKING:
    from rulemap.analysis import ReaderFactory
    from rulemap.readers.base import WalkingReader
    from rulemap.readers.switch import Changes, SwitchReader
    from rulemap.workspace import Workspace

__all__ = [
    "WORKTREE", "Change", "Diff", "FindingChange", "Group", "HeadReader", "Switching",
    "counts_by_profile", "diff_by_update", "diff_hosts", "head_reader",
]

# HEAD's reader, for `diff_by_update` (the edge only hands it over)
HeadReader: TypeAlias = "WalkingReader"


class Switching:
    """The reader wrap that lets BASE's workspace switch to HEAD (`open_host(wrap=...)`)."""

    def __init__(self) -> None:
        self.switches: list[SwitchReader] = []

    def wrap(self, base_factory: ReaderFactory, root_dir: str) -> ReaderFactory:
        from rulemap.readers.switch import SwitchReader

        def factory(root: str, allowed: tuple[str, ...]) -> WalkingReader:
            reader = base_factory(root, allowed)
            if root != root_dir:
                return reader
            self.switches.append(SwitchReader(reader))
            return self.switches[-1]

        return factory


def head_reader(base: AnalysisHost, head: str | None) -> HeadReader:
    """HEAD's reader, with BASE's grants: the working tree (None) or git commit `head`
    (raises GitRefError when git cannot read it)."""
    from rulemap import analysis
    from rulemap.host.commands import ref_reader_factory

    ws = workspace_of(base.snapshot())
    root_dir, granted = ws.root, ws.config.allow_imports_from
    if head is None:
        return analysis.local_reader(root_dir, granted)
    return ref_reader_factory(root_dir, head)(root_dir, granted)


def diff_by_update(
    base: AnalysisHost,
    switching: Switching,
    head: HeadReader,
    profiles: Sequence[str] | None,
    cwd_of: Callable[[], str | None],
    base_label: str,
    head_label: str,
) -> Diff | None:
    """The diff made by updating BASE's workspace (opened over `switching`) to HEAD's, when
    that stands for a fresh HEAD workspace; None otherwise (then BASE's host is still BASE's).
    Between two commits git names the changed files; against the working tree, the files BASE
    read are compared byte for byte. `cwd_of()`: the agents' working directory, asked only
    when the update is made."""
    from rulemap.diff import diff_by_update as updated

    ws = workspace_of(base.snapshot())
    switch = switching.switches[-1]
    plan = update_plan(ws, switch, head)
    if plan is None:
        return None
    head_files, found = plan
    cwd = cwd_of()
    return updated(ws, head_files, found, lambda: switch.switch(head), profiles=profiles,
                   cwd=cwd, base_label=base_label, head_label=head_label)


def diff_hosts(
    base: AnalysisHost,
    head: AnalysisHost,
    profiles: Sequence[str] | None,
    cwd: str | None,
    base_label: str,
    head_label: str,
) -> Diff:
    """What differs between BASE's host and HEAD's, for every file of either and the start-up
    load, per agent."""
    from rulemap.diff import diff_workspaces

    return diff_workspaces(workspace_of(base.snapshot()), workspace_of(head.snapshot()),
                           profiles=profiles, cwd=cwd, base_label=base_label,
                           head_label=head_label)


# HEAD's files, and the files that differ (asked once BASE has read all it will)
UpdatePlan: TypeAlias = "tuple[set[str], Callable[[], Changes]]"


def update_plan(ws: Workspace, switch: SwitchReader, head: WalkingReader) -> UpdatePlan | None:
    """Whether BASE's workspace `ws`, reading through `switch`, may be updated to HEAD's
    (read by `head`) and stand for a fresh HEAD workspace: HEAD's files and how to name the
    changed ones; None when it may not. Between two commits git names the changed files (None
    when it cannot, or when they disagree with HEAD's listing); against the working tree, the
    files BASE read are compared byte for byte, unless HEAD has an ignored file some agent
    reads (an instruction file BASE's index never saw)."""
    # git (and `subprocess`) is imported only when a diff runs
    from rulemap.profiles import PROFILES
    from rulemap.readers.git import GitRefReader
    from rulemap.readers.switch import content_changes, git_changes

    if ws.reader is not switch:
        return None
    # HEAD's listing (it also finds HEAD's dangling links and ignored files)
    head_files = set(head.list_files())
    before = switch.current
    changes: Changes | None = None
    if isinstance(before, GitRefReader) and isinstance(head, GitRefReader):
        changes = git_changes(before, head)
        if changes is None:
            return None
        if (set(ws.files) - changes.deleted) | changes.created != head_files:
            return None
    elif any(p.reads(ws, k) for p in PROFILES.values() for k in head.ignored_files()):
        return None  # an ignored instruction file BASE's index never saw

    def found() -> Changes:
        if changes is not None:
            return changes
        return content_changes(switch, head, ws.files, head_files)

    return head_files, found
