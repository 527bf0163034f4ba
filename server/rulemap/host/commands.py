"""What the command line asks the engine beyond `rulemap.analysis`, as plain data.

The CLI opens a workspace with `analysis.open_workspace` and passes it around as an
`OpenWorkspace`: a handle it hands back to the engine (`analysis`, `compare`, `diff`,
`session`, this module). The agents, the check codes, the session replay's data and
`rulemap verify`'s (`verify_log`, `parse_load_log`, `read_load_log`) come from here too, so
`cli/` imports nothing from `workspace/`, `profiles/` or `checks/`
(tests/core/test_edge_imports.py holds this).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias

from rulemap.model import Finding
from rulemap.profiles import PROFILES
from rulemap.profiles.steps import Problem, SessionReplay, SessionStep
from rulemap.workspace import Workspace

if TYPE_CHECKING:
    from rulemap.readers.base import WalkingReader
    from rulemap.readers.switch import Changes, SwitchReader
    from rulemap.verify import (
        LoadLogError,
        LogFormat,
        Verification,
        log_formats,
        parse_load_log,
        read_load_log,
        rebased,
        verify_log,
    )

# `rulemap verify`'s names, imported when first asked for (PEP 562): `rulemap check` imports
# this module, and rulemap.verify only at start-up cost it
_VERIFY_NAMES = frozenset({
    "LoadLogError", "LogFormat", "Verification", "log_formats", "parse_load_log",
    "read_load_log", "rebased", "verify_log",
})


def __getattr__(name: str) -> object:
    if name in _VERIFY_NAMES:
        import rulemap.verify

        return getattr(rulemap.verify, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "LoadLogError", "LogFormat", "OpenWorkspace", "Problem", "SessionReplay", "SessionStep",
    "UpdatePlan", "Verification", "log_formats", "parse_load_log", "read_load_log", "rebased",
    "untrusted_findings", "update_plan", "verify_log",
]

# a workspace as `analysis.open_workspace` opened it, for the CLI to pass back to the engine
OpenWorkspace: TypeAlias = Workspace

# HEAD's files, and the files that differ (asked once BASE has read all it will)
UpdatePlan: TypeAlias = "tuple[set[str], Callable[[], Changes]]"


def untrusted_findings(ws: OpenWorkspace) -> list[Finding]:
    """The `untrusted-config` findings (the repository's own grant, ignored), suppressions,
    severity overrides and `ignore` applied: for the commands that do not list findings."""
    from rulemap.checks import finalize, trust

    return finalize(ws, trust.check(ws))


def update_plan(ws: OpenWorkspace, switch: SwitchReader, head: WalkingReader) -> UpdatePlan | None:
    """Whether BASE's workspace `ws`, reading through `switch`, may be updated to HEAD's
    (read by `head`) and stand for a fresh HEAD workspace (`rulemap diff`): HEAD's files and
    how to name the changed ones; None when it may not. Between two commits git names the
    changed files (None when it cannot, or when they disagree with HEAD's listing); against
    the working tree, the files BASE read are compared byte for byte, unless HEAD has an
    ignored file some agent reads (an instruction file BASE's index never saw)."""
    # git (and `subprocess`) is imported only when a diff runs
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
