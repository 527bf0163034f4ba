"""What the profile's helpers (findings.py, groups.py, session.py) ask of Claude Code's
profile: the `ClaudeLoader` protocol it answers (its loads, its options, its explanation),
the key of a cached load, and where a directory stands from the launch directory. Below the
profile module, so that its helpers import this instead of the profile that calls them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from rulemap.derived import Key
from rulemap.profiles.claude_code.load import ClaudeLoad, Settings

if TYPE_CHECKING:
    from rulemap.model import Explanation
    from rulemap.profiles.claude_code.options import Options
    from rulemap.workspace import Workspace

LoadKey = Key[ClaudeLoad]


class ClaudeLoader(Protocol):
    """`ClaudeCodeProfile` as its helpers see it (profile.py has each method's story)."""

    name: str
    title: str

    def settings_of(self, ws: Workspace) -> Options: ...

    def load_settings(self, ws: Workspace, cwd: str, opts: Options) -> Settings: ...

    def startup(
        self, ws: Workspace, chain: list[str], opts: Options
    ) -> tuple[LoadKey, ClaudeLoad]: ...

    def nested(
        self, ws: Workspace, chain: list[str], directory: str, opts: Options
    ) -> tuple[LoadKey, ClaudeLoad]: ...

    def add_nested(
        self, ws: Workspace, load: ClaudeLoad, directory: str, opts: Options
    ) -> None: ...

    def rule_matcher(
        self, ws: Workspace, chain: list[str], opts: Options, reads: set[str]
    ) -> Callable[[str], list[tuple[str, bool, str]]]: ...

    def explanation_of(
        self, ws: Workspace, link: ClaudeLoad, target: str | None, cwd: str, opts: Options
    ) -> Explanation: ...


def normalize(cwd: str | None) -> str:
    return "" if cwd in (None, "", ".") else str(cwd).strip("/")


def strictly_below(directory: str, cwd: str) -> bool:
    """Whether `directory` is strictly below `cwd`."""
    if not cwd:
        return bool(directory)
    return directory.startswith(cwd + "/")


def deepest_nested(cwd: str, target_dir: str) -> str | None:
    """The last of `nested_dirs(cwd, target_dir)`, without making the others (a kilobyte
    each, 400 of them, for a file 400 levels deep)."""
    return target_dir if strictly_below(target_dir, cwd) else None


def nested_dirs(cwd: str, target_dir: str) -> list[str]:
    """The directories strictly below `cwd` down to `target_dir`, top-down ([] when the target
    is not below cwd: Claude Code loads nested memory for files in cwd's subtree)."""
    if not strictly_below(target_dir, cwd):
        return []
    parts = target_dir.split("/")
    start = len(cwd.split("/")) if cwd else 0
    return ["/".join(parts[: i + 1]) for i in range(start, len(parts))]
